package io.hostpace.jdk;

import io.hostpace.AttemptTimeoutException;
import io.hostpace.EndpointDownException;
import io.hostpace.internal.Failures;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What happened to an exchange of the JDK's client that got no whole answer, in a few words for
 * a person, never an exception's class: the engine's budget, a DNS failure, a refused or reset
 * connection, an answer that is not HTTP. The command line's records and the proxy's 502 and 504
 * say it so. Each kind is looked for along the whole chain of causes, the most telling first:
 * the JDK reports a host name that does not resolve as a {@code ConnectException} caused by an
 * {@code UnresolvedAddressException}, so the cause decides, not the wrapper.
 */
public final class ExchangeFailures {

  /**
   * The JDK's message for headers past its {@code jdk.http.maxHeaderSize} (384 KiB unless set):
   * it counts the status line and each header as the characters of its name and value plus 32,
   * as HTTP/2's header table does, so that many short headers pass it long before their bytes
   * on the wire do. The first number is its count when it stopped, the second the limit.
   */
  private static final Pattern HEADERS_TOO_BIG = Pattern.compile("Header size too big: (\\d+) > (\\d+)");

  /**
   * The JDK's messages for a chunk-size line it cannot read: a character that is not a
   * hexadecimal digit (a sign, a letter past f), a line of over 2 KiB, a bare line feed.
   */
  private static final Pattern MALFORMED_CHUNK = Pattern.compile(
      "Illegal character in chunk size.*|Chunk header size too long.*|invalid chunk header.*");

  private ExchangeFailures() {}

  /**
   * What {@code failure} says happened, or null when it is none of the exchange's failures this
   * knows (a caller's own, such as a parser's).
   *
   * @param timeout the timeout the words name, as its reader set it: {@code --timeout 1.5 s}
   */
  public static @Nullable String describe(Throwable failure, String timeout) {
    Throwable cause = Failures.unwrap(failure);
    Throwable engine = cause(cause, EndpointDownException.class);
    if (engine == null) {
      engine = cause(cause, AttemptTimeoutException.class);
    }
    if (engine != null) {
      return message(engine);
    }
    if (cause(cause, UnknownHostException.class) != null || cause(cause, UnresolvedAddressException.class) != null) {
      return "DNS failure: the host name does not resolve";
    }
    if (cause(cause, HttpConnectTimeoutException.class) != null) {
      return "connect timeout: no connection within " + timeout;
    }
    if (cause(cause, HttpTimeoutException.class) != null) {
      return "timeout: no response headers within " + timeout;
    }
    ConnectException connect = cause(cause, ConnectException.class);
    if (connect != null) {
      String why = deepestMessage(connect);
      return why == null || why.toLowerCase(Locale.ROOT).contains("refused") ? "connection refused" : "cannot connect: " + why;
    }
    if (hasMessage(cause, "reset")) {
      return "connection reset by the server";
    }
    if (hasMessage(cause, "received no bytes")) {
      return "the server closed the connection without an answer";
    }
    if (cause(cause, EOFException.class) != null) {
      return "the server closed the connection before the answer was complete";
    }
    ProtocolException protocol = cause(cause, ProtocolException.class);
    if (protocol != null) {
      String what = message(protocol);
      java.util.regex.Matcher tooBig = HEADERS_TOO_BIG.matcher(what);
      return tooBig.matches()
          ? "the server's headers are too large for the JDK client: past its limit of " + tooBig.group(2)
              + " (jdk.http.maxHeaderSize), which counts each header as the bytes of its name and value plus 32"
          : "not a valid HTTP answer: " + what;
    }
    if (hasMessage(cause, MALFORMED_CHUNK)) {
      return "the server sent a malformed chunked body: a chunk's size is not a hexadecimal number of bytes";
    }
    return null;
  }

  /** {@code 2}, {@code 0.3}: a duration in seconds as a person writes it. */
  public static String seconds(java.time.Duration duration) {
    return java.math.BigDecimal.valueOf(duration.toNanos()).movePointLeft(9).stripTrailingZeros().toPlainString();
  }

  /** The first of {@code failure} and its causes that is a {@code kind}, or null: how each kind above is looked for. */
  public static <E extends Throwable> @Nullable E cause(Throwable failure, Class<E> kind) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (kind.isInstance(t)) {
        return kind.cast(t);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  private static boolean hasMessage(Throwable failure, Pattern whole) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && whole.matcher(message.strip()).matches()) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasMessage(Throwable failure, String part) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && message.toLowerCase(Locale.ROOT).contains(part)) {
        return true;
      }
    }
    return false;
  }

  /** The message of the deepest cause that has one: the one that says what the system saw. */
  private static @Nullable String deepestMessage(Throwable failure) {
    String found = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        found = t.getMessage();
      }
    }
    return found;
  }

  /** {@code failure}'s message, or where it has none its class's simple name: for a failure none of these. */
  public static String message(Throwable failure) {
    String message = failure.getMessage();
    return message == null || message.isBlank() ? failure.getClass().getSimpleName() : message.strip();
  }
}

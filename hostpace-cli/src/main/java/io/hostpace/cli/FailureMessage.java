package io.hostpace.cli;

import io.hostpace.AttemptTimeoutException;
import io.hostpace.EndpointDownException;
import io.hostpace.internal.Failures;
import io.hostpace.jdk.BodyCut;
import io.hostpace.jdk.BodyTimeoutException;
import io.hostpace.jdk.BodyTooLargeException;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** What {@code fetch} and {@code sparql} say of an exchange that failed: one short line. */
final class FailureMessage {

  /**
   * The JDK's message for headers past its {@code jdk.http.maxHeaderSize} (384 KiB unless set):
   * it counts the status line and each header as the characters of its name and value plus 32,
   * as HTTP/2's header table does, so that many short headers pass it long before their bytes
   * on the wire do. The first number is its count when it stopped, the second the limit.
   */
  private static final java.util.regex.Pattern HEADERS_TOO_BIG =
      java.util.regex.Pattern.compile("Header size too big: (\\d+) > (\\d+)");

  /**
   * The JDK's messages for a chunk-size line it cannot read: a character that is not a
   * hexadecimal digit (a sign, a letter past f), a line of over 2 KiB, a bare line feed.
   */
  private static final java.util.regex.Pattern MALFORMED_CHUNK = java.util.regex.Pattern.compile(
      "Illegal character in chunk size.*|Chunk header size too long.*|invalid chunk header.*");

  private FailureMessage() {}

  /**
   * A short message for a call that got no whole HTTP answer, that names what happened: our
   * deadline or the body cap (SPEC T7), the engine's budget, a DNS failure, a refused or reset
   * connection, an answer that is not HTTP. Each kind is looked for along the whole chain of
   * causes, the most telling first: the JDK reports a host name that does not resolve as a
   * {@code ConnectException} caused by an {@code UnresolvedAddressException}, so the cause
   * decides, not the wrapper.
   */
  static String describe(Throwable failure, Duration timeout) {
    String known = ofExchange(failure, timeout);
    if (known != null) {
      return known;
    }
    Throwable cause = Failures.unwrap(failure);
    // The JDK client's refusal of a request it cannot send, such as a URL it does not take.
    return cause instanceof IllegalArgumentException ? "invalid URL: " + message(cause) : message(cause);
  }

  /**
   * What {@link #describe} says of a failure of the exchange itself (no whole answer came), or
   * null when {@code failure} is none it knows: the caller's own, such as a parser's.
   */
  static @Nullable String ofExchange(Throwable failure, Duration timeout) {
    Throwable cause = Failures.unwrap(failure);
    String cut = cut(cause, timeout);
    if (cut != null) {
      return cut;
    }
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
      return "connect timeout: no connection within --timeout " + seconds(timeout) + " s";
    }
    if (cause(cause, HttpTimeoutException.class) != null) {
      return "timeout: no response headers within --timeout " + seconds(timeout) + " s";
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

  /**
   * What a body cut at {@code --timeout} or {@code --max-body} says (SPEC T7), in the options'
   * terms, from the JDK adapter's account of the cut; null when {@code failure} is no cut.
   */
  private static @Nullable String cut(Throwable failure, Duration timeout) {
    BodyTimeoutException late = cause(failure, BodyTimeoutException.class);
    if (late != null) {
      BodyCut cut = late.cut();
      return "timeout: the body was not complete within --timeout " + seconds(timeout) + " s: " + cut.bytes()
          + (cut.contentLength() >= 0 ? " of " + cut.contentLength() : "") + " bytes had come";
    }
    BodyTooLargeException large = cause(failure, BodyTooLargeException.class);
    if (large == null) {
      return null;
    }
    BodyCut cut = large.cut();
    String cap = "--max-body " + ByteSize.format(large.maxBytes()) + " (" + large.maxBytes() + " bytes)";
    if (large.declaredOver()) {
      return "body too large: the server declared " + cut.contentLength() + " bytes, over " + cap + "; none was read";
    }
    return "body too large: more than " + cap + " came"
        + (cut.contentLength() >= 0 ? " of the " + cut.contentLength() + " declared" : "") + "; the rest was not read";
  }

  /** How much of a body had come when it was cut, and the status its headers had; null when {@code failure} is no cut. */
  static @Nullable BodyCut cutOf(Throwable failure) {
    BodyTimeoutException late = cause(failure, BodyTimeoutException.class);
    if (late != null) {
      return late.cut();
    }
    BodyTooLargeException large = cause(failure, BodyTooLargeException.class);
    return large != null ? large.cut() : null;
  }

  /** {@code 2}, {@code 0.3}: a duration in seconds as the user writes it. */
  static String seconds(Duration duration) {
    return java.math.BigDecimal.valueOf(duration.toNanos()).movePointLeft(9).stripTrailingZeros().toPlainString();
  }

  /** The first of {@code failure} and its causes that is a {@code kind}, or null. */
  static <E extends Throwable> @Nullable E cause(Throwable failure, Class<E> kind) {
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

  private static boolean hasMessage(Throwable failure, java.util.regex.Pattern whole) {
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

  private static String message(Throwable failure) {
    String message = failure.getMessage();
    return message == null || message.isBlank() ? failure.getClass().getSimpleName() : message.strip();
  }
}

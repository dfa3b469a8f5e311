package io.hostpace.spi;

import io.hostpace.AttemptTimeoutException;
import io.hostpace.timeout.Outcome;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.jspecify.annotations.Nullable;

/**
 * One call as an HTTP client adapter hands it to the engine: the engine decides when each
 * attempt goes and whether there is another, and the exchange only does what the client
 * does. It holds no pacing or retry logic of its own.
 *
 * <p>The engine calls {@link #send()} once per attempt, never twice at once, and after a
 * refusal it calls {@link #discard} on that attempt's response before sending again. An
 * adapter of a blocking client sends in {@link #send()} and returns a completed future: the
 * engine's blocking entry point calls it on the caller's thread; such an adapter aborts the
 * attempt in {@link #abort()} when its budget runs out.
 *
 * @param <R> the client's response type
 */
public interface Exchange<R> {

  /** The request's URI; its authority decides the host queue. */
  URI uri();

  /** The request's method, such as {@code GET}. */
  String method();

  /**
   * Whether the request's body can be sent again (SPEC T4): true without a body or with one
   * that is produced anew each time; false for a stream that can be read once. Asked before
   * every retry.
   */
  boolean canResend();

  /**
   * Sends one attempt. The future completes when the response headers arrive (the body is
   * read after, outside the queue), or exceptionally when the attempt fails. The engine
   * cancels it when the call is cancelled. A {@code send()} that throws, or returns null, fails the
   * call with what it threw (a {@link NullPointerException} for null) and lets its place go.
   */
  CompletableFuture<R> send();

  /**
   * Aborts the attempt that a blocking {@link #send()} is still sending, because its timeout budget
   * ran out (SPEC D1), so that send() returns or throws at once; true when it did or will, false
   * when it cannot. The engine calls it from its timer's thread, at most once per attempt and only
   * while send() has not returned, so it must not block; whatever send() then returns counts as the
   * timeout. The default cannot: such an attempt goes on until its answer, which counts as it came,
   * and the client's own timeouts are what bound it. An exchange whose send() returns at once needs
   * none of this: the engine cancels the future it returned.
   */
  default boolean abort() {
    return false;
  }

  /** The status code of a response. */
  int status(R response);

  /** The first value of a response header, or {@code null}; {@code name} is case-insensitive. */
  @Nullable String header(R response, String name);

  /** Lets a response go that will not reach the caller, because another attempt follows. */
  void discard(R response);

  /**
   * Whether {@code failure}, the failure of the attempt just sent, proves that nothing of the
   * request reached the server's handling: the connection was one the client reused from its
   * pool, and it was closed or reset before any byte of an answer came (SPEC T6). The engine then
   * sends the request once more, through its host's queue, if {@link #canResend()} allows; any
   * other failure reaches the caller as it is. Asked once per failed attempt, with the failure as
   * the client raised it (not a wrapper of the engine's), from the thread that completed the
   * attempt; an adapter may judge it with what it saw of the attempt (which connection, which
   * bytes).
   *
   * <p>The default is false: the exception alone cannot tell a pooled connection that the server
   * had closed while idle from one that broke under the request. A timeout, or a failure after
   * bytes of the answer, is never such a failure.
   */
  default boolean diedBeforeAnswer(Throwable failure) {
    return false;
  }

  /**
   * What one exception of a failed attempt tells the timeout policy (SPEC D3): {@link
   * Outcome#TIMED_OUT} for a timeout, {@link Outcome#UNREACHABLE} for an endpoint that could not
   * be reached (refused, reset before the answer, DNS, TLS, connect timeout), null when it says
   * neither. The engine asks about each exception of the failure's cause chain, outermost first,
   * and takes the first answer that is not null, so an implementation judges {@code failure}
   * alone, not its causes.
   *
   * <p>The default knows the JDK's own types: {@link UnknownHostException}, {@link
   * UnresolvedAddressException}, {@link NoRouteToHostException}, {@link SSLHandshakeException},
   * {@link ConnectException} and a {@link SocketException} that says reset, refused or closed are
   * unreachable; an {@link InterruptedIOException} (a {@code SocketTimeoutException}, the engine's
   * {@link AttemptTimeoutException}) and a {@link TimeoutException} are timeouts. An adapter whose
   * client has types of its own answers for those and leaves the rest to this default.
   */
  default @Nullable Outcome outcomeOf(Throwable failure) {
    if (failure instanceof UnknownHostException || failure instanceof UnresolvedAddressException
        || failure instanceof NoRouteToHostException || failure instanceof SSLHandshakeException
        || failure instanceof ConnectException) {
      return Outcome.UNREACHABLE;
    }
    if (failure instanceof InterruptedIOException || failure instanceof TimeoutException) {
      return Outcome.TIMED_OUT;
    }
    if (failure instanceof SocketException) {
      String message = String.valueOf(failure.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("reset") || message.contains("refused") || message.contains("closed")) {
        return Outcome.UNREACHABLE;
      }
    }
    return null;
  }
}

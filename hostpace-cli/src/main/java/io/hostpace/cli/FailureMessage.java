package io.hostpace.cli;

import io.hostpace.internal.Failures;
import io.hostpace.jdk.BodyCut;
import io.hostpace.jdk.BodyTimeoutException;
import io.hostpace.jdk.BodyTooLargeException;
import io.hostpace.jdk.ExchangeFailures;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** What {@code fetch} and {@code sparql} say of an exchange that failed: one short line. */
final class FailureMessage {

  private FailureMessage() {}

  /**
   * A short message for a call that got no whole HTTP answer, that names what happened: our
   * deadline or the body cap (SPEC T7), the engine's budget, a DNS failure, a refused or reset
   * connection, an answer that is not HTTP.
   */
  static String describe(Throwable failure, Duration timeout) {
    String known = ofExchange(failure, timeout);
    if (known != null) {
      return known;
    }
    Throwable cause = Failures.unwrap(failure);
    // The JDK client's refusal of a request it cannot send, such as a URL it does not take.
    String message = ExchangeFailures.message(cause);
    return cause instanceof IllegalArgumentException ? "invalid URL: " + message : message;
  }

  /**
   * What {@link #describe} says of a failure of the exchange itself (no whole answer came), or
   * null when {@code failure} is none it knows: the caller's own, such as a parser's. A cut of
   * the body is said in the options' terms; the rest as {@link ExchangeFailures} says it, for
   * the proxy's answers too.
   */
  static @Nullable String ofExchange(Throwable failure, Duration timeout) {
    Throwable cause = Failures.unwrap(failure);
    String cut = cut(cause, timeout);
    return cut != null ? cut : ExchangeFailures.describe(cause, "--timeout " + seconds(timeout) + " s");
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
    return ExchangeFailures.seconds(duration);
  }

  /** The first of {@code failure} and its causes that is a {@code kind}, or null. */
  static <E extends Throwable> @Nullable E cause(Throwable failure, Class<E> kind) {
    return ExchangeFailures.cause(failure, kind);
  }
}

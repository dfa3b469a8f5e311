package io.hostpace.httpclient5;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The deadline of one attempt's whole answer, body included (SPEC T7): unless the answer is
 * {@link #over()} first, it runs its expiry once, when the answer timeout has passed since the
 * attempt was sent. The expiry drops the attempt's connection, which ends whatever reads it; the
 * reader then raises {@link #failure()} in place of what the broken connection gave it.
 *
 * <p>Why: HttpClient's response timeout is a socket timeout, per read; a body that trickles a byte
 * a second passes every read within it and never ends. Example: an answer timeout of 2 s, an
 * attempt sent at 0 s whose headers come at 0.1 s and whose body trickles: the connection is
 * dropped at 2 s, and the caller's read fails with a {@link SocketTimeoutException}.
 */
final class AnswerDeadline {

  private static final AnswerDeadline NONE = new AnswerDeadline(null, "");

  private final @Nullable Duration timeout;
  private final String exchange;
  private final CompletableFuture<Void> over = new CompletableFuture<>();
  private volatile boolean expired;

  private AnswerDeadline(@Nullable Duration timeout, String exchange) {
    this.timeout = timeout;
    this.exchange = exchange;
  }

  /** No deadline: never expires. */
  static AnswerDeadline none() {
    return NONE;
  }

  /**
   * A deadline {@code timeout} from now for {@code exchange} (such as {@code "GET https://example.org/"})
   * that runs {@code expiry} when it passes; none, and never expired, when {@code timeout} is null.
   */
  static AnswerDeadline start(@Nullable Duration timeout, String exchange, Runnable expiry) {
    if (timeout == null) {
      return NONE;
    }
    AnswerDeadline deadline = new AnswerDeadline(timeout, exchange);
    deadline.over.orTimeout(Math.max(timeout.toNanos(), 1), TimeUnit.NANOSECONDS).whenComplete((done, failure) -> {
      if (failure instanceof TimeoutException) {
        deadline.expired = true;
        expiry.run();
      }
    });
    return deadline;
  }

  /** The answer has ended (read whole, failed, closed): the deadline no longer applies. */
  void over() {
    over.complete(null);
  }

  /** Whether the deadline passed before the answer was over. */
  boolean expired() {
    return expired;
  }

  /** What the reader of an expired answer raises, with {@code cause}, what the dropped connection gave it, if anything. */
  SocketTimeoutException failure(@Nullable Throwable cause) {
    SocketTimeoutException failure = new SocketTimeoutException(
        exchange + ": the answer was not read whole within its answer timeout of " + timeout);
    if (cause != null) {
      failure.initCause(cause);
    }
    return failure;
  }
}

package io.hostpace.cli;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One attempt's body, passed on to the subscriber that reads it, but only until its deadline and
 * its size cap (SPEC T7): a body still incomplete at the deadline, or longer than the cap (as
 * counted, or as its {@code Content-Length} declares), is cut. Cutting cancels the subscription,
 * which closes the connection, and hands the reader a {@link BodyCutException} that says what
 * happened and how many bytes had come, so the reader's future fails instead of waiting for ever.
 *
 * <p>Invariant: the reader gets at most one {@code onComplete} or {@code onError}, and nothing
 * after it. The timer's thread and the body's race to end it; {@code ended}, set once under the
 * lock, decides, and the body's signals reach the reader under that lock, so none overlaps the
 * end or follows it. For example, with a deadline 2 s after the send and headers at 0.5 s, the
 * timer fires at 2 s; a stalled body that had sent 3 of its 1048576 bytes fails with "timeout:
 * the body was not complete within --timeout 2 s: 3 of 1048576 bytes had come".
 */
final class BoundedBody<T> implements BodySubscriber<T> {

  private final BodySubscriber<T> reader;
  private final String timeout;
  private final long maxBody;
  private final int status;
  /** The {@code Content-Length} the server declared, or -1. */
  private final long declared;
  private final long deadlineNanos;
  private final ScheduledExecutorService timer;
  /** Told how the body was cut, before the reader is. */
  private final java.util.function.Consumer<BodyCutException> onCut;

  @GuardedBy("this")
  private long bytes;
  @GuardedBy("this")
  private boolean ended;
  @GuardedBy("this")
  private Flow.@Nullable Subscription subscription;
  /** Set when the body is subscribed to: the timer that cuts it at its deadline. */
  @GuardedBy("this")
  private @Nullable ScheduledFuture<?> deadline;

  /**
   * @param head whether the request was a HEAD, whose answer declares the length of a body it
   *     does not carry
   * @param deadlineNanos the {@link System#nanoTime()} by which the body must be complete
   * @param timeout how the user gave the deadline, for the message: {@code --timeout 2 s}
   * @param onCut told how the body was cut, if it is, before the reader is
   */
  BoundedBody(BodySubscriber<T> reader, ResponseInfo info, boolean head, long deadlineNanos, String timeout,
      long maxBody, ScheduledExecutorService timer, java.util.function.Consumer<BodyCutException> onCut) {
    this.reader = reader;
    this.timeout = timeout;
    this.maxBody = maxBody;
    this.status = info.statusCode();
    boolean bodiless = head || status == 204 || status == 304 || status / 100 == 1;
    this.declared = bodiless ? -1 : declaredLength(info);
    this.deadlineNanos = deadlineNanos;
    this.timer = timer;
    this.onCut = onCut;
  }

  private static long declaredLength(ResponseInfo info) {
    try {
      return info.headers().firstValueAsLong("Content-Length").orElse(-1);
    } catch (NumberFormatException e) {
      return -1; // the client reads such a body as it comes; the count still caps it
    }
  }

  @Override
  public CompletionStage<T> getBody() {
    return reader.getBody();
  }

  @Override
  public void onSubscribe(Flow.Subscription given) {
    BodyCutException why;
    synchronized (this) {
      subscription = given;
      reader.onSubscribe(given);
      if (declared > maxBody) {
        why = new BodyCutException("body too large: the server declared " + declared + " bytes, over --max-body "
            + ByteSize.format(maxBody) + " (" + maxBody + " bytes); none was read", status, 0);
      } else if (scheduleDeadline()) {
        return;
      } else {
        why = new BodyCutException("the run ended before the body was read", status, 0);
      }
    }
    cut(why);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    long count;
    synchronized (this) {
      if (ended) {
        return;
      }
      for (ByteBuffer buffer : buffers) {
        bytes += buffer.remaining();
      }
      if (bytes <= maxBody) {
        reader.onNext(buffers);
        return;
      }
      count = bytes;
    }
    cut(new BodyCutException("body too large: more than --max-body " + ByteSize.format(maxBody) + " ("
        + maxBody + " bytes) came" + (declared >= 0 ? " of the " + declared + " declared" : "")
        + "; the rest was not read", status, count));
  }

  @Override
  public synchronized void onError(Throwable failure) {
    if (end()) {
      reader.onError(failure);
    }
  }

  @Override
  public synchronized void onComplete() {
    if (end()) {
      reader.onComplete();
    }
  }

  /** Starts the timer that cuts the body at its deadline; false when the client is closed (the run is over). */
  @GuardedBy("this")
  private boolean scheduleDeadline() {
    long remaining = Math.max(0, deadlineNanos - System.nanoTime());
    try {
      deadline = timer.schedule(this::deadlinePassed, remaining, TimeUnit.NANOSECONDS);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  private void deadlinePassed() {
    long count;
    synchronized (this) {
      count = bytes;
    }
    cut(new BodyCutException("timeout: the body was not complete within " + timeout + ": " + count
        + (declared >= 0 ? " of " + declared : "") + " bytes had come", status, count));
  }

  /**
   * Ends the body with {@code why}, unless it has ended: the connection is let go and the reader
   * fails. Outside the lock, so that the client's cancel never waits on a body thread that waits
   * on this; once {@code ended} is set no other signal reaches the reader.
   */
  private void cut(BodyCutException why) {
    Flow.Subscription current;
    synchronized (this) {
      if (!end()) {
        return;
      }
      current = subscription;
    }
    if (current != null) {
      current.cancel();
    }
    onCut.accept(why);
    reader.onError(why);
  }

  /** True for the one caller that ends the body; stops the timer. */
  @GuardedBy("this")
  private boolean end() {
    if (ended) {
      return false;
    }
    ended = true;
    ScheduledFuture<?> current = deadline;
    if (current != null) {
      current.cancel(false);
    }
    return true;
  }
}

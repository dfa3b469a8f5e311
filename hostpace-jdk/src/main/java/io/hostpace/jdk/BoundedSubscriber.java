package io.hostpace.jdk;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A body subscriber held to its attempt's deadline and to a cap on the body's size (SPEC T7): it
 * hands the JDK's signals to the subscriber it wraps until the body ends, or until the deadline
 * passes or more bytes came than the cap allows; then it cancels the subscription, which closes
 * the connection, and fails the body with a {@link BodyTimeoutException} or a
 * {@link BodyTooLargeException}, which say what of the body had come.
 *
 * <p>Why: the JDK ends an attempt whose headers do not come within the request's timeout, but not
 * one whose body stalls or trickles after them; nor does it stop a body that never ends. Example:
 * a request with a timeout of 1 s, sent at 0 s, whose headers come at 0.2 s and whose body then
 * stalls, fails at 1 s; with a cap of 1 MiB, an endless body fails when its byte 1,048,577 comes.
 *
 * <p>Per read ({@link PacedHttpClient#withBodyTimeoutPerRead}), the timeout bounds each wait for
 * more of the body instead, from the headers' arrival and then from each byte that came: the same
 * request whose body brings a byte every 0.5 s is never cut, and fails 1 s after its last byte
 * when it stalls. One timer runs at a time: when it fires it fails the body if no byte came for
 * the timeout, else it is set again for the rest of the wait since the last one.
 *
 * <p>Invariant: the wrapped subscriber gets {@code onSubscribe} first and at most one of
 * {@code onComplete} and {@code onError}, and no signal after it; {@code ended} says one was
 * given. Signals and the deadline's failure come on different threads, so each passes under
 * this object's lock; the wrapped subscribers are the JDK's and the caller's, which do not block.
 */
final class BoundedSubscriber<T> implements BodySubscriber<T> {

  private final BodySubscriber<T> delegate;
  private final String exchange;
  private final long maxBytes;
  /** Whether the request's timeout bounds each wait for more of the body, not the whole answer. */
  private final boolean perRead;
  /** The answer's status, and the {@code Content-Length} it declared or -1: for the cut's account. */
  private final int status;
  private final long contentLength;
  /** Completes when the body has ended, whichever way; that cancels the deadline's timer. */
  private final CompletableFuture<Void> over = new CompletableFuture<>();
  @GuardedBy("this")
  private Flow.@Nullable Subscription subscription;
  @GuardedBy("this")
  private long received;
  /** When the last byte came, or the headers if none has ({@link System#nanoTime()}): for a timeout per read. */
  @GuardedBy("this")
  private long lastByteAt = System.nanoTime();
  @GuardedBy("this")
  private boolean ended;
  /** Why the body failed before it was subscribed to; handed on at {@code onSubscribe}. */
  @GuardedBy("this")
  private @Nullable Throwable early;

  /**
   * {@code delegate}, for {@code exchange} (such as {@code "GET https://example.org/"}), ended
   * {@code remainingNanos} from now when the request has a {@code timeout}, and capped at
   * {@code maxBytes}; a body whose {@code contentLength} (-1 for unknown) is over the cap fails at
   * once. {@code perRead}: ended instead when no byte came for the {@code timeout}, the first wait
   * being {@code remainingNanos}. {@code status} is the answer's, for the account of a cut.
   */
  BoundedSubscriber(BodySubscriber<T> delegate, String exchange, @Nullable Duration timeout, long remainingNanos,
      boolean perRead, long maxBytes, int status, long contentLength) {
    this.delegate = delegate;
    this.exchange = exchange;
    this.maxBytes = maxBytes;
    this.status = status;
    this.contentLength = contentLength;
    this.perRead = perRead && timeout != null;
    if (contentLength > maxBytes) {
      early = overCap("its Content-Length is " + contentLength, 0);
      over.complete(null);
    } else if (timeout != null) {
      waitFor(remainingNanos, timeout);
    }
  }

  /**
   * Sets the deadline's timer {@code nanos} from now: on a copy of {@code over}, so that the body's
   * end cancels it, and so that a timeout per read can set it again after it fired.
   */
  private void waitFor(long nanos, Duration timeout) {
    over.copy().orTimeout(Math.max(nanos, 1), TimeUnit.NANOSECONDS).whenComplete((done, failure) -> {
      if (failure instanceof TimeoutException) {
        timedOut(timeout);
      }
    });
  }

  /** The timer fired: the body fails, unless, per read, a byte came since the wait began; then it waits on. */
  private void timedOut(Duration timeout) {
    long left;
    long bytes;
    synchronized (this) {
      if (ended) {
        return;
      }
      left = perRead ? timeout.toNanos() - (System.nanoTime() - lastByteAt) : 0;
      bytes = received;
    }
    if (left > 0) {
      waitFor(left, timeout);
      return;
    }
    fail(new BodyTimeoutException(exchange + (perRead
        ? ": no more of the body came within the request's timeout of " + timeout + " after " + bytes + " bytes"
        : ": the answer was not read whole within the request's timeout of " + timeout), cut(bytes)));
  }

  @Override
  public CompletionStage<T> getBody() {
    return delegate.getBody();
  }

  @Override
  public void onSubscribe(Flow.Subscription given) {
    Throwable failed;
    synchronized (this) {
      subscription = given;
      delegate.onSubscribe(given);
      failed = early;
      if (failed == null) {
        return;
      }
      ended = true;
    }
    given.cancel();
    synchronized (this) {
      delegate.onError(failed);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    long count;
    long size = 0;
    for (ByteBuffer buffer : item) {
      size += buffer.remaining();
    }
    synchronized (this) {
      if (ended) {
        return;
      }
      received += size;
      if (size > 0) {
        lastByteAt = System.nanoTime();
      }
      if (received <= maxBytes) {
        delegate.onNext(item);
        return;
      }
      count = received;
    }
    fail(overCap(count + " bytes came", count));
  }

  @Override
  public void onError(Throwable throwable) {
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      delegate.onError(throwable);
    }
    over.complete(null);
  }

  @Override
  public void onComplete() {
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      delegate.onComplete();
    }
    over.complete(null);
  }

  /** Ends the body with {@code failure}: the subscription is cancelled, the wrapped subscriber told. */
  private void fail(Throwable failure) {
    Flow.Subscription current;
    synchronized (this) {
      if (ended) {
        return;
      }
      current = subscription;
      if (current == null) {
        early = failure; // not subscribed yet: onSubscribe hands it on
        return;
      }
      ended = true;
    }
    current.cancel();
    synchronized (this) {
      delegate.onError(failure);
    }
    over.complete(null);
  }

  private BodyCut cut(long bytes) {
    return new BodyCut(status, bytes, contentLength);
  }

  private BodyTooLargeException overCap(String how, long bytes) {
    return new BodyTooLargeException(exchange + ": the body passes its cap of " + maxBytes + " bytes: " + how,
        cut(bytes), maxBytes);
  }
}

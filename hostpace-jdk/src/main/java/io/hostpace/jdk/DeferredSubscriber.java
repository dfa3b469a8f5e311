package io.hostpace.jdk;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.internal.Failures;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A body subscriber for an answer the engine has not judged yet: it holds the JDK's signals,
 * in order, until it is told whose they are (the caller's subscriber, or one that throws the
 * body away), then hands them on, and every later one as it comes.
 *
 * <p>Rarely needed: the engine judges an answer inside the call that completes the attempt's
 * future, so the body handler usually knows at once. Only an answer that arrives before the
 * engine listens to the attempt (or before the caller's future is wired up) waits here.
 *
 * <p>Invariant: signals reach the target in the order the JDK gave them, one at a time; at most
 * one thread hands them on ({@code delivering}), and it drains the queue before it lets go.
 * The JDK requests nothing before the target has its subscription, so the queue holds at most
 * {@code onSubscribe} and, for an empty or failed body, {@code onComplete} or {@code onError}.
 */
final class DeferredSubscriber<T> implements BodySubscriber<T> {

  private final CompletableFuture<BodySubscriber<T>> target;
  private final CompletionStage<T> body;
  @GuardedBy("this")
  private final ArrayDeque<Consumer<BodySubscriber<T>>> pending = new ArrayDeque<>();
  @GuardedBy("this")
  private @Nullable BodySubscriber<T> chosen;
  @GuardedBy("this")
  private boolean delivering;

  /** {@code target} completes with the subscriber the signals are for; should it fail, the body fails. */
  DeferredSubscriber(CompletableFuture<BodySubscriber<T>> target) {
    this.target = target.exceptionally(failure -> new Failed<>(Failures.unwrap(failure)));
    this.body = this.target.thenCompose(BodySubscriber::getBody);
    this.target.thenAccept(this::choose);
  }

  @Override
  public CompletionStage<T> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    signal(s -> s.onSubscribe(subscription));
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    signal(s -> s.onNext(item));
  }

  @Override
  public void onError(Throwable throwable) {
    signal(s -> s.onError(throwable));
  }

  @Override
  public void onComplete() {
    signal(BodySubscriber::onComplete);
  }

  private void choose(BodySubscriber<T> subscriber) {
    synchronized (this) {
      chosen = subscriber;
    }
    drain();
  }

  private void signal(Consumer<BodySubscriber<T>> signal) {
    synchronized (this) {
      pending.add(signal);
    }
    drain();
  }

  private void drain() {
    while (true) {
      BodySubscriber<T> subscriber;
      Consumer<BodySubscriber<T>> next;
      synchronized (this) {
        if (delivering || chosen == null || pending.isEmpty()) {
          return;
        }
        delivering = true;
        subscriber = chosen;
        next = pending.poll();
      }
      try {
        next.accept(subscriber);
      } finally {
        synchronized (this) {
          delivering = false;
        }
      }
    }
  }

  /** The caller's body handler threw: the body is not read, and fails with what it threw. */
  private static final class Failed<T> implements BodySubscriber<T> {
    private final Throwable failure;

    Failed(Throwable failure) {
      this.failure = failure;
    }

    @Override
    public CompletionStage<T> getBody() {
      return CompletableFuture.failedFuture(failure);
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.cancel();
    }

    @Override
    public void onNext(List<ByteBuffer> item) {}

    @Override
    public void onError(Throwable throwable) {}

    @Override
    public void onComplete() {}
  }
}

package io.hostpace.testkit;

import io.hostpace.internal.Failures;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A call an {@link AdapterUnderTest} started: the scenario waits for its {@link Outcome} or
 * cancels it the client's own way. Make one with {@link #of(CompletableFuture, Runnable)} for an
 * asynchronous client, or {@link #onNewThread} for a blocking one.
 */
public interface Pending {

  /** Cancels the call as the client's caller would: cancels its future, aborts its request, interrupts its thread. */
  void cancel();

  /** Whether the call has ended. */
  boolean isDone();

  /** The outcome, waiting up to {@code timeout} for it; the test fails if none comes. */
  Outcome await(Duration timeout) throws InterruptedException;

  /** The outcome, waiting up to 20 s for it. */
  default Outcome await() throws InterruptedException {
    return await(Duration.ofSeconds(20));
  }

  /**
   * A call of an asynchronous client whose outcome is {@code outcome}; {@code cancel} cancels it
   * the client's way. A failure of {@code outcome} is the client's exception; a cancellation
   * is the outcome's failure too.
   */
  static Pending of(CompletableFuture<Outcome> outcome, Runnable cancel) {
    return new Pending() {
      @Override
      public void cancel() {
        cancel.run();
      }

      @Override
      public boolean isDone() {
        return outcome.isDone();
      }

      @Override
      public Outcome await(Duration timeout) throws InterruptedException {
        try {
          return outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CompletionException e) {
          return Outcome.failed(Failures.unwrap(e));
        } catch (CancellationException e) {
          return Outcome.failed(e);
        } catch (TimeoutException e) {
          throw new AssertionError("no outcome in " + timeout, e);
        }
      }
    };
  }

  /** {@link #of(CompletableFuture, Runnable)}, cancelled by cancelling {@code outcome}. */
  static Pending of(CompletableFuture<Outcome> outcome) {
    return of(outcome, () -> outcome.cancel(true));
  }

  /**
   * A call of a blocking client, made on a new thread: what {@code call} returns is the outcome,
   * what it throws is the client's exception. {@code cancel} cancels it the client's way
   * (an {@code abort()}, a {@code Call.cancel()}).
   */
  static Pending onNewThread(String name, Callable<Outcome> call, Runnable cancel) {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    run(name, call, outcome);
    return of(outcome, cancel);
  }

  /** {@link #onNewThread(String, Callable, Runnable)}, cancelled by interrupting the thread. */
  static Pending onNewThread(String name, Callable<Outcome> call) {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    Thread thread = run(name, call, outcome);
    return of(outcome, thread::interrupt);
  }

  private static Thread run(String name, Callable<Outcome> call, CompletableFuture<Outcome> outcome) {
    Thread thread = new Thread(() -> {
      try {
        outcome.complete(call.call());
      } catch (Throwable t) {
        outcome.complete(Outcome.failed(t));
      }
    }, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}

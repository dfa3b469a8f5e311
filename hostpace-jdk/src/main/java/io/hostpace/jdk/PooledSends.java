package io.hostpace.jdk;

import io.hostpace.internal.Failures;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A client whose {@code sendAsync} runs the delegate's blocking {@code send} on a thread of
 * {@code threads}, for the JDK's client where its own {@code sendAsync} would start a thread for
 * every answer. {@link PacedHttpClient} sends each attempt through one of these where
 * {@link #needed()}.
 *
 * <p>Why: the JDK's {@code sendAsync} hands each answer to {@code CompletableFuture}'s default
 * executor, so that what the caller chains on it does not run on the client's threads. That
 * executor is the common {@link ForkJoinPool} only where the pool has two threads or more; with
 * one (one or two processors, unless {@code java.util.concurrent.ForkJoinPool.common.parallelism}
 * says otherwise) it is, before Java 25, a new thread for each task: a thread started and ended
 * for every request sent. Its {@code send} makes no such hop: the thread that waits in it takes
 * the answer. So each attempt holds a thread of {@code threads} until {@code send} returns: when
 * the body handler has its body (for {@code ofInputStream}, when the headers have come).
 *
 * <p>What the caller sees is what {@code sendAsync} gives: the failure {@code send} wraps is
 * unwrapped; cancelling the future interrupts the thread in {@code send}, which aborts the
 * exchange (SPEC T5). A request with a {@link PushPromiseHandler} is sent by the delegate's own
 * {@code sendAsync}: {@code send} takes none.
 */
final class PooledSends extends ForwardingHttpClient {

  private final Executor threads;

  PooledSends(HttpClient delegate, Executor threads) {
    super(delegate);
    this.threads = threads;
  }

  /**
   * A client that sends through {@code delegate} on threads of its own: daemons, as the JDK
   * client's are, as many as there are sends under way, each let go after a minute idle. It needs
   * no closing: an idle pool has no threads, and goes with the client that holds it.
   */
  static PooledSends withOwnThreads(HttpClient delegate) {
    return new PooledSends(delegate, Executors.newCachedThreadPool(daemons()));
  }

  /** Whether the JDK's {@code sendAsync} starts a thread for each answer in this JVM: {@code CompletableFuture}'s default executor is no pool. */
  static boolean needed() {
    return !(new CompletableFuture<Void>().defaultExecutor() instanceof ForkJoinPool);
  }

  /**
   * Whether {@code client}'s {@code sendAsync} starts a thread for each answer: it is the JDK's own
   * client ({@code HttpClient.newHttpClient()}, {@code newBuilder().build()}), and {@link #needed()}.
   * Another client (a subclass, a test double) sends as it does: its {@code send} may differ.
   */
  static boolean neededFor(HttpClient client) {
    return client.getClass().getModule() == HttpClient.class.getModule() && needed();
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler) throws IOException, InterruptedException {
    return delegate().send(request, handler);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
    Sending<T> sending = new Sending<>();
    // The body's own future: send copies an HttpTimeoutException without its cause, and so would
    // lose a BodyTimeoutException; that future, failed before send throws, still has it.
    AtomicReference<@Nullable CompletableFuture<T>> body = new AtomicReference<>();
    BodyHandler<T> noting = info -> {
      BodySubscriber<T> subscriber = handler.apply(info);
      body.set(subscriber.getBody().toCompletableFuture());
      return subscriber;
    };
    FutureTask<Void> task = new FutureTask<>(() -> {
      try {
        sending.complete(delegate().send(request, noting));
      } catch (IOException | IllegalArgumentException | SecurityException e) {
        // send throws a copy of the failure with the original as its cause (an HttpTimeoutException, none)
        Throwable bodyFailure = failureOf(body.get());
        sending.completeExceptionally(bodyFailure != null ? bodyFailure : e.getCause() != null ? e.getCause() : e);
      } catch (InterruptedException e) {
        sending.completeExceptionally(e); // cancelled, or the threads shut down: the exchange was aborted
      } catch (RuntimeException | Error e) {
        sending.completeExceptionally(e);
      }
    }, null);
    sending.task = task;
    try {
      threads.execute(task);
    } catch (RejectedExecutionException e) {
      sending.completeExceptionally(new IOException("the threads that send are shut down: a " + request.method() + " to "
          + request.uri().getHost() + " was not sent", e));
    }
    return sending;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    return pushPromiseHandler == null ? sendAsync(request, handler) : delegate().sendAsync(request, handler, pushPromiseHandler);
  }

  @Override
  public String toString() {
    return "PooledSends{" + delegate() + "}";
  }

  /** The failure {@code body} completed with, unwrapped; null while it has not failed. */
  private static @Nullable Throwable failureOf(@Nullable CompletableFuture<?> body) {
    if (body == null || !body.isCompletedExceptionally()) {
      return null;
    }
    try {
      body.join();
      return null;
    } catch (CompletionException | CancellationException e) {
      return Failures.unwrap(e);
    }
  }

  /** Threads named {@code hostpace-send-N}, daemons as the JDK client's own are. */
  private static ThreadFactory daemons() {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "hostpace-send-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** The answer of one {@code send} on a pooled thread; cancelling it interrupts that thread. */
  private static final class Sending<T> extends CompletableFuture<HttpResponse<T>> {
    /** Set before the task is handed over, read by whoever cancels. */
    volatile @Nullable FutureTask<Void> task;

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      FutureTask<Void> current = task;
      if (cancelled && current != null) {
        current.cancel(true); // not yet run: never sent; running: send aborts the exchange
      }
      return cancelled;
    }
  }
}

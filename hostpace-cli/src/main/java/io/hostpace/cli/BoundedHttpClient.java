package io.hostpace.cli;

import io.hostpace.jdk.ForwardingHttpClient;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.jspecify.annotations.Nullable;

/**
 * The client the command line sends each attempt through: a JDK client whose every exchange is
 * bounded as a whole (SPEC T7). The JDK's request timeout ends the wait for headers; this ends the
 * body, which the JDK lets run for ever: each exchange must be complete, body included, within
 * {@code timeout} of its send, and its body no longer than {@code maxBody}, or its body is cut
 * ({@link BoundedBody}) and its future fails with a {@link BodyCutException}.
 *
 * <p>It sits under the engine ({@code PacedHttpClient.wrap(bounded, engine)}), so each attempt
 * is bounded from its own send, a refused attempt's body that the engine throws away as well as
 * the answer's. Close it at the end of the run: that stops its timer's thread.
 *
 * <p>Callers that send at once, each one exchange at a time, each take a client of their own
 * ({@link #forOneCaller()}), so that {@link #lastCut()} is their own exchange's.
 */
final class BoundedHttpClient extends ForwardingHttpClient {

  private final Duration timeout;
  private final String timeoutText;
  private final long maxBody;
  private final ScheduledThreadPoolExecutor timer;
  /** Whether closing this client stops the timer: false for a caller's, which shares it. */
  private final boolean ownsTimer;
  /** How many exchanges were sent: the number of the last. */
  private final java.util.concurrent.atomic.AtomicLong sends = new java.util.concurrent.atomic.AtomicLong();
  /** The cut of the last exchange's body, null when it was not cut (or has not been yet). */
  private volatile @Nullable BodyCutException lastCut;

  BoundedHttpClient(HttpClient delegate, Duration timeout, long maxBody) {
    this(delegate, timeout, maxBody, new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "hostpace-body-deadline");
      thread.setDaemon(true);
      return thread;
    }), true);
    timer.setRemoveOnCancelPolicy(true); // a body that completes takes its deadline's task with it
  }

  private BoundedHttpClient(HttpClient delegate, Duration timeout, long maxBody, ScheduledThreadPoolExecutor timer,
      boolean ownsTimer) {
    super(delegate);
    this.timeout = timeout;
    this.timeoutText = "--timeout " + seconds(timeout) + " s";
    this.maxBody = maxBody;
    this.timer = timer;
    this.ownsTimer = ownsTimer;
  }

  /**
   * A client that bounds exchanges as this one does, through the same delegate and timer, with a
   * {@link #lastCut()} of its own: for one of several callers that send at once. Closing it does
   * nothing; closing this one stops the timer of both.
   */
  BoundedHttpClient forOneCaller() {
    return new BoundedHttpClient(delegate(), timeout, maxBody, timer, false);
  }

  /**
   * The timeout to give the request itself: {@code timeout} and a tenth more, at least 250 ms
   * more. The JDK adapter holds each attempt's whole answer to the request's timeout as well
   * (SPEC T7); given a little longer, it is a backstop, and this client, which knows the answer's
   * status and how much of its body came, cuts a body first. The wait for the headers, which only
   * the request's timeout ends, is held to it.
   */
  static Duration backstop(Duration timeout) {
    return timeout.plus(Duration.ofMillis(Math.max(250, timeout.toMillis() / 10)));
  }

  /** {@code 2}, {@code 0.3}: a duration in seconds as the user writes it. */
  static String seconds(Duration duration) {
    return BigDecimal.valueOf(duration.toNanos()).movePointLeft(9).stripTrailingZeros().toPlainString();
  }

  /**
   * How the body of the last exchange sent was cut, or null when it was not: for a caller that
   * sends one exchange at a time and whose reader may not pass the cut on as the cause of its
   * own failure (a results parser that reports the end of its stream as a syntax error). The
   * body of an earlier exchange, cut after the last was sent, does not count.
   */
  @Nullable BodyCutException lastCut() {
    return lastCut;
  }

  /** {@code handler} for {@code request}, its body bounded from now: the attempt's send. */
  private <T> BodyHandler<T> bounded(HttpRequest request, BodyHandler<T> handler) {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean head = request.method().equals("HEAD");
    long send = sends.incrementAndGet();
    lastCut = null;
    java.util.function.Consumer<BodyCutException> onCut = cut -> {
      if (sends.get() == send) {
        lastCut = cut;
      }
    };
    return info -> new BoundedBody<>(handler.apply(info), info, head, deadline, timeoutText, maxBody, timer, onCut);
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler) throws IOException, InterruptedException {
    return delegate().send(request, bounded(request, handler));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
    return delegate().sendAsync(request, bounded(request, handler));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    return delegate().sendAsync(request, bounded(request, handler), pushPromiseHandler);
  }

  /** Stops the timer, if this client made it; the delegate is the caller's. */
  @Override
  public void close() {
    if (ownsTimer) {
      timer.shutdownNow();
    }
  }
}

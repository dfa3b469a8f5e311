package io.hostpace.jdk;

import io.hostpace.internal.Failures;
import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Outcome;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.HttpResponse.ResponseInfo;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One call of a {@link PacedHttpClient} as the engine sees it. An attempt's response, for the
 * engine, is its {@link Head}: what arrived with the headers. The body is read after the engine
 * has let the place go (SPEC P2), and only then is it read into the caller's own handler.
 *
 * <pre>
 * engine: send() ─→ delegate.sendAsync(request, head::apply)
 * JDK:    headers arrive ─→ head.apply(info)
 *           ├─ head.answered.complete(head)      the engine judges it here, and frees the place:
 *           │     a refusal to retry → discard(head)   a last answer → the caller's future takes it
 *           └─ returns the subscriber for the body: replacing(null) for a discarded head,
 *              the caller's handler.apply(info) for the one that is kept
 * JDK:    body read ─→ the head's response completes ─→ the caller's future
 * </pre>
 *
 * <p>A head is <em>kept</em> when the call ends with it, <em>let go</em> when the engine
 * discards it or the call ends otherwise (cancelled, failed). Which one is usually known when
 * {@code apply} returns; when the answer came too soon for that, a {@link DeferredSubscriber}
 * holds the body until it is known.
 */
final class JdkExchange<T> implements Exchange<JdkExchange.Head<T>> {

  private final HttpClient delegate;
  private final HttpRequest request;
  private final BodyHandler<T> handler;
  private final @Nullable PushPromiseHandler<T> pushPromiseHandler;
  private final boolean canResend;
  /** The most bytes of body an attempt may bring, {@code Long.MAX_VALUE} for no cap (SPEC T7). */
  private final long maxBodyBytes;
  /** True: the timeout bounds each wait for more of a kept body, not the whole answer ({@link PacedHttpClient#withBodyTimeoutPerRead}). */
  private final boolean bodyTimeoutPerRead;
  /** The last attempt's head: the one a cancelled or failed call lets go. */
  private volatile @Nullable Head<T> latest;

  JdkExchange(HttpClient delegate, HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler, long maxBodyBytes, boolean bodyTimeoutPerRead) {
    this.delegate = delegate;
    this.maxBodyBytes = maxBodyBytes;
    this.bodyTimeoutPerRead = bodyTimeoutPerRead;
    this.request = request;
    this.handler = handler;
    this.pushPromiseHandler = pushPromiseHandler;
    this.canResend = Bodies.canResend(request);
  }

  @Override
  public URI uri() {
    return request.uri();
  }

  @Override
  public String method() {
    return request.method();
  }

  @Override
  public boolean canResend() {
    return canResend;
  }

  @Override
  public CompletableFuture<Head<T>> send() {
    Head<T> head = new Head<>(handler, request, maxBodyBytes, bodyTimeoutPerRead);
    latest = head;
    CompletableFuture<HttpResponse<T>> sent = pushPromiseHandler == null
        ? delegate.sendAsync(request, head::apply)
        : delegate.sendAsync(request, head::apply, pushPromiseHandler);
    head.attach(sent);
    return head.answered;
  }

  @Override
  public int status(Head<T> head) {
    return head.info().statusCode();
  }

  @Override
  public @Nullable String header(Head<T> head, String name) {
    return head.info().headers().firstValue(name).orElse(null);
  }

  @Override
  public void discard(Head<T> head) {
    head.letGo();
  }

  /** The call ended without a head (failed or cancelled): nothing of its last attempt reaches the caller. */
  void abandon() {
    Head<T> head = latest;
    if (head != null) {
      head.cancel();
    }
  }

  /**
   * The JDK client's own timeouts: a connect timeout means the endpoint could not be reached, any
   * other {@link HttpTimeoutException} that the answer did not come in time (SPEC D3).
   */
  @Override
  public @Nullable Outcome outcomeOf(Throwable failure) {
    if (failure instanceof HttpConnectTimeoutException) {
      return Outcome.UNREACHABLE;
    }
    if (failure instanceof HttpTimeoutException) {
      return Outcome.TIMED_OUT;
    }
    return Exchange.super.outcomeOf(failure);
  }

  @Override
  public String toString() {
    return request.method() + " " + request.uri();
  }

  /**
   * {@code uri} as an error message shows it: its scheme, host, port and path, without user
   * information or query, which may hold a password or an API key.
   */
  static String shown(URI uri) {
    String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    return uri.getScheme() + "://" + uri.getHost() + port + path;
  }

  /**
   * One attempt's answer: its status and headers, and the future of its whole response.
   * {@code answered} is what the engine waits for; {@code kept} says who gets the body.
   */
  static final class Head<T> {
    private final BodyHandler<T> handler;
    private final HttpRequest request;
    private final long maxBodyBytes;
    private final boolean bodyTimeoutPerRead;
    /** When the attempt was sent: its whole answer is due the request's timeout after (SPEC T7). */
    private final long sentAt = System.nanoTime();
    /** Completes with this head when the headers arrive, or with the attempt's failure. */
    final CompletableFuture<Head<T>> answered = new CompletableFuture<>();
    /** True: the body is the caller's; false: it is thrown away. */
    private final CompletableFuture<Boolean> kept = new CompletableFuture<>();
    /** The delegate's response, body read; completes after {@code answered}. */
    private final CompletableFuture<HttpResponse<T>> response = new CompletableFuture<>();
    private volatile @Nullable ResponseInfo info;
    private volatile @Nullable CompletableFuture<HttpResponse<T>> sent;
    private volatile boolean cancelled;

    Head(BodyHandler<T> handler, HttpRequest request, long maxBodyBytes, boolean bodyTimeoutPerRead) {
      this.handler = handler;
      this.request = request;
      this.maxBodyBytes = maxBodyBytes;
      this.bodyTimeoutPerRead = bodyTimeoutPerRead;
      // The engine cancels the attempt when the caller cancels the call (SPEC T5).
      answered.whenComplete((head, failure) -> {
        if (failure instanceof CancellationException) {
          cancel();
        }
      });
    }

    ResponseInfo info() {
      ResponseInfo current = info;
      if (current == null) {
        throw new IllegalStateException("the attempt has no answer yet");
      }
      return current;
    }

    /** The JDK's body handler for this attempt: called when the headers arrive. */
    BodySubscriber<T> apply(ResponseInfo answer) {
      info = answer;
      if (!answered.complete(this)) {
        letGo(); // cancelled meanwhile
      }
      Boolean keep = kept.getNow(null);
      if (keep != null) {
        return subscriber(keep, answer);
      }
      return new DeferredSubscriber<>(kept.thenApply(decided -> subscriber(decided, answer)));
    }

    /**
     * The caller's subscriber for a kept head, one that drops the body for a discarded one; both
     * held to the request's timeout, counted from the attempt's sending, and to the cap, so that
     * neither a body the caller reads nor one thrown away holds a connection past them (SPEC T7).
     * Per read, the caller's body is held to the timeout from its headers and from each byte that
     * came; one thrown away keeps the whole answer's bound, as nothing relays it.
     */
    private BodySubscriber<T> subscriber(boolean keep, ResponseInfo answer) {
      BodySubscriber<T> subscriber = keep ? handler.apply(answer) : BodySubscribers.replacing(null);
      Duration timeout = request.timeout().orElse(null);
      if (timeout == null && maxBodyBytes == Long.MAX_VALUE) {
        return subscriber;
      }
      boolean perRead = keep && bodyTimeoutPerRead;
      long remaining = timeout == null ? -1 : perRead ? timeout.toNanos() : timeout.toNanos() - (System.nanoTime() - sentAt);
      return new BoundedSubscriber<>(subscriber, request.method() + " " + shown(request.uri()), timeout, remaining,
          perRead, maxBodyBytes, answer.statusCode(), declaredLength(answer));
    }

    /**
     * The length of the body {@code answer} declares, or -1: none for the answer to a {@code HEAD}
     * or a 1xx, 204 or 304, whose {@code Content-Length} is of a body it does not carry; none for a
     * value that is not a number, as such a body is read as it comes and the count caps it.
     */
    private long declaredLength(ResponseInfo answer) {
      int status = answer.statusCode();
      if (request.method().equals("HEAD") || status / 100 == 1 || status == 204 || status == 304) {
        return -1;
      }
      try {
        return answer.headers().firstValueAsLong("Content-Length").orElse(-1);
      } catch (NumberFormatException e) {
        return -1;
      }
    }

    void attach(CompletableFuture<HttpResponse<T>> delegateResponse) {
      sent = delegateResponse;
      delegateResponse.whenComplete((done, failure) -> {
        if (failure == null) {
          response.complete(done);
          return;
        }
        Throwable cause = Failures.unwrap(failure);
        answered.completeExceptionally(cause); // failed before its headers: the engine hears it
        response.completeExceptionally(cause); // or while its body was read: the caller does
        letGo();
      });
      if (cancelled) {
        delegateResponse.cancel(true);
      }
    }

    /** The call ends with this head: its body goes to the caller's handler. */
    CompletableFuture<HttpResponse<T>> keep() {
      kept.complete(true);
      return response;
    }

    void letGo() {
      kept.complete(false);
    }

    /** Aborts the exchange, whatever it is doing: waiting for headers, or reading the body. */
    void cancel() {
      cancelled = true;
      letGo();
      CompletableFuture<HttpResponse<T>> current = sent;
      if (current != null) {
        current.cancel(true);
      }
    }
  }
}

package io.hostpace.httpclient5;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.UserAgent;
import io.hostpace.timeout.Outcome;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;
import java.util.function.Function;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.ProtocolException;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;
import org.jspecify.annotations.Nullable;

/**
 * Apache HttpClient 5, classic and async, paced by a {@link Hostpace} engine (SPEC I3): an
 * exec-chain handler at the head of the client's chain sends each request through its host's
 * queue, holds the place until the response head, and sends a refused request again through
 * the queue.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder().limit("qlever.dev", "inFlight:1,perSecond:1").build();
 * CloseableHttpClient client = HostpaceHttpClient5.pace(HttpClients.custom(), engine).build();
 * HttpClientContext context = HostpaceHttpClient5.withCallContext(HttpClientContext.create(), batch); // optional
 * try (ClassicHttpResponse response = client.executeOpen(null, new HttpGet("https://qlever.dev/api/..."), context)) { ... }
 * CloseableHttpAsyncClient async = HostpaceHttpClient5.pace(HttpAsyncClients.custom(), engine).build();
 * }</pre>
 *
 * <p>What {@link #pace} does to the builder:
 * <ul>
 * <li>It adds the handler first in the exec chain ({@code addExecInterceptorFirst}, named
 *     {@value #HANDLER_NAME}), above redirects, the client's own retries, compression and the
 *     connection: one attempt is one trip down the rest of the chain, redirects included (paced as
 *     the first host), as in the other adapters.
 * <li>It sets the retry strategy to {@link #leavingRefusalsToHostpace}{@code
 *     (DefaultHttpRequestRetryStrategy.INSTANCE)}: the client keeps retrying idempotent requests on
 *     the I/O failures it retries, but no longer retries 429 and 503 itself (which would sleep on
 *     the thread, unpaced, holding the place). To use a strategy of your own, set it after
 *     {@code pace}, wrapped in {@link #leavingRefusalsToHostpace}.
 * </ul>
 *
 * <p>What the handler does with each call:
 * <ul>
 * <li>Classic: each attempt is {@code chain.proceed} on the calling thread; it returns at the
 *     response head with the entity still to be read, so the place is freed there and the body is
 *     read after, outside the queue (SPEC P2). A refused attempt's entity is consumed and its
 *     response closed before the next. Async: each attempt proceeds with a callback of its own;
 *     the place is freed at {@code handleResponse}; a refused attempt's body is read and dropped,
 *     and the next attempt proceeds once it is over.
 * <li>A request whose entity (classic {@code HttpEntity}, async {@code AsyncEntityProducer}) is
 *     repeatable is sent whole on every attempt; one that is not is sent once, and its refusal
 *     returned (SPEC T4). When retries run out, the last refusal is returned as it is (SPEC T3).
 * <li>The call's {@link CallContext} is the {@code HttpContext} attribute {@value #CALL_CONTEXT}
 *     ({@link #withCallContext}), or else the handler's default.
 * <li>A request without a {@code User-Agent} is sent with the engine's (SPEC U1); the client adds
 *     its own {@code Apache-HttpClient/x} only when none is set.
 * <li>Cancelling the request ({@code HttpUriRequestBase.cancel()}) or the async future takes a
 *     waiting call out of its queue, or frees its place, and the call fails with the client's
 *     {@code RequestFailedException("Request aborted")} (SPEC T5). Every failure of an attempt (a
 *     reset, a {@link java.net.SocketTimeoutException}) reaches the caller as the client raised
 *     it, an {@code HttpException} as an {@code HttpException}, and is never retried (SPEC T6).
 * </ul>
 *
 * <p>The async handler never blocks: a waiting call is a queue entry, started by the engine's timer.
 */
public final class HostpaceHttpClient5 {

  /** The {@code HttpContext} attribute that carries a call's {@link CallContext}. */
  public static final String CALL_CONTEXT = "io.hostpace.call-context";

  /** The handler's name in the exec chain. */
  public static final String HANDLER_NAME = "hostpace";

  private HostpaceHttpClient5() {}

  /** {@code builder}, with the handler first in its chain and the client's own refusal retries off. */
  public static HttpClientBuilder pace(HttpClientBuilder builder, Hostpace engine) {
    return pace(builder, engine, CallContext.DEFAULT);
  }

  /** {@link #pace(HttpClientBuilder, Hostpace)}; a call whose {@code HttpContext} carries no context gets {@code context}. */
  public static HttpClientBuilder pace(HttpClientBuilder builder, Hostpace engine, CallContext context) {
    return builder
        .addExecInterceptorFirst(HANDLER_NAME, classicHandler(engine, context))
        .setRetryStrategy(leavingRefusalsToHostpace(DefaultHttpRequestRetryStrategy.INSTANCE));
  }

  /** {@code builder}, with the async handler first in its chain and the client's own refusal retries off. */
  public static HttpAsyncClientBuilder pace(HttpAsyncClientBuilder builder, Hostpace engine) {
    return pace(builder, engine, CallContext.DEFAULT);
  }

  /** {@link #pace(HttpAsyncClientBuilder, Hostpace)}; a call whose {@code HttpContext} carries no context gets {@code context}. */
  public static HttpAsyncClientBuilder pace(HttpAsyncClientBuilder builder, Hostpace engine, CallContext context) {
    return builder
        .addExecInterceptorFirst(HANDLER_NAME, asyncHandler(engine, context))
        .setRetryStrategy(leavingRefusalsToHostpace(DefaultHttpRequestRetryStrategy.INSTANCE));
  }

  /** The classic handler alone, for a chain you arrange yourself; see the class comment for where it belongs. */
  public static ExecChainHandler classicHandler(Hostpace engine, CallContext context) {
    return new ClassicHandler(Objects.requireNonNull(engine, "engine"), Objects.requireNonNull(context, "context"));
  }

  /** The async handler alone, for a chain you arrange yourself. */
  public static AsyncExecChainHandler asyncHandler(Hostpace engine, CallContext context) {
    return new AsyncHandler(Objects.requireNonNull(engine, "engine"), Objects.requireNonNull(context, "context"));
  }

  /** {@code httpContext}, carrying {@code callContext} for the calls made with it. */
  public static <C extends HttpContext> C withCallContext(C httpContext, CallContext callContext) {
    httpContext.setAttribute(CALL_CONTEXT, Objects.requireNonNull(callContext, "callContext"));
    return httpContext;
  }

  /**
   * {@code strategy}, except that it never retries a response: refusals are retried by the
   * engine, through the host's queue. It still decides, and times, the retries of I/O failures.
   */
  public static HttpRequestRetryStrategy leavingRefusalsToHostpace(HttpRequestRetryStrategy strategy) {
    Objects.requireNonNull(strategy, "strategy");
    return new HttpRequestRetryStrategy() {
      @Override
      public boolean retryRequest(HttpRequest request, IOException exception, int execCount, HttpContext context) {
        return strategy.retryRequest(request, exception, execCount, context);
      }

      @Override
      public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
        return false;
      }

      @Override
      public TimeValue getRetryInterval(HttpRequest request, IOException exception, int execCount, HttpContext context) {
        return strategy.getRetryInterval(request, exception, execCount, context);
      }

      @Override
      public TimeValue getRetryInterval(HttpResponse response, int execCount, HttpContext context) {
        return TimeValue.ZERO_MILLISECONDS;
      }

      @Override
      public String toString() {
        return "leavingRefusalsToHostpace(" + strategy + ")";
      }
    };
  }

  /** The call's context: the {@value #CALL_CONTEXT} attribute, or {@code fallback}. */
  static CallContext callContext(@Nullable HttpContext httpContext, CallContext fallback) {
    Object attribute = httpContext == null ? null : httpContext.getAttribute(CALL_CONTEXT);
    return attribute instanceof CallContext context ? context : fallback;
  }

  /** An attempt's copy of the request, with the engine's User-Agent if it names none (SPEC U1). */
  static void withUserAgent(HttpRequest attempt, Hostpace engine) {
    String added = UserAgent.toAdd(engine, attempt::containsHeader);
    if (added != null) {
      attempt.setHeader(UserAgent.HEADER, added); // the client adds its own only when none is set
    }
  }

  /**
   * What an attempt's failure tells the timeout policy (SPEC D3): HttpClient's connect timeout, an
   * {@code InterruptedIOException} that the default would take for a slow answer, is an endpoint
   * that could not be reached; the JDK's own types are the default's to judge.
   */
  static @Nullable Outcome outcomeOf(Throwable failure, Function<Throwable, @Nullable Outcome> otherwise) {
    return failure instanceof ConnectTimeoutException ? Outcome.UNREACHABLE : otherwise.apply(failure);
  }

  /** The request's absolute URI: its own, or its path on the route's target. */
  static URI uri(HttpRequest request, @Nullable HttpRoute route) throws ProtocolException {
    try {
      URI uri = request.getUri();
      if (uri.isAbsolute() || route == null) {
        return uri;
      }
      HttpHost target = route.getTargetHost();
      return new URI(target.toURI() + request.getRequestUri());
    } catch (URISyntaxException e) {
      throw new ProtocolException("request URI '" + request.getRequestUri() + "' is not a URI: " + e.getMessage(), e);
    }
  }
}

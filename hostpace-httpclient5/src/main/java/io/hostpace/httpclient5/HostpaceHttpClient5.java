package io.hostpace.httpclient5;

import io.hostpace.CallContext;
import io.hostpace.Clock;
import io.hostpace.Hostpace;
import io.hostpace.Timer;
import io.hostpace.internal.UserAgent;
import io.hostpace.internal.AnswerDeadline;
import io.hostpace.timeout.Outcome;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.impl.ChainElement;
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
 * Hostpace engine = Hostpace.builder().addLimit("qlever.dev", "inFlight:1,perSecond:1").build();
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
 * <li>It switches the client's own retries off, with a retry strategy that retries nothing, so
 *     that every request that reaches a server is one the engine started, counted and spaced
 *     (SPEC I7): left on, the default strategy retries a 429 and a 503 itself (sleeping on the
 *     thread, unpaced, holding the place), and sends an idempotent request again at once on the
 *     I/O failures it retries (a reset connection, say). A failed attempt reaches the caller as the
 *     client raised it (SPEC T6), but for one the engine sends again itself, once, paced and
 *     counted: an idempotent request ({@code Method.isIdempotent}: not a POST or a PATCH, which
 *     the client itself never resends) on a connection from the pool that the server had closed,
 *     so that it ends before any byte of the answer. To have the client retry I/O failures anyway, set a strategy of your own after
 *     {@code pace} ({@code setRetryStrategy}, which replaces the one {@code pace} set), wrapped in
 *     {@link #leavingRefusalsToHostpace}: its resends then go within the attempt's place, unspaced.
 *     ({@code disableAutomaticRetries()} would take the retry step out of the chain, and a strategy
 *     set after it would never be asked.)
 * <li>For the classic client, it adds a look at each attempt's connection just before the client's
 *     connect step ({@code addExecInterceptorBefore}, named {@code hostpace-connection}): it takes
 *     the connection from the pool there, as that step would, to know whether it came open, which
 *     tells the engine whether a {@code NoHttpResponseException} was a dead pooled connection. The
 *     async client's failures do not tell this apart, and reach the caller as they are.
 * </ul>
 *
 * <p><b>The whole answer.</b> HttpClient's response timeout ({@code RequestConfig.setResponseTimeout})
 * is a socket timeout, per read: a body that trickles passes every read in time and never ends.
 * The handler bounds the whole answer when the call's {@code HttpContext} carries an answer timeout
 * ({@link #withAnswerTimeout}): each attempt, from its sending to the end of its body, must end
 * within it, or its connection is dropped and the call fails with a {@code SocketTimeoutException}
 * (SPEC T7). Without one, a call waits as long as the server takes. The handler reads no body
 * whole: the caller reads it, and caps it if it wants a cap. A refusal's body that the handler
 * drops is read only up to 64 KiB, and only as long as it keeps coming (below); past that its
 * connection is closed, so that neither a long body nor one that stalls holds the next attempt.
 *
 * <p><b>Timeout budgets.</b> An engine's budget (SPEC D1) ends a classic attempt that gets no
 * answer in time by cancelling that attempt alone (its connection lease, connect or exchange): the
 * call fails with the engine's {@code io.hostpace.AttemptTimeoutException}, an
 * {@code InterruptedIOException}, and, as any timeout, is not retried, by the engine or by a retry
 * strategy of the caller's. The caller's request is not cancelled: it can be executed again, as
 * after the client's own response timeout.
 *
 * <p>What the handler does with each call:
 * <ul>
 * <li>Classic: each attempt is {@code chain.proceed} on the calling thread; it returns at the
 *     response head with the entity still to be read, so the place is freed there and the body is
 *     read after, outside the queue (SPEC P2). A refused attempt's body is read and dropped when
 *     the client already holds all of it (a {@code Content-Length} up to 64 KiB, buffered), which
 *     keeps its connection for the next attempt; any other is not read, its connection is closed,
 *     and the next attempt takes another (the classic client cannot tell without blocking whether
 *     more of a body will come). Async: each attempt proceeds with a callback of its own; the place
 *     is freed at {@code handleResponse}; a refused attempt's body is read and dropped as it comes,
 *     up to 64 KiB, and the next attempt proceeds once it is over; one longer, or not over a second
 *     after the next attempt is due, has its connection closed.
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
 *     it, an {@code HttpException} as an {@code HttpException}, and is not retried by the engine
 *     (SPEC T6), but for the one {@link #pace} names: the classic client's idempotent request on a
 *     pooled connection that died before any byte of the answer, sent once more.
 * </ul>
 *
 * <p>The async handler never blocks: a waiting call is a queue entry, started by the engine's timer.
 */
public final class HostpaceHttpClient5 {

  /** The {@code HttpContext} attribute that carries a call's {@link CallContext}. */
  public static final String CALL_CONTEXT = "io.hostpace.call-context";

  /**
   * The {@code HttpContext} attribute that carries a call's answer timeout, a {@link Duration}
   * ({@link #withAnswerTimeout}).
   */
  public static final String ANSWER_TIMEOUT = "io.hostpace.answer-timeout";

  /**
   * The {@code HttpContext} attribute the async handler sets when an attempt's answer head arrives,
   * and removes when the next attempt goes: {@link #leavingRefusalsToHostpace} resends nothing
   * after it.
   */
  static final String ANSWER_ARRIVED = "io.hostpace.answer-arrived";

  /** The handler's name in the exec chain. */
  public static final String HANDLER_NAME = "hostpace";

  /**
   * The most of a refused attempt's body the handlers read, to drop it and keep its connection for
   * the next attempt. A refusal's body is an error page or a line of JSON, a few KiB at most;
   * reading past this costs more than the new connection the next attempt takes when the refused
   * one is closed instead, and a server that sends more, or never ends, is not waited for.
   */
  static final int DISCARDED_BODY_LIMIT = 64 * 1024;

  /**
   * The strategy {@link #pace} sets: it retries nothing. Set rather than
   * {@code disableAutomaticRetries()}, which leaves the client's retry step out of the chain whatever
   * strategy is set later, so that a strategy the caller sets after {@code pace} takes its place.
   */
  private static final HttpRequestRetryStrategy NO_RETRIES = new HttpRequestRetryStrategy() {
    @Override
    public boolean retryRequest(HttpRequest request, IOException exception, int execCount, HttpContext context) {
      return false;
    }

    @Override
    public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
      return false;
    }

    @Override
    public TimeValue getRetryInterval(HttpResponse response, int execCount, HttpContext context) {
      return TimeValue.ZERO_MILLISECONDS;
    }

    @Override
    public String toString() {
      return "Hostpace's no retries: refusals are the engine's";
    }
  };

  private HostpaceHttpClient5() {}

  /**
   * {@code builder}, with the handler first in its chain and the client's own retries off: its retry
   * strategy is one that retries nothing, which a strategy set after this call replaces.
   */
  public static HttpClientBuilder pace(HttpClientBuilder builder, Hostpace engine) {
    return pace(builder, engine, CallContext.DEFAULT);
  }

  /** {@link #pace(HttpClientBuilder, Hostpace)}; a call whose {@code HttpContext} carries no context gets {@code context}. */
  public static HttpClientBuilder pace(HttpClientBuilder builder, Hostpace engine, CallContext context) {
    return builder
        .addExecInterceptorFirst(HANDLER_NAME, classicHandler(engine, context))
        .addExecInterceptorBefore(ChainElement.CONNECT.name(), ConnectionWatch.NAME, ConnectionWatch.INSTANCE)
        .setRetryStrategy(NO_RETRIES);
  }

  /**
   * {@code builder}, with the async handler first in its chain and the client's own retries off: its
   * retry strategy is one that retries nothing, which a strategy set after this call replaces.
   */
  public static HttpAsyncClientBuilder pace(HttpAsyncClientBuilder builder, Hostpace engine) {
    return pace(builder, engine, CallContext.DEFAULT);
  }

  /** {@link #pace(HttpAsyncClientBuilder, Hostpace)}; a call whose {@code HttpContext} carries no context gets {@code context}. */
  public static HttpAsyncClientBuilder pace(HttpAsyncClientBuilder builder, Hostpace engine, CallContext context) {
    return builder
        .addExecInterceptorFirst(HANDLER_NAME, asyncHandler(engine, context))
        .setRetryStrategy(NO_RETRIES);
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
   * {@code httpContext}, with an answer timeout for the calls made with it (SPEC T7): each attempt's
   * whole answer, from its sending to the end of its body, must come within {@code timeout}, or
   * its connection is dropped and the call fails with a {@link java.net.SocketTimeoutException};
   * classic: the caller's read of the body raises it; async: the callback's {@code failed} hears
   * it. HttpClient's own response timeout is a socket timeout per read, which a body that trickles
   * never passes: this is the bound on the whole answer.
   *
   * @throws IllegalArgumentException when {@code timeout} is zero or negative
   */
  public static <C extends HttpContext> C withAnswerTimeout(C httpContext, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("answer timeout " + timeout + " is not positive: expected a duration above zero");
    }
    httpContext.setAttribute(ANSWER_TIMEOUT, timeout);
    return httpContext;
  }

  /** The call's answer timeout: the {@value #ANSWER_TIMEOUT} attribute, or null for none. */
  static @Nullable Duration answerTimeout(@Nullable HttpContext httpContext) {
    Object attribute = httpContext == null ? null : httpContext.getAttribute(ANSWER_TIMEOUT);
    return attribute instanceof Duration timeout ? timeout : null;
  }

  /**
   * The deadline of an attempt of {@code method} {@code uri} sent now, under the call's answer
   * timeout, that runs {@code expiry} when it passes (SPEC T7); none without a timeout.
   */
  static AnswerDeadline answerDeadline(@Nullable HttpContext httpContext, String method, URI uri, Runnable expiry) {
    Duration timeout = answerTimeout(httpContext);
    if (timeout == null) {
      return AnswerDeadline.none();
    }
    Clock clock = Clock.system();
    return AnswerDeadline.start(shown(method, uri), timeout, clock.nanoTime(), clock, Timer.system(), expiry);
  }

  /**
   * {@code strategy}, except that it never retries a response: refusals are retried by the
   * engine, through the host's queue. It still decides, and times, the retries of I/O failures,
   * which go within their attempt's place in flight but are not spaced by the engine: for a
   * caller who wants them back after {@link #pace} switched them off, as
   * {@code pace(HttpClients.custom(), engine).setRetryStrategy(leavingRefusalsToHostpace(strategy))}.
   * An async attempt that fails once its answer's head has come (a refused body cut short, a kept
   * body broken off) is not sent again, whatever {@code strategy} says: the engine has judged it.
   */
  public static HttpRequestRetryStrategy leavingRefusalsToHostpace(HttpRequestRetryStrategy strategy) {
    Objects.requireNonNull(strategy, "strategy");
    return new HttpRequestRetryStrategy() {
      @Override
      public boolean retryRequest(HttpRequest request, IOException exception, int execCount, HttpContext context) {
        // An async attempt that fails after its answer's head is never sent again here: the engine
        // has judged that answer already, retried it through the queue if it was a refusal, or
        // handed it to the caller, whose body would go on with another answer's.
        return !Boolean.TRUE.equals(context.getAttribute(ANSWER_ARRIVED))
            && strategy.retryRequest(request, exception, execCount, context);
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

  /**
   * {@code method} and {@code uri} as an error message shows them: the URI's scheme, host, port and
   * path, without user information or query, which may hold a password or an API key.
   */
  static String shown(String method, URI uri) {
    String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    return method + " " + uri.getScheme() + "://" + uri.getHost() + port + path;
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

package io.hostpace.spring;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.internal.UserAgent;
import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Outcome;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;

/**
 * A {@link ClientHttpRequestInterceptor} that sends each request of a {@code RestClient} or
 * {@code RestTemplate} through a {@link Hostpace} engine (SPEC I3): the request waits in its
 * host's queue, holds its place until the response headers arrive, and is sent again through the
 * queue when the host refuses it.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder().addLimit("query.wikidata.org", Limits.perSecond(5)).build();
 * RestClient client = RestClient.builder().requestInterceptor(HostpaceRequestInterceptor.of(engine)).build();
 * String json = client.get().uri("https://query.wikidata.org/sparql?query=...")
 *     .attribute(HostpaceRequestInterceptor.CALL_CONTEXT, batch)      // optional: this call's limits, retries, listener
 *     .retrieve().body(String.class);
 * restTemplate.getInterceptors().add(HostpaceRequestInterceptor.of(engine));
 * }</pre>
 *
 * <p>What it does with each request:
 * <ul>
 * <li>Each attempt is {@code execution.execute(request, body)}, on the calling thread (the
 *     engine's {@link Hostpace#send blocking entry}); Spring's interceptor chain may be executed
 *     again from an interceptor, each time through the interceptors after this one and a new
 *     request of the request factory, given a copy of the request's headers (an interceptor after
 *     this one that adds one adds it to that attempt only). The response comes back with its headers and the body still
 *     to be read (unless the client buffers it), so the place is freed there (SPEC P2). A refused
 *     attempt's response is closed before the next.
 * <li>The body is in memory (Spring buffers it for interceptors), so it is sent whole on every
 *     attempt (SPEC T4). When retries run out, the last refusal is returned as it is; a
 *     {@code RestClient}'s {@code retrieve()} then raises Spring's own
 *     {@code HttpClientErrorException.TooManyRequests} or {@code HttpServerErrorException}, with
 *     the refusal's body (SPEC T3).
 * <li>The call's {@link CallContext} is the request attribute {@value #CALL_CONTEXT}: a
 *     {@code RestClient}'s {@code .attribute(...)}, or for a {@code RestTemplate} a
 *     {@code RequestCallback} that puts it in {@code request.getAttributes()}; else the
 *     interceptor's default.
 * <li>A request without a {@code User-Agent} is sent with the engine's (SPEC U1).
 * <li>Failures stay Spring's: an attempt's {@code IOException} reaches the template or client as
 *     it is, which raises its {@code ResourceAccessException}; never retried (SPEC T6).
 *     Interrupting the calling thread cancels the call (SPEC T5): out of its queue, or, in
 *     flight, as the request factory handles an interrupt (the JDK's does); the call then fails
 *     with an {@link InterruptedIOException} and the interrupt is kept.
 * <li>An engine's timeout budget (SPEC D1) cannot end an attempt in progress: an execution cannot
 *     be aborted from another thread, so the request factory's read timeout bounds it. (The
 *     {@code WebClient} filter's attempts are cancelled at their budget.)
 * </ul>
 *
 * <p><b>The whole answer.</b> What a request factory's read timeout bounds differs: the JDK's
 * ({@code JdkClientHttpRequestFactory}) bounds the whole answer, body included, but ends it with a
 * bare {@code IOException("closed")}; the others' ({@code SimpleClientHttpRequestFactory},
 * {@code HttpComponentsClientHttpRequestFactory}, Reactor's) are per read, which a body that
 * trickles never passes. An answer timeout, the request attribute {@value #ANSWER_TIMEOUT} or
 * {@link #withAnswerTimeout} for every request, bounds the body the same way over any factory
 * (SPEC T7): when it has passed since the attempt was sent and the body has not ended, the
 * response is closed, and the caller's read fails with a {@link java.net.SocketTimeoutException}
 * that names the request and the timeout, inside Spring's own exception (a
 * {@code RestClientException} when Spring reads the body, say). It cannot
 * end a wait for the headers: the factory's read timeout (or connect timeout) bounds that, so set
 * it too. Without either, a call waits as long as the server takes. The interceptor reads no body
 * whole: the caller does ({@code body(String.class)}), as far as it chooses.
 *
 * <p><b>Retries behind the engine</b> (SPEC I7). Spring's own retries ({@code RetryTemplate},
 * {@code @Retryable}) wrap the call, so each of their attempts comes through the interceptor and
 * is paced. A request factory's client may retry inside one attempt, unpaced: the JDK's sends a
 * {@code GET} once more when its connection closes before any answer (no setting stops it), and
 * HttpClient 5's default strategy, under {@code HttpComponentsClientHttpRequestFactory}, repeats
 * a 429 and a 503 itself, sleeping on the thread: build that factory's client with
 * {@code disableAutomaticRetries()}.
 *
 * <p>Added twice for one engine (on a builder Spring Boot's starter paced already, say), the
 * second passes each attempt of the first on as it is: a call waiting for a place its own attempt
 * holds would wait for good.
 *
 * <p>Thread-safe and immutable; share one per engine.
 */
public final class HostpaceRequestInterceptor implements ClientHttpRequestInterceptor {

  /** The request attribute that carries a call's {@link CallContext}, for {@code RestClient}, {@code RestTemplate} and {@code WebClient}. */
  public static final String CALL_CONTEXT = "io.hostpace.call-context";

  /**
   * The request attribute that carries a call's answer timeout, a {@link Duration}: each attempt's
   * body must have ended within it, counted from the attempt's sending (SPEC T7). For
   * {@code RestClient} and {@code RestTemplate}; a {@code WebClient}'s whole answer is bounded by
   * its {@code Mono}'s {@code timeout(...)}.
   */
  public static final String ANSWER_TIMEOUT = "io.hostpace.answer-timeout";

  /**
   * The request attribute that names the engine pacing a request, so that an interceptor or filter
   * of the same engine met again in the request's chain passes its attempts on.
   */
  static final String PACED_BY = "io.hostpace.paced-by";

  private final Hostpace engine;
  private final CallContext context;
  private final @Nullable Duration answerTimeout;

  private HostpaceRequestInterceptor(Hostpace engine, CallContext context, @Nullable Duration answerTimeout) {
    this.engine = engine;
    this.context = context;
    this.answerTimeout = answerTimeout;
  }

  /** An interceptor for {@code engine}; a request without the {@value #CALL_CONTEXT} attribute gets the default context. */
  public static HostpaceRequestInterceptor of(Hostpace engine) {
    return of(engine, CallContext.DEFAULT);
  }

  /** An interceptor for {@code engine}; a request without the {@value #CALL_CONTEXT} attribute gets {@code context}. */
  public static HostpaceRequestInterceptor of(Hostpace engine, CallContext context) {
    return new HostpaceRequestInterceptor(Objects.requireNonNull(engine, "engine"), Objects.requireNonNull(context, "context"),
        null);
  }

  /**
   * This interceptor, with an answer timeout for every request that carries no {@value #ANSWER_TIMEOUT}
   * attribute of its own (see the class comment).
   *
   * @throws IllegalArgumentException when {@code timeout} is zero or negative
   */
  public HostpaceRequestInterceptor withAnswerTimeout(Duration timeout) {
    return new HostpaceRequestInterceptor(engine, context, positive(timeout, "answer timeout"));
  }

  private static Duration positive(Duration timeout, String what) {
    Objects.requireNonNull(timeout, what);
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(what + " " + timeout + " is not positive: expected a duration above zero");
    }
    return timeout;
  }

  @Override
  public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
      throws IOException {
    if (request.getAttributes().get(PACED_BY) == engine) {
      return execution.execute(request, body); // an attempt of this engine's call, already paced
    }
    request.getAttributes().put(PACED_BY, engine);
    String userAgent = UserAgent.toAdd(engine, request.getHeaders()::containsHeader); // SPEC U1
    if (userAgent != null) {
      request.getHeaders().set(UserAgent.HEADER, userAgent);
    }
    Object attribute = request.getAttributes().get(CALL_CONTEXT);
    CallContext callContext = attribute instanceof CallContext given ? given : context;
    Object timeout = request.getAttributes().get(ANSWER_TIMEOUT);
    Duration answer = timeout instanceof Duration given ? positive(given, "attribute " + ANSWER_TIMEOUT) : answerTimeout;
    try {
      return engine.send(new Attempts(request, body, execution, answer), callContext);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting in the host's queue");
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  @Override
  public String toString() {
    return "HostpaceRequestInterceptor{context=" + context + (answerTimeout == null ? "" : ", answerTimeout=" + answerTimeout) + "}";
  }

  /** The call's attempts: each one is {@code execution.execute}, on the calling thread. */
  private static final class Attempts implements Exchange<ClientHttpResponse> {
    private final HttpRequest request;
    private final byte[] body;
    private final ClientHttpRequestExecution execution;
    private final @Nullable Duration answerTimeout;

    Attempts(HttpRequest request, byte[] body, ClientHttpRequestExecution execution, @Nullable Duration answerTimeout) {
      this.request = request;
      this.body = body;
      this.execution = execution;
      this.answerTimeout = answerTimeout;
    }

    @Override
    public URI uri() {
      return request.getURI();
    }

    @Override
    public String method() {
      return request.getMethod().name();
    }

    @Override
    public boolean canResend() {
      return true; // the body is a byte array
    }

    @Override
    public CompletableFuture<ClientHttpResponse> send() {
      long sentAt = System.nanoTime();
      try {
        ClientHttpResponse response = execution.execute(withOwnHeaders(request), body);
        return CompletableFuture.completedFuture(
            answerTimeout == null ? response : DeadlineResponse.hold(response, shown(), answerTimeout, sentAt));
      } catch (IOException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    /**
     * {@code request} with a copy of its headers: an interceptor after this one may add to them,
     * and each attempt is sent as the first was.
     */
    private static HttpRequest withOwnHeaders(HttpRequest request) {
      HttpHeaders headers = HttpHeaders.copyOf(request.getHeaders());
      return new HttpRequestWrapper(request) {
        @Override
        public HttpHeaders getHeaders() {
          return headers;
        }
      };
    }

    @Override
    public int status(ClientHttpResponse response) {
      try {
        return response.getStatusCode().value();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e); // the engine fails the call with it, and lets the response go
      }
    }

    @Override
    public @Nullable String header(ClientHttpResponse response, String name) {
      return response.getHeaders().getFirst(name);
    }

    @Override
    public void discard(ClientHttpResponse response) {
      response.close();
    }

    @Override
    public @Nullable Outcome outcomeOf(Throwable failure) {
      return ClientFailures.outcomeOf(failure, Exchange.super::outcomeOf);
    }

    /**
     * The request as an error message shows it: the URI's scheme, host, port and path, without user
     * information or query, which may hold a password or an API key.
     */
    private String shown() {
      URI uri = request.getURI();
      String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
      String path = uri.getRawPath() == null ? "" : uri.getRawPath();
      return request.getMethod() + " " + uri.getScheme() + "://" + uri.getHost() + port + path;
    }

    @Override
    public String toString() {
      return request.getMethod() + " " + request.getURI();
    }
  }
}

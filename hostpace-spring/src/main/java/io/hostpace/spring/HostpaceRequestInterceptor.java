package io.hostpace.spring;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.UserAgent;
import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Outcome;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A {@link ClientHttpRequestInterceptor} that sends each request of a {@code RestClient} or
 * {@code RestTemplate} through a {@link Hostpace} engine (SPEC I3): the request waits in its
 * host's queue, holds its place until the response headers arrive, and is sent again through the
 * queue when the host refuses it.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder().limit("query.wikidata.org", Limits.perSecond(5)).build();
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
 *     request of the request factory. The response comes back with its headers and the body still
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
 * <p>Thread-safe and stateless; share one per engine.
 */
public final class HostpaceRequestInterceptor implements ClientHttpRequestInterceptor {

  /** The request attribute that carries a call's {@link CallContext}, for {@code RestClient}, {@code RestTemplate} and {@code WebClient}. */
  public static final String CALL_CONTEXT = "io.hostpace.call-context";

  private final Hostpace engine;
  private final CallContext context;

  private HostpaceRequestInterceptor(Hostpace engine, CallContext context) {
    this.engine = engine;
    this.context = context;
  }

  /** An interceptor for {@code engine}; a request without the {@value #CALL_CONTEXT} attribute gets the default context. */
  public static HostpaceRequestInterceptor of(Hostpace engine) {
    return of(engine, CallContext.DEFAULT);
  }

  /** An interceptor for {@code engine}; a request without the {@value #CALL_CONTEXT} attribute gets {@code context}. */
  public static HostpaceRequestInterceptor of(Hostpace engine, CallContext context) {
    return new HostpaceRequestInterceptor(Objects.requireNonNull(engine, "engine"), Objects.requireNonNull(context, "context"));
  }

  @Override
  public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
      throws IOException {
    String userAgent = UserAgent.toAdd(engine, request.getHeaders()::containsHeader); // SPEC U1
    if (userAgent != null) {
      request.getHeaders().set(UserAgent.HEADER, userAgent);
    }
    Object attribute = request.getAttributes().get(CALL_CONTEXT);
    CallContext callContext = attribute instanceof CallContext given ? given : context;
    try {
      return engine.send(new Attempts(request, body, execution), callContext);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting in the host's queue");
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  @Override
  public String toString() {
    return "HostpaceRequestInterceptor{context=" + context + "}";
  }

  /** The call's attempts: each one is {@code execution.execute}, on the calling thread. */
  private static final class Attempts implements Exchange<ClientHttpResponse> {
    private final HttpRequest request;
    private final byte[] body;
    private final ClientHttpRequestExecution execution;

    Attempts(HttpRequest request, byte[] body, ClientHttpRequestExecution execution) {
      this.request = request;
      this.body = body;
      this.execution = execution;
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
      try {
        return CompletableFuture.completedFuture(execution.execute(request, body));
      } catch (IOException e) {
        return CompletableFuture.failedFuture(e);
      }
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

    @Override
    public String toString() {
      return request.getMethod() + " " + request.getURI();
    }
  }
}

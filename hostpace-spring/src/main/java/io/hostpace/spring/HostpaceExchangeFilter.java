package io.hostpace.spring;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.internal.UserAgent;
import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Outcome;
import java.net.URI;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * An {@link ExchangeFilterFunction} that sends each request of a {@code WebClient} through a
 * {@link Hostpace} engine (SPEC I3), without ever blocking a thread: a waiting request is an
 * entry in its host's queue, started by the engine's timer.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder().addLimit("qlever.dev", "inFlight:1,perSecond:1").build();
 * WebClient client = WebClient.builder().filter(HostpaceExchangeFilter.of(engine)).build();
 * Mono<String> answer = client.get().uri("https://qlever.dev/api/wikidata?query=...")
 *     .attribute(HostpaceRequestInterceptor.CALL_CONTEXT, batch)      // optional: this call's limits, retries, listener
 *     .retrieve().bodyToMono(String.class);
 * }</pre>
 *
 * <p>What it does with each request:
 * <ul>
 * <li>On subscription, the call goes to {@link Hostpace#execute}; each attempt subscribes to
 *     {@code next.exchange(request)}, and its answer is the {@link ClientResponse}, which comes with
 *     the headers: the place is freed there and the body read after, outside the queue (SPEC P2).
 *     A refused attempt's body is released ({@code releaseBody()}) before the next attempt.
 * <li>Each attempt applies the request's body inserter anew, so a body given as a value
 *     ({@code bodyValue}) or as a cold publisher is sent whole on every attempt. A publisher that
 *     can be subscribed to only once must say so with the request attribute
 *     {@value #ONE_SHOT_BODY} set to {@code true}: it is then sent once, and its refusal returned
 *     (SPEC T4). When retries run out, the last refusal is returned as it is (SPEC T3):
 *     {@code retrieve()} raises Spring's {@code WebClientResponseException} for it, with its body.
 * <li>The call's {@link CallContext} is the request attribute
 *     {@value HostpaceRequestInterceptor#CALL_CONTEXT}, or else the filter's default.
 * <li>A request without a {@code User-Agent} is sent with the engine's (SPEC U1); Reactor Netty
 *     adds its own only when none is set.
 * <li>Cancelling the subscription takes a waiting call out of its queue, or cancels the attempt
 *     in flight and frees its place (SPEC T5). Failures stay Spring's: a
 *     {@code WebClientRequestException} from the exchange reaches the subscriber as it is, never
 *     retried (SPEC T6).
 * </ul>
 *
 * <p><b>The whole answer</b> (SPEC T7) is bounded by the caller's {@code timeout(...)} on the
 * {@code Mono} (or {@code Flux}) that reads the body, Reactor's own deadline: when it passes, it
 * cancels the subscription, which takes the call out of its queue or closes the attempt's
 * connection, and the subscriber gets Reactor's {@code TimeoutException}; the time the call waited
 * in its queue counts. Reactor Netty's {@code responseTimeout} is per read, which a body that
 * trickles never passes. Without a {@code timeout}, a call waits as long as the server takes. The
 * filter reads no body whole but a refusal's, to release it; the caller's decoder reads the rest
 * ({@code maxInMemorySize} caps what Spring's codecs hold, 256 KiB unless configured).
 *
 * <p><b>Retries behind the engine</b> (SPEC I7). A {@code retry()} or {@code retryWhen(...)} on
 * the {@code Mono} subscribes again, through this filter: each of its attempts is paced. Reactor
 * Netty resends nothing the server answered, nor a request whose connection closed after it was
 * sent.
 *
 * <p>Signals reach the subscriber on the thread that completes the call: Reactor Netty's event
 * loop, or the engine's timer thread when a call waited for a pause. Added twice for one engine,
 * the second passes each attempt of the first on as it is. Thread-safe and stateless.
 */
public final class HostpaceExchangeFilter implements ExchangeFilterFunction {

  /** The request attribute that says a request's body publisher can be subscribed to only once ({@code true}). */
  public static final String ONE_SHOT_BODY = "io.hostpace.one-shot-body";

  private final Hostpace engine;
  private final CallContext context;

  private HostpaceExchangeFilter(Hostpace engine, CallContext context) {
    this.engine = engine;
    this.context = context;
  }

  /** A filter for {@code engine}; a request without a context attribute gets the default context. */
  public static HostpaceExchangeFilter of(Hostpace engine) {
    return of(engine, CallContext.DEFAULT);
  }

  /** A filter for {@code engine}; a request without a context attribute gets {@code context}. */
  public static HostpaceExchangeFilter of(Hostpace engine, CallContext context) {
    return new HostpaceExchangeFilter(Objects.requireNonNull(engine, "engine"), Objects.requireNonNull(context, "context"));
  }

  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    if (request.attribute(HostpaceRequestInterceptor.PACED_BY).orElse(null) == engine) {
      return next.exchange(request); // an attempt of this engine's call, already paced
    }
    return Mono.defer(() -> {
      String userAgent = UserAgent.toAdd(engine, request.headers()::containsHeader); // SPEC U1
      ClientRequest.Builder paced = ClientRequest.from(request).attribute(HostpaceRequestInterceptor.PACED_BY, engine);
      ClientRequest sent = (userAgent == null ? paced : paced.header(UserAgent.HEADER, userAgent)).build();
      CallContext callContext = request.attribute(HostpaceRequestInterceptor.CALL_CONTEXT)
          .filter(CallContext.class::isInstance).map(CallContext.class::cast).orElse(context);
      boolean oneShot = request.attribute(ONE_SHOT_BODY).map(Boolean.TRUE::equals).orElse(false);
      // fromFuture cancels the future when the subscription is cancelled: the engine cancels the call.
      return Mono.fromFuture(engine.execute(new Attempts(sent, next, !oneShot), callContext));
    });
  }

  @Override
  public String toString() {
    return "HostpaceExchangeFilter{context=" + context + "}";
  }

  /** The call's attempts: each one subscribes to the rest of the exchange. */
  private static final class Attempts implements Exchange<ClientResponse> {
    private final ClientRequest request;
    private final ExchangeFunction next;
    private final boolean canResend;

    Attempts(ClientRequest request, ExchangeFunction next, boolean canResend) {
      this.request = request;
      this.next = next;
      this.canResend = canResend;
    }

    @Override
    public URI uri() {
      return request.url();
    }

    @Override
    public String method() {
      return request.method().name();
    }

    @Override
    public boolean canResend() {
      return canResend;
    }

    @Override
    public CompletableFuture<ClientResponse> send() {
      CompletableFuture<ClientResponse> attempt = new CompletableFuture<>();
      Disposable subscription = next.exchange(request).subscribe(
          response -> {
            if (!attempt.complete(response)) {
              release(response); // cancelled meanwhile
            }
          },
          attempt::completeExceptionally,
          () -> attempt.completeExceptionally(new IllegalStateException("the exchange of " + this + " ended without a response")));
      // The engine cancels the attempt when the call is cancelled (SPEC T5).
      attempt.whenComplete((response, failure) -> {
        if (failure instanceof CancellationException) {
          subscription.dispose();
        }
      });
      return attempt;
    }

    @Override
    public int status(ClientResponse response) {
      return response.statusCode().value();
    }

    @Override
    public @Nullable String header(ClientResponse response, String name) {
      return response.headers().asHttpHeaders().getFirst(name);
    }

    @Override
    public void discard(ClientResponse response) {
      release(response);
    }

    @Override
    public @Nullable Outcome outcomeOf(Throwable failure) {
      return ClientFailures.outcomeOf(failure, Exchange.super::outcomeOf);
    }

    private static void release(ClientResponse response) {
      response.releaseBody().subscribe(done -> {}, failure -> {});
    }

    @Override
    public String toString() {
      return request.method() + " " + request.url();
    }
  }
}

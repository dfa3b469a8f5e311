package io.hostpace;

import io.hostpace.internal.Failures;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.Probe;
import io.hostpace.timeout.Budget;
import io.hostpace.timeout.Outcome;
import io.hostpace.internal.Prober;
import io.hostpace.timeout.TimeoutPolicy;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Sends the probe the adapter named to an endpoint the timeout policy holds down or degraded
 * (SPEC D6): the engine's {@link Prober.Sender}. It keeps, through the prober, each held endpoint's
 * latest request, and builds the probe from that request's URI and context, never retried. The
 * probe goes through its host's queue as any call does, with its own budget; its answer is told
 * to the prober as an outcome: {@link Outcome#SUCCESS} when the probe counts it healthy.
 *
 * <p>Example: {@code query.example.org} is down after three timeouts; at the end of its cool-down
 * the prober asks for a probe, built here from the host's latest request ({@code /sparql}, kind
 * {@code heavy}) with 0 retries; a 200 that the probe counts healthy is a success, a 200 it does
 * not is {@link Outcome#REJECTED}, a 503 is what the status says.
 */
final class ProbeSender {

  /** What the engine keeps of a held endpoint's latest request, to build its probe from. */
  private record Seen(URI uri, CallContext context) {}

  /** Runs a probe's call through its host's queue, cut off at {@code budget}: the engine's part. */
  interface Caller {
    <R> CompletableFuture<R> call(Exchange<R> exchange, CallContext context, Budget budget);
  }

  private final Probe probe;
  private final String userAgent;
  private final Caller caller;
  private final Prober<Seen> prober;
  private final EventLog log;

  ProbeSender(
      Probe probe, String userAgent, TimeoutPolicy policy, Clock clock, Timer timer, Caller caller, EventLog log) {
    this.probe = probe;
    this.userAgent = userAgent;
    this.caller = caller;
    this.log = log;
    this.prober = new Prober<>(
        policy, clock, timer, this::send, (failure, wentOn) -> log.policyThrew(policy, failure, wentOn));
  }

  /**
   * A request to {@code hostKey} comes: what it waits for before it is queued, outside its queue.
   * Done at once unless the policy holds the endpoint, which then waits for a probe.
   */
  CompletableFuture<@Nullable Void> beforeRequest(String hostKey, URI uri, CallContext context) {
    return prober.beforeRequest(hostKey, context.kind(), new Seen(uri, context));
  }

  /** After the policy was told how an attempt to {@code hostKey} ended: the next probe, if it holds the host. */
  void afterOutcome(String hostKey, URI uri, CallContext context) {
    prober.afterOutcome(hostKey, new Seen(uri, context));
  }

  /** Probes nothing more; a request that waits for a probe out waits for its end ({@link Prober#close}). */
  void close() {
    prober.close();
  }

  /** The probe's calls: the context of the request it stands for, but never retried. */
  private static CallContext probeContext(CallContext seen) {
    return seen.toBuilder().retries(0).build();
  }

  /** Sends the probe of {@code hostKey} through its host's queue, with its own budget (SPEC D6). */
  private CompletableFuture<Outcome> send(String hostKey, Seen seen, Budget budget) {
    Exchange<?> exchange;
    try {
      exchange = probe.exchange(seen.uri(), userAgent);
    } catch (RuntimeException | Error e) {
      log.probeThrew(probe, e, "no probe was sent, and it counted as a server error");
      return CompletableFuture.completedFuture(Outcome.SERVER_ERROR);
    }
    return send(exchange, probeContext(seen.context()), budget);
  }

  private <R> CompletableFuture<Outcome> send(Exchange<R> exchange, CallContext context, Budget budget) {
    return caller.call(exchange, context, budget).handle((response, failure) -> {
      if (failure != null) {
        Throwable cause = Failures.unwrap(failure);
        if (cause instanceof Error) {
          // What the exchange threw failed the probe's call (an assertion in a test's exchange
          // reading the answer), and a probe has no caller to see it: said, as a failed probe.
          log.exchangeThrew(exchange, " in its probe's call", cause, "its probe counted as a server error");
        }
        Outcome outcome = Outcomes.ofFailure(exchange, cause);
        return outcome != null ? outcome : Outcome.SERVER_ERROR;
      }
      int status = exchange.status(response); // read by the call once already, without a throw
      // As for a call's response (SPEC L2): let through, an Error would fail the probe and keep
      // the endpoint held.
      log.discard(exchange, response, "its probe was judged by its status");
      if (probe.healthy(status)) {
        return Outcome.SUCCESS;
      }
      Outcome outcome = status >= 100 && status <= 599 ? Outcome.ofStatus(status) : Outcome.SERVER_ERROR;
      return outcome == Outcome.SUCCESS ? Outcome.REJECTED : outcome;
    });
  }
}

package io.hostpace.timeout;

import io.hostpace.internal.Prober;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Decides the timeout budget of each attempt to an endpoint, and learns from how each attempt
 * ended (SPEC D1 to D8). A state machine fed {@code (now, endpoint, kind, outcome, duration)}, like
 * Netflix concurrency-limits' {@code Limit}: it reads no clock and sends nothing, so the engine
 * and the simulator run the same class and tests feed it literal numbers.
 *
 * <p>Time: {@code now} is the engine's monotonic clock in nanoseconds ({@code Clock#nanoTime()}),
 * from any origin, compared only by difference (so it may wrap); durations are nanoseconds.
 *
 * <p>The engine, per attempt (an adapter that budgets by itself does the same):
 *
 * <pre>{@code
 * Budget budget = policy.budget(clock.nanoTime(), host, kind);
 * if (budget.isFailFast()) throw new EndpointDownException(host, budget.timeout());
 * long sent = clock.nanoTime();
 * Outcome outcome = send(request, budget.timeout());         // Outcome.ofStatus(status), TIMED_OUT, UNREACHABLE
 * policy.onOutcome(clock.nanoTime(), host, kind, outcome, clock.nanoTime() - sent);
 * }</pre>
 *
 * <p>A policy that {@link #probes()} also says when the engine is to send the endpoint a cheap
 * probe of its own ({@link #probe}, {@link #probeIn}) and learns from its answer
 * ({@link #onProbe}): {@link Prober} runs that schedule (SPEC D6).
 *
 * <p>An <em>endpoint</em> is any stable name the caller gives: the host key, or the endpoint's
 * URL; the policy does not parse it. A <em>kind</em> is the caller's tag for a kind of query
 * (a stage or query name); {@link #DEFAULT_KIND} when the caller has none, which makes one kind
 * per endpoint. Implementations are thread-safe, cheap (a lock around some arithmetic), and
 * bounded in memory. An implementation that throws holds no request: the engine logs it at
 * {@code WARNING} and sends an attempt it could not budget without a deadline (SPEC L2).
 */
public interface TimeoutPolicy {

  /** The kind of a request whose caller gave none: one kind per endpoint. */
  String DEFAULT_KIND = "";

  /** What to do with the next attempt of {@code kind} at {@code endpoint}, at {@code now}. */
  Budget budget(long now, String endpoint, String kind);

  /** {@link #budget(long, String, String)} of the {@link #DEFAULT_KIND}. */
  default Budget budget(long now, String endpoint) {
    return budget(now, endpoint, DEFAULT_KIND);
  }

  /**
   * How an attempt that {@link #budget} let go ended.
   *
   * @param now when it ended
   * @param durationNanos how long it took, from sending to its end; for {@link Outcome#TIMED_OUT},
   *     the budget it was given
   */
  void onOutcome(long now, String endpoint, String kind, Outcome outcome, long durationNanos);

  /** {@link #onOutcome(long, String, String, Outcome, long)} of the {@link #DEFAULT_KIND}. */
  default void onOutcome(long now, String endpoint, Outcome outcome, long durationNanos) {
    onOutcome(now, endpoint, DEFAULT_KIND, outcome, durationNanos);
  }

  /**
   * Whether an attempt at {@code endpoint} that ended with {@code outcome} after
   * {@code durationNanos}, already reported to {@link #onOutcome}, reached the server's own limit
   * on a query (SPEC D8): then it is the query's own cost, and the caller does not send that query
   * again, though it would retry another 504. False unless the policy says otherwise.
   */
  default boolean reachedServerLimit(String endpoint, Outcome outcome, long durationNanos) {
    return false;
  }

  /**
   * Whether this policy holds an endpoint's reduced states until a probe succeeds (SPEC D6): then
   * the engine must be given a probe to send, and it never gives a down endpoint a real trial.
   * False unless the policy says otherwise.
   */
  default boolean probes() {
    return false;
  }

  /**
   * Claims the probe of {@code endpoint} if one is due at {@code now}, and returns its budget
   * ({@link Budget#probe}); null when none is due, or one is already out. {@code kind} is the
   * kind of the request that is about to go and waits for the probe, or null when the engine's
   * timer asks ({@link #probeIn} said it was due). A claimed probe is reported to
   * {@link #onProbe}.
   */
  default @Nullable Budget probe(long now, String endpoint, @Nullable String kind) {
    return null;
  }

  /**
   * How long from {@code now} until the engine's timer should ask {@link #probe} for
   * {@code endpoint} (0: now); -1 when the endpoint needs none, being healthy or unknown.
   */
  default long probeIn(long now, String endpoint) {
    return -1;
  }

  /**
   * How a probe that {@link #probe} let go ended: {@link Outcome#SUCCESS} when it was answered in
   * time as the probe counts healthy; any other outcome is a failure.
   *
   * @param durationNanos how long it took; for {@link Outcome#TIMED_OUT}, its budget
   */
  default void onProbe(long now, String endpoint, Outcome outcome, long durationNanos) {}

  /** The same budget for every attempt: what a plain client timeout does. */
  static TimeoutPolicy fixed(Duration budget) {
    return new FixedPolicy(Durations.positive("fixed timeout", budget));
  }

  /**
   * The policy of seed 003, kept as a reference to compare against: per endpoint, healthy
   * ({@code defaultBudget}) or tightened ({@code tightened}); {@code tightenAfterTimeouts}
   * consecutive timeouts (ours, or a 504) tighten it, one success relaxes it; every other outcome
   * is neutral. Kinds are ignored. It is the policy that lost 10 of 20 stages of a healthy
   * endpoint in the seed's run: do not use it for real work.
   */
  static TimeoutPolicy seed(Duration defaultBudget, Duration tightened, int tightenAfterTimeouts) {
    return new SeedPolicy(defaultBudget, tightened, tightenAfterTimeouts);
  }

  /** The adaptive policy with {@link AdaptiveTimeouts#defaults()}. */
  static TimeoutPolicy adaptive() {
    return adaptive(AdaptiveTimeouts.defaults());
  }

  /** The adaptive policy: budgets per endpoint and kind that follow successes, fail fast for dead endpoints, decay. */
  static TimeoutPolicy adaptive(AdaptiveTimeouts config) {
    return new AdaptivePolicy(config);
  }
}

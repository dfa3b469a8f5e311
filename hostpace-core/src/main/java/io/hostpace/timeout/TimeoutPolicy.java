package io.hostpace.timeout;

import java.time.Duration;

/**
 * Decides the timeout budget of each attempt to an endpoint, and learns from how each attempt
 * ended (SPEC D1 to D5). A state machine fed {@code (now, endpoint, kind, outcome, duration)}, like
 * Netflix concurrency-limits' {@code Limit}: it reads no clock and sends nothing, so the engine
 * and the simulator run the same class and tests feed it literal numbers.
 *
 * <p>Time: {@code now} is the engine's monotonic clock in nanoseconds ({@code Clock#nanoTime()}),
 * from any origin, compared only by difference (so it may wrap); durations are nanoseconds.
 *
 * <p>An adapter, per attempt:
 *
 * <pre>{@code
 * Budget budget = policy.budget(clock.nanoTime(), host, kind);
 * if (budget.isProbe()) {                                  // only if configured with a probe
 *   long sent = clock.nanoTime();
 *   Outcome probed = sendProbe(host, budget.timeout());     // e.g. ASK {}
 *   budget = policy.afterProbe(clock.nanoTime(), host, kind, probed, clock.nanoTime() - sent);
 * }
 * if (budget.isFailFast()) throw new ConnectException(host + " is down: " + budget);
 * long sent = clock.nanoTime();
 * Outcome outcome = send(request, budget.timeout());         // Outcome.ofStatus(status), TIMED_OUT, UNREACHABLE
 * policy.onOutcome(clock.nanoTime(), host, kind, outcome, clock.nanoTime() - sent);
 * }</pre>
 *
 * <p>An <em>endpoint</em> is any stable name the caller gives: the host key, or the endpoint's
 * URL; the policy does not parse it. A <em>kind</em> is the caller's tag for a kind of query
 * (a stage or query name); {@link #DEFAULT_KIND} when the caller has none, which makes one kind
 * per endpoint. Implementations are thread-safe, cheap (a lock around some arithmetic), and
 * bounded in memory.
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
   * How the probe that {@link #budget} asked for ended; returns the decision for the attempt that
   * asked, which is never another probe.
   *
   * @param durationNanos how long the probe took; for {@link Outcome#TIMED_OUT}, its budget
   */
  default Budget afterProbe(long now, String endpoint, String kind, Outcome outcome, long durationNanos) {
    Budget budget = budget(now, endpoint, kind);
    return budget.isProbe() ? Budget.failFast(0) : budget;
  }

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

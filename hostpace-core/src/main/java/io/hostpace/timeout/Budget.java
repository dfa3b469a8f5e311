package io.hostpace.timeout;

import java.time.Duration;

/**
 * What a {@link TimeoutPolicy} decided for one attempt: send it with a timeout, or fail it at
 * once; or the budget of the engine's probe of an endpoint.
 *
 * @param action what the caller does now
 * @param nanos for {@link Action#SEND}, the attempt's timeout (until the answer's headers); for
 *     {@link Action#PROBE}, the probe's timeout; for {@link Action#FAIL_FAST}, how long until the
 *     endpoint is tried again (0 when it is tried at the next ask)
 * @param basis why: what the budget was derived from, for logs and traces
 */
public record Budget(Action action, long nanos, Basis basis) {

  /** What the caller does with the attempt. */
  public enum Action {
    /** Send the attempt, cut off after {@link Budget#timeout()}. */
    SEND,
    /**
     * The budget of the engine's own probe of a held endpoint ({@link TimeoutPolicy#probe}), cut
     * off after {@link Budget#timeout()}; never what {@link TimeoutPolicy#budget} answers.
     */
    PROBE,
    /** Do not send: fail the attempt now, as unreachable. The caller should not retry it. */
    FAIL_FAST
  }

  /** What a budget was derived from. */
  public enum Basis {
    /** The full (default) budget: nothing learned of the kind, or it needs more than it showed. */
    DEFAULT,
    /** The kind's recent successes times the margin, between the floor and the default budget. */
    LEARNED,
    /** The endpoint is degraded and the kind showed nothing: the reduced budget. */
    DEGRADED,
    /** The endpoint is degraded, and its decay is due: the full budget is tried again. */
    DECAY,
    /** The endpoint is down, and its cool-down has passed: this attempt is the trial. */
    TRIAL,
    /** The engine's probe, to tell a down or busy endpoint from a healthy one (SPEC D6). */
    PROBE,
    /** The endpoint is down: fail fast. */
    DOWN
  }

  public Budget {
    if (nanos < 0) {
      throw new IllegalArgumentException("budget of " + nanos + " ns: expected 0 or more");
    }
  }

  /** Send the attempt, cut off after {@code nanos}. */
  public static Budget send(long nanos, Basis basis) {
    return new Budget(Action.SEND, nanos, basis);
  }

  /** The engine's probe, cut off after {@code nanos}. */
  public static Budget probe(long nanos) {
    return new Budget(Action.PROBE, nanos, Basis.PROBE);
  }

  /** Fail the attempt now; the endpoint is tried again in {@code retryInNanos} (0 or less: at the next ask). */
  public static Budget failFast(long retryInNanos) {
    return new Budget(Action.FAIL_FAST, Math.max(0, retryInNanos), Basis.DOWN);
  }

  /** {@link #nanos()} as a duration: the timeout of the attempt or probe, or the wait until the next trial. */
  public Duration timeout() {
    return Duration.ofNanos(nanos);
  }

  /** Whether to send the attempt. */
  public boolean isSend() {
    return action == Action.SEND;
  }

  /** Whether this is the budget of a probe. */
  public boolean isProbe() {
    return action == Action.PROBE;
  }

  /** Whether to fail the attempt now without sending it. */
  public boolean isFailFast() {
    return action == Action.FAIL_FAST;
  }

  /** {@code send 300 s (default)}, {@code probe 2 s}, {@code fail fast (down; next trial in 1.5 s)}. */
  @Override
  public String toString() {
    return switch (action) {
      case SEND -> "send " + Durations.format(nanos) + " (" + basis.name().toLowerCase(java.util.Locale.ROOT) + ")";
      case PROBE -> "probe " + Durations.format(nanos);
      case FAIL_FAST -> "fail fast (down; next trial in " + Durations.format(nanos) + ")";
    };
  }
}

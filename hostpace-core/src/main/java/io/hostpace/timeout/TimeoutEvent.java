package io.hostpace.timeout;

/**
 * A change of an endpoint's state in an adaptive policy, for a listener (logs, metrics, the
 * command line's progress lines). Built only when a listener is installed.
 *
 * @param at the policy's time of the change (the engine's clock, nanoseconds)
 * @param endpoint the endpoint, as the caller names it
 * @param type what changed
 * @param nanos for {@link Type#DOWN}, the cool-down before the next trial; otherwise 0
 */
public record TimeoutEvent(long at, String endpoint, Type type, long nanos) {

  /** What changed. */
  public enum Type {
    /** Unreachable too often in a row, or a trial failed: requests fail fast for a cool-down. */
    DOWN,
    /** The endpoint answered again: requests are sent again. */
    UP,
    /** Different kinds were slow at the full budget with no success between: new kinds get the reduced budget. */
    DEGRADED,
    /** A success (or a quick probe) ended the degraded state. */
    RECOVERED
  }

  @Override
  public String toString() {
    return endpoint + " " + type.name().toLowerCase(java.util.Locale.ROOT)
        + (type == Type.DOWN ? " for " + Durations.format(nanos) : "");
  }
}

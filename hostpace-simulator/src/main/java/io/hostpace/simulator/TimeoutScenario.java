package io.hostpace.simulator;

import io.hostpace.timeout.TimeoutPolicy;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A timeout scenario, parsed and checked ({@link TimeoutScenarioParser}); all times in nanoseconds.
 * Outages and overloads are resolved onto the stages they cover.
 *
 * @param serverLimit the server answers 504 when a query's run reaches it; null for no limit
 * @param abortedSlowdown each query we aborted and that still runs slows new ones by this
 * @param maxSlowdown the most that slowdown reaches
 * @param retries retries of a 502, 503, 504 or network failure
 * @param backoff the wait before each retry; the last repeats, none is 0
 * @param probeIdle how long the cheap probe query takes on an idle server
 */
record TimeoutScenario(
    @Nullable Long serverLimit,
    double abortedSlowdown,
    double maxSlowdown,
    int retries,
    List<Long> backoff,
    long probeIdle,
    List<Stage> stages,
    List<PolicySpec> policies) {

  /** How a request fails without an answer. */
  enum Failure {
    REFUSED, RESET, DNS, TLS;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One stage: its requests run one after another.
   *
   * @param outage while it runs the endpoint is down: every attempt and probe fails so; or null
   * @param overload the factor on every query's idle time while it runs (1 when not overloaded)
   */
  record Stage(String name, String tag, List<Request> requests, @Nullable Fail outage, double overload) {}

  /** What a request does on the server. */
  sealed interface Request permits Idle, Hang, Fail {}

  /** Answered after {@code nanos} on an idle server. */
  record Idle(long nanos) implements Request {}

  /** Never answered. */
  record Hang() implements Request {}

  /** Fails with {@code failure} after {@code after}. */
  record Fail(Failure failure, long after) implements Request {}

  /** A named policy; each replay gets a fresh one. */
  record PolicySpec(String name, Supplier<TimeoutPolicy> policy) {}
}

package io.hostpace.simulator;

import io.hostpace.Limits;
import io.hostpace.testing.RefusingServer.Step;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A pacing scenario, parsed and checked ({@link PacingScenarioParser}; the format is in
 * {@code scenarios/pacing/README.md}). Times in nanoseconds from the run's start.
 *
 * @param seed all randomness (the arrival times of {@code {"perSecond": ...}}) comes from it
 * @param maxNanos how long a replay may run; what is not done by then is lost
 * @param runs how many times each policy runs the workload, each run's engines starting from what
 *     the last run's taught them (SPEC S1, {@code HostStateFile}); the figures are the last run's
 */
record PacingScenario(long seed, long maxNanos, int runs, List<ServerSpec> servers, List<ClientSpec> clients,
    List<PacingPolicy> policies) {

  enum Model { TOKEN_BUCKET, FIXED_WINDOW, GATE }

  enum RetryAfter { NONE, SECONDS, DATE, UNTIL_FREE }

  /**
   * A server model. {@code rate}/{@code burst} are the token bucket's, {@code limit}/{@code window}
   * the fixed window's, {@code maxConcurrent} the gate's; the others are unused by that model.
   * {@code announces}: every answer carries the quota left ({@code RateLimit}, SPEC R8);
   * {@code changes}: from each one's time on, the fields given replace the server's
   * ({@code places} is the gate's {@code maxConcurrent}).
   *
   * @param latency an attempt's round trip in nanoseconds, without jitter
   * @param latencyJitter the most, in nanoseconds, that an attempt's trip to the server may add to
   *     the half of {@code latency} it takes; 0 for none: then the server decides as the attempt
   *     starts ({@link ServerModel})
   */
  record ServerSpec(
      String host, Model model, double rate, int burst, int limit, long window, long windowsFrom, int maxConcurrent,
      int status, RetryAfter retryAfter, long latency, long latencyJitter, boolean refusalsCount, boolean announces,
      List<Step> changes) {}

  /**
   * A client of one host.
   *
   * @param perSecond the mean arrival rate (Poisson arrivals from the seed); 0 for a burst at 0 s
   * @param processes engines that share the requests (split as evenly as they go) and the server
   * @param sharedState whether the processes' engines share one state per host (a model of SPEC
   *     S2, which shares it through Redis, without Redis's latency), or each learns on its own
   * @param fleetLatency with a fleet, the one-way latency of its messages in nanoseconds: the
   *     processes' engines share what hosts teach through a {@code LocalFleet} (SPEC S2 as the
   *     engine does it, with a Redis's latency); -1 for none
   * @param joins when each process joins, in nanoseconds from the run's start, one a process: its
   *     engine is built then (and so joins the fleet then), and its requests arrive that much later
   *     than they would at 0 s
   * @param limits what the client's user gave the engine for the host, which need not be what the
   *     server allows; null for nothing
   */
  record ClientSpec(String host, int requests, double perSecond, int inFlight, int processes, boolean sharedState,
      long fleetLatency, List<Long> joins, @Nullable Limits limits) {

    ClientSpec {
      joins = List.copyOf(joins);
      if (joins.size() != processes) {
        throw new IllegalArgumentException("expected a join time for each of " + processes + " processes, got " + joins.size());
      }
    }

    /** When process {@code p} joins, in nanoseconds from the run's start. */
    long joinOf(int p) {
      return joins.get(p);
    }
  }
}

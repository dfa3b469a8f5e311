package io.hostpace.simulator;

import io.hostpace.simulator.TimeoutScenario.PolicySpec;
import io.hostpace.timeout.Budget;
import io.hostpace.internal.Prober;
import java.util.ArrayList;
import java.util.List;

/**
 * The timeout workload of the {@link Simulator}: a timeout scenario replayed in virtual time
 * against each policy it names ({@link TimeoutReplay}), reporting what each lost and how long it
 * took ({@code hostpace simulate timeouts SCENARIO.json}).
 *
 * <h2>The caller</h2>
 * A pipeline's: its stages run one after another, and a stage's requests one after another. Before
 * each attempt it asks the policy for a {@link Budget}. A policy that probes is run as the engine
 * runs it (SPEC D6), by the engine's own {@link Prober}: it probes a held endpoint on its timer, in
 * virtual time, and an attempt for a held endpoint first waits for a probe; every probe sent during
 * a stage is counted in its {@code probes}. An attempt answered 502, 503 or 504, or failed by
 * the network (refused, reset, DNS, TLS), is retried after the scenario's {@code retryBackoffMs},
 * up to {@code retries} times, except a 504 the policy says reached the server's own limit (SPEC D8,
 * as the engine does: the server has said it will not answer that query within its limit); an
 * attempt cut off by our own timeout is never retried; an attempt
 * the policy fails fast is not retried either (the policy has just said the endpoint is down:
 * waiting out a back-off against a dead endpoint is what fast-failing saves). A request that
 * finally fails loses its stage, and the stage's later requests are not sent. The policy is told
 * every outcome at the virtual time it happens, with the endpoint {@value #ENDPOINT} and the
 * stage's tag as the kind.
 *
 * <p>The server is {@link Server}'s model. Each policy gets a fresh server, a fresh policy and a
 * fresh clock; the clock's origin only shifts the numbers the policy sees, never the result
 * (the tests replay with random origins to hold that).
 */
final class TimeoutWorkload implements Workload<TimeoutScenario, TimeoutResult> {

  /** The name of the scenario's one endpoint, as the policies see it. */
  static final String ENDPOINT = "endpoint";

  @Override
  public TimeoutScenario parse(String json) {
    return TimeoutScenarioParser.parse(json);
  }

  @Override
  public TimeoutResult replay(TimeoutScenario scenario, long origin) {
    List<TimeoutResult.Policy> results = new ArrayList<>();
    for (PolicySpec spec : scenario.policies()) {
      results.add(new TimeoutReplay(scenario, spec, origin).run());
    }
    return new TimeoutResult(results);
  }

  /** Nanoseconds as whole milliseconds, rounded. */
  static long ms(long nanos) {
    return Math.round(nanos / 1e6);
  }
}

package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server whose latency varies ({@code latencyJitterMs}): each attempt is decided as it reaches the
 * server, half the latency and a draw of the jitter after its start, so that attempts started a
 * second apart may arrive closer together, or in another order; the draws come from the seed.
 */
class PacingJitterTest {

  /** One token bucket of one a second, burst 1, with {@code jitterMs}; 60 requests at once, 4 in flight. */
  static String oneASecond(String jitterMs, String policies) {
    return """
        { "servers": [ { "host": "q.test", "model": "token-bucket", "rate": 1.0, "burst": 1,
                         "latencyMs": 50, "latencyJitterMs": %s } ],
          "clients": [ { "host": "q.test", "requests": 60, "inFlight": 4 } ],
          "policies": %s }
        """.formatted(jitterMs, policies);
  }

  @Test
  void aReplayWithJitterIsTheSameEachTime() {
    String scenario = oneASecond("300", "[\"seed\", \"hostpace\", \"configured\", \"unpaced\"]");

    PacingResult first = Simulator.PACING.simulate(scenario);
    PacingResult second = Simulator.PACING.simulate(scenario);

    assertThat(second.toJson()).isEqualTo(first.toJson());
    for (int i = 0; i < first.policies().size(); i++) {
      assertThat(second.policies().get(i).starts()).as(first.policies().get(i).name())
          .containsExactly(first.policies().get(i).starts());
      assertThat(second.policies().get(i).refused()).as(first.policies().get(i).name())
          .containsExactly(first.policies().get(i).refused());
    }
  }

  @Test
  void withJitterAnAttemptStartedLaterCanBeDecidedFirstAndTheServerStillSeesTimeInOrder() {
    // 50 requests arriving at 10 a second (0.1 s apart on average), each started as it arrives by
    // plain client code to a gate that refuses nothing; their trips there vary by up to 1 s.
    PacingScenario scenario = PacingScenarioParser.parse("""
        { "servers": [ { "host": "q.test", "model": "gate", "maxConcurrent": 1000,
                         "latencyMs": 50, "latencyJitterMs": 1000 } ],
          "clients": [ { "host": "q.test", "requests": 50, "arrival": { "perSecond": 10 }, "inFlight": 50 } ],
          "policies": [ "unpaced" ] }
        """);
    PacingReplay replay = new PacingReplay(scenario, new Arrivals(scenario, Simulator.WALL_ORIGIN),
        scenario.policies().get(0), Simulator.ORIGIN, 0, null);

    PacingResult.Policy unpaced = replay.run();

    List<Long> startsAsDecided = replay.startsAsDecided();
    List<Long> inStartOrder = new ArrayList<>(startsAsDecided);
    Collections.sort(inStartOrder);
    assertThat(unpaced.refusals()).isZero();
    assertThat(startsAsDecided).hasSize(50);
    assertThat(startsAsDecided).as("the starts, as the server decided them").isNotEqualTo(inStartOrder);
    // the figures count each attempt as it is decided: in time order, each a trip after some start
    assertThat(unpaced.starts()).isSorted();
    assertThat(unpaced.starts()[0]).isGreaterThanOrEqualTo(inStartOrder.get(0) / 1e9 + 0.025);
  }

  @Test
  void jitterCostsRefusalsToAnEngineToldTheHostsRateExactly() {
    // Told one a second, the engine starts one a second; the bucket holds one token, so a start
    // that reaches it less than a second after the last is refused. Without jitter none does.
    PacingResult.Policy steady = Simulator.PACING.simulate(oneASecond("0", "[\"configured\"]")).policy("configured");
    PacingResult.Policy jittered = Simulator.PACING.simulate(oneASecond("30", "[\"configured\"]")).policy("configured");

    assertThat(steady.refusals()).isZero();
    assertThat(steady.completed()).isEqualTo(60);
    assertThat(jittered.refusals()).isPositive();
    assertThat(jittered.completed()).isEqualTo(60);
  }
}

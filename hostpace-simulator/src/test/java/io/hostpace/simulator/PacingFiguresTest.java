package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * The figures of a replay where its edges meet: a run done at 0 s, requests that arrive after
 * {@code maxSeconds}, processes of several hosts.
 */
class PacingFiguresTest {

  @Test
  void aRunThatCompletesEveryRequestAtZeroSecondsHasAGoodputOfOne() {
    PacingResult.Policy unpaced = Simulator.PACING.simulate("{"
        + "\"servers\":[{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1.0,\"burst\":10,\"latencyMs\":0}],"
        + "\"clients\":[{\"host\":\"q.test\",\"requests\":5}],\"policies\":[\"unpaced\"]}").policy("unpaced");
    assertThat(unpaced.completed()).isEqualTo(5);
    assertThat(unpaced.finishSeconds()).isZero();
    assertThat(unpaced.goodputRatio()).isEqualTo(1.0);
  }

  @Test
  void requestsThatArriveAfterMaxSecondsAreLostUnsentAndNotInTheWaits() throws Exception {
    // 300 requests at one a second arrive over about 300 s; the run ends at 100 s
    PacingResult result = Simulator.PACING.simulate("{\"seed\":1,\"maxSeconds\":100,"
        + "\"servers\":[{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1.0}],"
        + "\"clients\":[{\"host\":\"q.test\",\"requests\":300,\"arrival\":{\"perSecond\":1.0}}],"
        + "\"policies\":[\"hostpace\",\"unpaced\"]}");
    for (PacingResult.Policy policy : result.policies()) {
      assertThat(policy.unsent()).as(policy.name()).isBetween(150, 250);
      assertThat(policy.lost()).as(policy.name()).isGreaterThanOrEqualTo(policy.unsent());
      assertThat(policy.p50WaitMs()).as(policy.name()).isBetween(0L, 100_000L);
      assertThat(policy.p99WaitMs()).as(policy.name()).isBetween(policy.p50WaitMs(), 100_000L);
    }
    JsonNode hostpace = ScenarioJson.MAPPER.readTree(result.toJson()).get("policies").get(0);
    assertThat(hostpace.get("unsent").asInt()).isEqualTo(result.policy("hostpace").unsent());
    assertThat(result.toTable()).contains(result.policy("hostpace").unsent()
        + " requests arrived after maxSeconds and were never sent: lost, and not in the waits");
  }

  @Test
  void aReplayWhoseRequestsAllArriveInTimeHasNoUnsentInItsJson() {
    String json = Simulator.PACING.simulate("{"
        + "\"servers\":[{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1.0}],"
        + "\"clients\":[{\"host\":\"q.test\",\"requests\":5}],\"policies\":[\"hostpace\"]}").toJson();
    assertThat(json).doesNotContain("unsent");
  }

  @Test
  void processesOfDifferentHostsHaveNoSharesOfOneHost() {
    // one process on a host of one a second, one on a host of ten: each had its host to itself
    PacingResult.Policy configured = Simulator.PACING.simulate("{"
        + "\"servers\":[{\"host\":\"a.test\",\"model\":\"token-bucket\",\"rate\":1.0},"
        + "{\"host\":\"b.test\",\"model\":\"token-bucket\",\"rate\":10.0}],"
        + "\"clients\":[{\"host\":\"a.test\",\"requests\":100},{\"host\":\"b.test\",\"requests\":1000}],"
        + "\"policies\":[\"configured\"]}").policy("configured");
    assertThat(configured.processes()).hasSize(2);
    assertThat(configured.sharesJain()).isNull();
    assertThat(configured.togetherOfRate()).isNull();
  }

  @Test
  void twoClientsOfOneHostStillHaveTheirShares() {
    PacingResult.Policy hostpace = Simulator.PACING.simulate("{"
        + "\"servers\":[{\"host\":\"a.test\",\"model\":\"token-bucket\",\"rate\":2.0}],"
        + "\"clients\":[{\"host\":\"a.test\",\"requests\":100},{\"host\":\"a.test\",\"requests\":100}],"
        + "\"policies\":[\"hostpace\"]}").policy("hostpace");
    assertThat(hostpace.sharesJain()).isNotNull();
  }
}

package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The figures of a replay where its edges meet: a run done at 0 s. */
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
}

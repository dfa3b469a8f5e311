package io.hostpace.simulator;

import io.hostpace.Hostpace;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.spi.LearningRule;

/** {@code seed}: the engine with {@link LearningRule#seed()}, SPEC R4 exactly. */
final class SeedRulePacing implements PacingPolicy {

  @Override
  public String name() {
    return "seed";
  }

  @Override
  public void configure(Hostpace.Builder engine, ServerSpec server, ClientSpec client, boolean fleet) {
    engine.learningRule(LearningRule.seed());
  }
}

package io.hostpace.simulator;

import io.hostpace.spi.LearningRule;
import java.util.List;

/** The pacing policies a scenario may name, in the order error messages list them. */
final class PacingPolicies {

  static final Registry<PacingPolicy> ALL = Registry.of(List.of(
      new EnginePacing("seed", engine -> engine.learningRule(LearningRule.seed())),
      new EnginePacing("hostpace", engine -> {}),
      new EnginePacing("burst", engine -> engine.widenFirstContact(false)),
      new ConfiguredPacing(),
      new UnpacedPacing()), PacingPolicy::name);

  private PacingPolicies() {}
}

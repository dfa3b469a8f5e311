package io.hostpace.simulator;

import java.util.List;

/** The pacing policies a scenario may name, in the order error messages list them. */
final class PacingPolicies {

  static final Registry<PacingPolicy> ALL = Registry.of(List.of(
      new SeedRulePacing(),
      new DefaultRulePacing("hostpace", true),
      new DefaultRulePacing("burst", false),
      new ConfiguredPacing(),
      new UnpacedPacing()), PacingPolicy::name);

  private PacingPolicies() {}
}

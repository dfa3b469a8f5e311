package io.hostpace.rules;

import io.hostpace.spi.LearningRule;

/**
 * The learning rules that ship with Hostpace, for {@link LearningRule#seed()} and
 * {@link LearningRule#hostpace()}, which are where users and adapters name them. The package is not
 * exported: the rules' classes are package-private, so their state and constants can change
 * without breaking anybody.
 */
public final class LearningRules {

  private LearningRules() {}

  /** The seed's rule (SPEC R4). */
  public static LearningRule seed() {
    return SeedRule.INSTANCE;
  }

  /** The engine's default rule. */
  public static LearningRule hostpace() {
    return HostpaceRule.INSTANCE;
  }
}

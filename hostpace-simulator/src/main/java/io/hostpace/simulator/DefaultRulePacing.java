package io.hostpace.simulator;

import io.hostpace.Hostpace;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;

/**
 * The engine as built by default ({@code hostpace}), or the same without widening the first
 * contact ({@code burst}: its opening sends what it may at once, as the rule allows).
 */
final class DefaultRulePacing implements PacingPolicy {

  private final String name;
  private final boolean widenFirstContact;

  DefaultRulePacing(String name, boolean widenFirstContact) {
    this.name = name;
    this.widenFirstContact = widenFirstContact;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void configure(Hostpace.Builder engine, ServerSpec server, ClientSpec client, boolean fleet) {
    if (!widenFirstContact) {
      engine.widenFirstContact(false);
    }
  }
}

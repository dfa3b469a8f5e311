package io.hostpace.simulator;

import io.hostpace.Hostpace;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import java.util.function.Consumer;

/**
 * A policy that is the engine with one setting, whatever the server and the client: {@code seed}
 * the {@link io.hostpace.spi.LearningRule#seed()} rule, {@code hostpace} the engine as built by
 * default, {@code burst} the same without widening its first contact (its opening sends what it
 * may at once, as the rule allows). Each also gives the host the client's own {@code limits}, when
 * the scenario gives some: what its user guessed, not what the server allows.
 */
record EnginePacing(String name, Consumer<Hostpace.Builder> setting) implements PacingPolicy {

  @Override
  public void configure(Hostpace.Builder engine, ServerSpec server, ClientSpec client, boolean fleet) {
    setting.accept(engine);
    if (client.limits() != null) {
      engine.addLimit(server.host(), client.limits());
    }
  }
}

package io.hostpace.simulator;

import io.hostpace.Hostpace;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;

/**
 * A pacing policy: how each process of a client sends its requests in a pacing replay
 * ({@link PacingReplay}). Most build the real engine, each its own way; one sends without an
 * engine, as plain client code does. A new policy is a class of this and its entry in
 * {@link PacingPolicies}.
 */
interface PacingPolicy {

  /** Its name in a scenario's {@code policies} and in the results. */
  String name();

  /** Whether its requests go through an engine; false for plain client code, which has none. */
  default boolean usesEngine() {
    return true;
  }

  /**
   * Sets up the engine of one process of {@code client}, which calls {@code server}; {@code fleet}
   * when the client's processes form one. The builder has the clock, the client's in-flight
   * limit, the state store and the fleet already.
   */
  default void configure(Hostpace.Builder engine, ServerSpec server, ClientSpec client, boolean fleet) {}

  /**
   * As the scenario is read: whether it can {@link #configure} the engines of {@code client}'s
   * processes for {@code server}, whose path in the scenario is {@code serverPath}; a
   * {@link ScenarioException} naming the server's field it cannot.
   */
  default void check(ServerSpec server, ClientSpec client, boolean fleet, String serverPath) {}
}

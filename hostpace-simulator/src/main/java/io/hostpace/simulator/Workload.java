package io.hostpace.simulator;

/**
 * A kind of workload the {@link Simulator} replays: how its scenario reads ({@code S}), and how
 * the scenario's policies replay it into a result ({@code R}). Pacing ({@link PacingWorkload}):
 * clients of servers that limit them; timeouts ({@link TimeoutWorkload}): a pipeline's stages
 * against one slow or failing endpoint.
 */
interface Workload<S, R extends SimulationResult> {

  /**
   * The scenario in {@code json}, checked.
   *
   * @throws ScenarioException when it does not parse or makes no sense; its message names the field
   */
  S parse(String json);

  /**
   * Replays {@code scenario} against each policy it names, in virtual time whose clock reads
   * {@code origin} at the start; the origin never changes the result.
   */
  R replay(S scenario, long origin);

  /** {@link #replay} of the scenario in {@code json}. */
  default R simulate(String json, long origin) {
    return replay(parse(json), origin);
  }
}

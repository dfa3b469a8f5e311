package io.hostpace.simulator;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.List;

/**
 * What a timeout scenario did under each of its policies, in the order the scenario names them:
 * the output of {@code hostpace simulate timeouts}, a value Jackson serialises as
 *
 * <pre>{@code
 * {"policies":[{"name":"seed","lost":["datatypes",...],"totalMs":1798000,
 *   "stages":[{"name":"subjects","outcome":"ok","attempts":1,"budgetsMs":[300000],"startMs":0,"endMs":95000},...]}]}
 * }</pre>
 *
 * @param policies one per policy of the scenario
 */
@JsonPropertyOrder({"policies"})
public record TimeoutResult(List<Policy> policies) implements SimulationResult {

  public TimeoutResult {
    policies = List.copyOf(policies);
  }

  /**
   * One policy's replay of the scenario.
   *
   * @param name the policy's name in the scenario
   * @param lost the stages lost, in order
   * @param totalMs virtual time from the first stage's start to the last one's end
   * @param stages every stage, in order
   */
  @JsonPropertyOrder({"name", "lost", "totalMs", "stages"})
  public record Policy(String name, List<String> lost, long totalMs, List<Stage> stages) {
    public Policy {
      lost = List.copyOf(lost);
      stages = List.copyOf(stages);
    }

    /** The stage of that name. */
    public Stage stage(String stageName) {
      return stages.stream().filter(s -> s.name().equals(stageName)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no stage is named \"" + stageName + "\""));
    }
  }

  /**
   * One stage under one policy.
   *
   * @param name the stage's name
   * @param outcome {@code ok}, or why it was lost: {@code timeout} (our own, never retried),
   *     {@code 504} (the server's limit, on the last retry), {@code refused}, {@code reset},
   *     {@code dns}, {@code tls} (on the last retry), {@code fast-fail} (the policy failed it unsent)
   * @param attempts attempts of its requests, failed-fast ones included
   * @param budgetsMs the budget of each attempt; 0 for one failed fast
   * @param startMs when it started, from the scenario's start
   * @param endMs when it ended
   * @param probes probes the engine's prober sent during the stage, on its timer or for an
   *     attempt that waited for one (left out when 0)
   */
  @JsonPropertyOrder({"name", "outcome", "attempts", "budgetsMs", "startMs", "endMs", "probes"})
  public record Stage(
      String name,
      String outcome,
      int attempts,
      List<Long> budgetsMs,
      long startMs,
      long endMs,
      @JsonInclude(JsonInclude.Include.NON_DEFAULT) int probes) {
    public Stage {
      budgetsMs = List.copyOf(budgetsMs);
    }

    /** Whether the stage was lost. */
    @JsonIgnore
    public boolean isLost() {
      return !outcome.equals("ok");
    }
  }

  /** The policy of that name. */
  public Policy policy(String name) {
    return policies.stream().filter(p -> p.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no policy is named \"" + name + "\""));
  }

  @Override
  public String toJson() {
    try {
      return ScenarioJson.MAPPER.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a simulation result as JSON", e);
    }
  }

  /**
   * The result as a table for a terminal: a row per policy with the stages it lost, how long the
   * whole run took and the probes sent, each heading with its unit.
   */
  @Override
  public String toTable() {
    TextTable table = new TextTable().text("policy").figure("stages lost").figure("total s").figure("probes")
        .text("lost stages");
    for (Policy p : policies) {
      int probes = p.stages().stream().mapToInt(Stage::probes).sum();
      table.row(p.name(), Integer.toString(p.lost().size()),
          TextTable.decimals(p.totalMs() / 1000.0, 1), TextTable.whole(probes),
          p.lost().isEmpty() ? "-" : String.join(", ", p.lost()));
    }
    return table.toString();
  }
}

package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A scenario that does not parse or makes no sense is refused with a message that names the field. */
class TimeoutScenarioParserTest {

  static final String POLICIES = "\"policies\": [{\"name\": \"f\", \"kind\": \"fixed\", \"defaultMs\": 1000}]";
  static final String STAGES = "\"stages\": [{\"name\": \"s\", \"requests\": [1]}]";

  static ScenarioException refused(String json) {
    return catchThrowableOfType(ScenarioException.class, () -> Simulator.TIMEOUTS.simulate(json));
  }

  @Test
  void aRequestThatIsNeitherANumberNorHangNorAFailure() {
    ScenarioException e = refused("{\"stages\": [{\"name\": \"a\", \"requests\": [1]}, {\"name\": \"b\", \"requests\": [1]},"
        + " {\"name\": \"c\", \"requests\": [1]}, {\"name\": \"d\", \"requests\": [\"slow\"]}], " + POLICIES + "}");

    assertThat(e).hasMessage("stages[3].requests[0]: expected a number of ms, \"hang\" or {\"fail\": ...}");
    assertThat(e.field()).isEqualTo("stages[3].requests[0]");
  }

  @Test
  void anUnknownPolicyKind() {
    assertThat(refused("{" + STAGES + ", \"policies\": [{\"name\": \"p\", \"kind\": \"adaptve\", \"defaultMs\": 1}]}"))
        .hasMessage("policies[0].kind: unknown policy kind \"adaptve\": expected \"adaptive\", \"seed\" or \"fixed\"");
  }

  /**
   * Each field's check, one scenario a row: {@code STAGES} stands for a list of stages and
   * {@code POLICIES} for a list of policies.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      {"serverLimitMs": "300 s", STAGES, POLICIES}          | serverLimitMs: expected a positive number of ms, got "300 s"
      {"description": 5, STAGES, POLICIES}                  | description: expected a non-empty string, got 5
      {"retries": 2.5, STAGES, POLICIES}                    | retries: expected a whole number of 0 or more, got 2.5
      {"retryBackoffMs": [1000, -1], STAGES, POLICIES}      | retryBackoffMs[1]: expected a number of ms of 0 or more, got -1
      {"maxSlowdown": 0.5, STAGES, POLICIES}                | maxSlowdown: expected a number of 1 or more, got 0.5
      {POLICIES}                                            | stages: required: a list of stages
      {STAGES}                                              | policies: required: a list of policies to replay
      {"stages": [{"requests": [1]}], POLICIES}             | stages[0].name: required: the stage's name
      {"stages": [{"name": "s", "requests": [1]}, {"name": "s", "requests": [2]}], POLICIES} | stages[1].name: "s" is already the name of stages[0]
      {"stages": [{"name": "s", "requests": []}], POLICIES} | stages[0].requests: expected at least one request
      {"stages": [{"name": "s", "requests": [{"fail": "boom"}]}], POLICIES} | stages[0].requests[0].fail: expected "refused", "reset", "dns" or "tls", got "boom"
      """)
  void eachFieldIsChecked(String scenario, String message) {
    assertThat(refused(scenario.replace("STAGES", STAGES).replace("POLICIES", POLICIES))).hasMessage(message);
  }

  @Test
  void anUnknownFieldIsRefusedNamingTheFieldsThereAre() {
    assertThat(refused("{\"serverLimitMS\": 300000, " + STAGES + ", " + POLICIES + "}"))
        .hasMessageStartingWith("serverLimitMS: unknown field of a scenario: expected one of abortedSlowdown, description, maxSlowdown,");
  }

  @Test
  void policiesAreCheckedByTheirOwnRules() {
    assertThat(refused("{" + STAGES + ", \"policies\": [{\"name\": \"seed\", \"kind\": \"seed\", \"defaultMs\": 300000,"
        + " \"tightenAfterTimeouts\": 2}]}"))
        .hasMessage("policies[0].tightenedMs: required: the budget once tightened");
    assertThat(refused("{" + STAGES + ", \"policies\": [{\"name\": \"seed\", \"kind\": \"seed\", \"defaultMs\": 300000,"
        + " \"tightenedMs\": 400000, \"tightenAfterTimeouts\": 2}]}"))
        .hasMessage("policies[0]: seed policy tightenedMs 400 s is not below defaultMs 300 s: "
            + "expected a shorter tightened budget");
    assertThat(refused("{" + STAGES + ", \"policies\": [{\"name\": \"a\", \"kind\": \"adaptive\", \"defaultMs\": 300000,"
        + " \"floorMs\": 400000}]}"))
        .hasMessage("policies[0]: adaptive timeouts: floor 400 s is above the default budget 300 s: "
            + "expected a floor at most the default budget");
    assertThat(refused("{" + STAGES + ", \"policies\": [{\"name\": \"a\", \"kind\": \"adaptive\", \"defaultMs\": 300000,"
        + " \"probe\": 2000}]}"))
        .hasMessageStartingWith("policies[0].probe: unknown field of an adaptive policy: expected one of coolDownMs,");
    assertThat(refused("{" + STAGES + ", \"policies\": [{\"name\": \"f\", \"kind\": \"fixed\", \"defaultMs\": 1},"
        + " {\"name\": \"f\", \"kind\": \"fixed\", \"defaultMs\": 2}]}"))
        .hasMessage("policies[1].name: \"f\" is already the name of policies[0]");
  }

  @Test
  void outagesAndOverloadsNameStagesThatExist() {
    assertThat(refused("{" + STAGES + ", \"outages\": [{\"fromStage\": \"t\", \"fail\": \"refused\"}], " + POLICIES + "}"))
        .hasMessage("outages[0].fromStage: no stage is named \"t\"");
    assertThat(refused("{\"stages\": [{\"name\": \"a\", \"requests\": [1]}, {\"name\": \"b\", \"requests\": [1]}],"
        + " \"overloads\": [{\"fromStage\": \"b\", \"toStage\": \"a\", \"factor\": 2}], " + POLICIES + "}"))
        .hasMessage("overloads[0].toStage: \"a\" comes before fromStage \"b\": expected a stage at or after it");
    assertThat(refused("{" + STAGES + ", \"overloads\": [{\"fromStage\": \"s\"}], " + POLICIES + "}"))
        .hasMessage("overloads[0].factor: required: a factor of 1 or more");
  }

  @Test
  void textThatIsNotAJsonObject() {
    assertThat(refused("{\"stages\": [")).hasMessageStartingWith("scenario is not JSON: ").hasMessageContaining("line 1");
    assertThat(refused("[1, 2]")).hasMessage("scenario: expected a JSON object {\"stages\": [...], \"policies\": [...]}");
    assertThat(refused("{" + STAGES + ", " + POLICIES + "} {}")).hasMessageStartingWith("scenario is not JSON: ");
    assertThat(refused("{" + STAGES + ", " + STAGES + ", " + POLICIES + "}"))
        .hasMessageStartingWith("scenario is not JSON: Duplicate field 'stages'");
  }

  @Test
  void outagesAndOverloadsAreResolvedOntoTheirStages() {
    TimeoutScenario scenario = TimeoutScenarioParser.parse("{\"stages\": [{\"name\": \"a\", \"requests\": [1]},"
        + " {\"name\": \"b\", \"tag\": \"B\", \"requests\": [\"hang\"]}, {\"name\": \"c\", \"requests\": [1]}],"
        + " \"outages\": [{\"fromStage\": \"a\", \"toStage\": \"b\", \"fail\": \"dns\"}],"
        + " \"overloads\": [{\"fromStage\": \"b\", \"factor\": 10}], " + POLICIES + "}");

    assertThat(scenario.stages()).extracting(s -> s.name() + "/" + s.tag() + " " + s.outage() + " x" + s.overload())
        .containsExactly("a/a Fail[failure=DNS, after=5000000] x1.0", "b/B Fail[failure=DNS, after=5000000] x10.0",
            "c/c null x10.0");
  }

  @Test
  void aFileThatCannotBeReadIsAnIOException() {
    assertThat(catchThrowableOfType(java.io.IOException.class,
        () -> Simulator.TIMEOUTS.run(Path.of("scenarios/timeouts/no-such.json")))).isNotNull();
  }
}

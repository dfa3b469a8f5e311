package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.simulator.TimeoutResult.Policy;
import io.hostpace.simulator.TimeoutResult.Stage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The timeout scenarios, run from the files shipped in {@code scenarios/timeouts/}, and
 * the claims made of them. {@code hostpace} is the adaptive policy with a 2 s probe, run by the
 * engine's own prober (SPEC D6); {@code hostpace-no-probe} the same without one.
 */
class ShippedScenariosTest {

  static TimeoutResult replay(String file) throws IOException {
    return Simulator.TIMEOUTS.simulate(Path.of("scenarios/timeouts", file));
  }

  @Test
  void D5_onTheRunOfSeed003TheSeedPolicyLosesThirteenStagesAndOursOnlyDatatypes() throws IOException {
    TimeoutResult result = replay("seed-003.json");
    Policy seed = result.policy("seed");
    Policy ours = result.policy("hostpace");

    assertThat(seed.lost()).hasSizeGreaterThanOrEqualTo(8).containsExactly(
        "datatypes", "triples", "class-partition", "class-properties-CreativeWork", "class-properties-Person",
        "class-properties-Place", "class-properties-Organization", "class-properties-Event",
        "class-properties-Book", "licenses", "entity-properties", "subject-uri-space", "object-uri-space");
    assertThat(ours.lost()).containsExactly("datatypes");
    assertThat(result.policy("fixed").lost()).containsExactly("datatypes");
  }

  @Test
  void D5_theSeedPolicyReplaysTheSeedsLog() throws IOException {
    Policy seed = replay("seed-003.json").policy("seed");

    // datatypes: 504 at the 300 s limit, retried, 504 again: tightened to 10 s
    assertThat(seed.stage("datatypes").budgetsMs()).containsExactly(300_000L, 300_000L, 10_000L);
    // triples needs 9 s, but the aborted datatypes query still runs and slows it 1.5x
    assertThat(seed.stage("triples").outcome()).isEqualTo("timeout");
    // the fast SHACL sample fits in 10 s and relaxes the endpoint; iiif then succeeds
    assertThat(seed.stage("shacl-sample-CreativeWork").outcome()).isEqualTo("ok");
    assertThat(seed.stage("shacl-sample-CreativeWork").budgetsMs()).containsExactly(10_000L);
    assertThat(seed.stage("iiif").outcome()).isEqualTo("ok");
  }

  @Test
  void D2_D8_onTheRunOfSeed003OursGivesEveryAttemptTheFullBudgetAndSendsDatatypesOnce() throws IOException {
    TimeoutResult result = replay("seed-003.json");
    Policy ours = result.policy("hostpace");

    assertThat(ours.stages()).flatExtracting(Stage::budgetsMs).containsOnly(300_000L);
    assertThat(ours.stage("datatypes").attempts()).as("504 at the server's limit: not sent again").isEqualTo(1);
    assertThat(result.policy("fixed").stage("datatypes").attempts()).isEqualTo(4);
    assertThat(ours.totalMs()).isEqualTo(1_500_800);
    assertThat(result.policy("fixed").totalMs()).isEqualTo(2_407_800);
  }

  @Test
  void D7_D8_twoHeavyQueriesCostOnlyThemselvesEachSentOnce() throws IOException {
    TimeoutResult result = replay("heavy-queries.json");
    List<String> heavy = List.of("paths", "closure");

    for (String name : List.of("hostpace", "hostpace-no-probe")) {
      Policy ours = result.policy(name);
      assertThat(ours.lost()).as(name).isEqualTo(heavy);
      assertThat(ours.stage("paths").budgetsMs()).as(name).containsExactly(300_000L);
      assertThat(ours.stage("closure").budgetsMs()).as(name).containsExactly(300_000L);
      assertThat(ours.stages()).as(name).flatExtracting(Stage::budgetsMs).containsOnly(300_000L);
      assertThat(ours.totalMs()).as(name).isEqualTo(905_000);
    }
    assertThat(result.policy("seed").lost()).containsExactly("paths", "closure", "types", "links", "languages", "sample");
    assertThat(result.policy("fixed").lost()).isEqualTo(heavy);
    assertThat(result.policy("fixed").totalMs()).isEqualTo(2_719_000);
  }

  @Test
  void D7_D8_withNoKindsGivenTheHeavyQueriesCostOnlyThemselvesToo() throws IOException {
    TimeoutResult result = replay("heavy-queries-untagged.json");
    Policy ours = result.policy("hostpace");

    assertThat(ours.lost()).containsExactly("paths", "closure");
    // paths is cut off at twice the slowest query before it; closure then gets the full budget,
    // is answered 504 at the server's limit and not sent again; the next gets the full budget
    assertThat(ours.stage("paths").budgetsMs()).containsExactly(140_000L);
    assertThat(ours.stage("closure").budgetsMs()).containsExactly(300_000L);
    assertThat(ours.stage("types").budgetsMs()).containsExactly(300_000L);
    assertThat(ours.stage("sample").budgetsMs()).containsExactly(140_000L);
    assertThat(ours.totalMs()).isEqualTo(745_000);
    assertThat(result.policy("seed").lost()).hasSize(6);
  }

  @Test
  void D3_onADeadEndpointOursFailsEveryStageWithin10sOfTheFirstRefusal() throws IOException {
    TimeoutResult result = replay("dead-endpoint.json");
    long firstRefusalMs = 5;

    for (String name : List.of("hostpace", "hostpace-no-probe")) {
      Policy ours = result.policy(name);
      assertThat(ours.lost()).as(name).hasSize(20);
      assertThat(ours.stages().get(19).endMs() - firstRefusalMs).as(name).isLessThanOrEqualTo(10_000);
    }
    assertThat(result.policy("hostpace").totalMs()).isEqualTo(7_115);
    assertThat(result.policy("hostpace-no-probe").totalMs()).isEqualTo(9_030);
    // Once down, the engine's probe is the trial: no real request goes, at the full budget or any.
    List<Long> budgets = result.policy("hostpace").stages().stream().flatMap(stage -> stage.budgetsMs().stream()).toList();
    assertThat(budgets.subList(3, budgets.size())).hasSize(20).containsOnly(0L);
    // Down at 3.015 s; during the caller's 4 s back-off the timer probes at 4.015 s and, the
    // cool-down doubled, at 6.02 s; the fourth attempt, at 7.015 s, waits for a probe of its own.
    assertThat(result.policy("hostpace").stage("subjects").probes()).isEqualTo(3);
    assertThat(result.policy("hostpace-no-probe").stage("subjects").budgetsMs())
        .as("without a probe, the fourth attempt is the trial").containsExactly(300_000L, 300_000L, 300_000L, 300_000L);
    // The fixed timeout waits out the caller's back-off on every stage: 1 + 2 + 4 s, 20 times.
    assertThat(result.policy("fixed").totalMs()).isEqualTo(140_400);
  }

  @Test
  void D4_onAnEndpointOverloadedForEveryoneOursLosesNoMoreThanAFixedTimeoutInUnderAThirdOfItsTime() throws IOException {
    TimeoutResult result = replay("overloaded.json");
    Policy fixed = result.policy("fixed");
    Policy ours = result.policy("hostpace");

    assertThat(fixed.lost()).containsAll(ours.lost());
    assertThat(ours.lost()).hasSize(15);
    assertThat(ours.totalMs()).as("under a third of the fixed timeout's").isLessThan(fixed.totalMs() / 3);
    assertThat(ours.totalMs() * 100 / fixed.totalMs()).as("per cent, as measured").isEqualTo(27);
  }

  @Test
  void D7_D8_onAnEndpointOverloadedForEveryoneEachQuerySpendsTheServersLimitOnce() throws IOException {
    Policy ours = replay("overloaded.json").policy("hostpace");

    // Every query from triples on reaches the server's 300 s limit: each is its own cost (D8), so
    // the endpoint is never degraded (nor would a reduced budget be below 300 s: datatypes took
    // 180 s just before, D7), and none is sent again.
    List<Stage> overloaded = ours.stages().subList(ours.stages().indexOf(ours.stage("triples")), ours.stages().size());
    assertThat(overloaded).hasSize(15).extracting(Stage::outcome).containsOnly("504");
    assertThat(overloaded).flatExtracting(Stage::budgetsMs).hasSize(15).containsOnly(300_000L);
    assertThat(overloaded).extracting(Stage::probes).containsOnly(0);
  }

  @Test
  void D4_afterAnOutageOursLosesOnlyTheStagesInsideItAndGivesTheNextTheFullBudgetWithinOneCoolDown()
      throws IOException {
    TimeoutResult result = replay("outage.json");
    List<String> inside = List.of(
        "class-partition", "class-properties-CreativeWork", "class-properties-Person", "class-properties-Place");
    Policy ours = result.policy("hostpace");

    assertThat(ours.lost()).isEqualTo(inside);
    assertThat(result.policy("fixed").lost()).isEqualTo(inside);
    Stage lastInside = ours.stage("class-properties-Place");
    Stage firstAfter = ours.stage("class-properties-Organization");
    assertThat(firstAfter.outcome()).isEqualTo("ok");
    assertThat(firstAfter.budgetsMs()).containsExactly(300_000L);
    // It ran 35 s on an idle server; what came before its full-budget attempt (one probe) took
    // less than the first cool-down, 1 s.
    long fullBudgetAttemptStartedMs = firstAfter.endMs() - 35_000;
    assertThat(fullBudgetAttemptStartedMs - lastInside.endMs()).isBetween(0L, 1_000L);
  }

  @Test
  void withoutAProbeTheFirstStageAfterAnOutageIsFailedFastAndTheNextOneIsTheTrial() throws IOException {
    Policy noProbe = replay("outage.json").policy("hostpace-no-probe");

    assertThat(noProbe.lost()).containsExactly("class-partition", "class-properties-CreativeWork",
        "class-properties-Person", "class-properties-Place", "class-properties-Organization");
    assertThat(noProbe.stage("class-properties-Event").budgetsMs()).containsExactly(300_000L);
  }

  @Test
  void everyShippedScenarioRunsAsTheCommandLineWillRunIt() throws IOException {
    for (String file : List.of("seed-003.json", "dead-endpoint.json", "overloaded.json", "outage.json",
        "heavy-queries.json", "heavy-queries-untagged.json")) {
      String json = Simulator.TIMEOUTS.run(Path.of("scenarios/timeouts", file));
      assertThat(json).as(file).startsWith("{\"policies\":[{\"name\":\"seed\",\"lost\":[").doesNotContain("\n");
    }
  }
}

package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hostpace.simulator.PacingResult;
import io.hostpace.simulator.Simulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hostpace simulate timeouts} and {@code pacing}, on the shipped scenarios (SPEC D5). */
class SimulateCommandTest extends CommandTest {

  static final Path SCENARIOS = Path.of("..", "hostpace-simulator", "scenarios", "timeouts");

  @Test
  void D5_theSeedRunLosesABlockOfStagesWithTheSeedPolicyAndOnlyDatatypesWithOurs() {
    assertThat(run("simulate", "timeouts", SCENARIOS.resolve("seed-003.json").toString(), "--json")).as(err).isZero();

    assertThat(out.lines()).hasSize(1);
    assertThat(out).startsWith("{\"policies\":[");
    assertThat(out).contains("\"name\":\"hostpace\",\"lost\":[\"datatypes\"]");
    assertThat(out).containsPattern("\"name\":\"seed\",\"lost\":\\[\"datatypes\",\"triples\",\"class-partition\"");
  }

  @Test
  void everyShippedScenarioRuns() throws IOException {
    try (var files = Files.list(SCENARIOS)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        assertThat(run("simulate", "timeouts", file.toString())).as(file + ": " + err).isZero();
        assertThat(out).startsWith("policy ").contains("stages lost");
      }
    }
  }

  @Test
  void aBadScenarioGetsAMessageNamingTheFieldAndExitStatusTwo(@TempDir Path dir) throws IOException {
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"stages\":[{\"name\":\"x\",\"requests\":[\"soon\"]}],"
        + "\"policies\":[{\"name\":\"p\",\"kind\":\"fixed\",\"defaultMs\":1000}]}");
    assertThat(run("simulate", "timeouts", bad.toString())).isEqualTo(2);
    assertThat(err.strip()).startsWith("hostpace: " + bad + ": stages[0].requests[0]");

    Files.writeString(bad, "{\"stages\":[{\"name\":\"x\",\"requests\":[10]}],"
        + "\"policies\":[{\"name\":\"p\",\"kind\":\"magic\"}]}");
    assertThat(run("simulate", "timeouts", bad.toString())).isEqualTo(2);
    assertThat(err).contains("policies[0].kind").contains("magic");
  }

  @Test
  void pacingPrintsTheResultOfEachPolicyAndDrawsTheChartWhenAsked(@TempDir Path dir) {
    dir = dir.resolve("charts"); // missing: --chart makes it, as --output and --state do
    Path chart = dir.resolve("qlever.png");
    Path scenario = Path.of("..", "hostpace-simulator", "scenarios", "pacing", "qlever-like.json");

    assertThat(run("simulate", "pacing", scenario.toString(), "--chart", chart.toString(), "--json")).as(err).isZero();

    assertThat(out).startsWith("{\"policies\":[").contains("\"name\":\"seed\"").contains("\"goodputRatio\"");
    assertThat(chart).isNotEmptyFile();
    assertThat(dir.resolve("qlever.csv")).content().startsWith("policy,from_s,to_s,accepted,refused,");
    assertThat(err).isEqualTo("hostpace: drew " + chart + ", its figures in " + dir.resolve("qlever.csv") + "\n");
  }

  @Test
  void pacingPrintsEveryFigureOfTheSimulatorsResultAsJsonOnOneLine() throws IOException {
    // kgf-like: the seed's and the unpaced client's rows lose requests, so no figure is zero in every row
    Path scenario = Path.of("..", "hostpace-simulator", "scenarios", "pacing", "kgf-like.json");
    PacingResult expected = Simulator.PACING.simulate(scenario);

    assertThat(run("simulate", "pacing", scenario.toString(), "--json")).as(err).isZero();

    assertThat(out.lines()).hasSize(1);
    JsonNode root = new ObjectMapper().readTree(out);
    assertThat(names(root)).containsExactly("policies", "idealSeconds");
    assertThat(root.get("idealSeconds").doubleValue()).isEqualTo(expected.idealSeconds());
    JsonNode policies = root.get("policies");
    assertThat(policies).hasSize(expected.policies().size());
    for (int i = 0; i < policies.size(); i++) {
      JsonNode p = policies.get(i);
      PacingResult.Policy e = expected.policies().get(i);
      assertThat(names(p)).containsExactly("name", "completed", "lost", "refusals", "refusalPct", "finishSeconds",
          "goodputRatio", "p50WaitMs", "p99WaitMs", "lateRefusals", "lateRefusalPct");
      assertThat(p.get("name").textValue()).isEqualTo(e.name());
      assertThat(p.get("completed").intValue()).as(e.name()).isEqualTo(e.completed());
      assertThat(p.get("lost").intValue()).as(e.name()).isEqualTo(e.lost());
      assertThat(p.get("refusals").intValue()).as(e.name()).isEqualTo(e.refusals());
      assertThat(p.get("refusalPct").doubleValue()).as(e.name()).isEqualTo(e.refusalPct());
      assertThat(p.get("finishSeconds").doubleValue()).as(e.name()).isEqualTo(e.finishSeconds());
      assertThat(p.get("goodputRatio").doubleValue()).as(e.name()).isEqualTo(e.goodputRatio());
      assertThat(p.get("p50WaitMs").longValue()).as(e.name()).isEqualTo(e.p50WaitMs());
      assertThat(p.get("p99WaitMs").longValue()).as(e.name()).isEqualTo(e.p99WaitMs());
      assertThat(p.get("lateRefusals").intValue()).as(e.name()).isEqualTo(e.lateRefusals());
      assertThat(p.get("lateRefusalPct").doubleValue()).as(e.name()).isEqualTo(e.lateRefusalPct());
    }
    assertThat(expected.policy("seed").lost()).isPositive();
  }

  static List<String> names(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void aBadPacingScenarioIsAUsageError(@TempDir Path dir) throws IOException {
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"servers\":[{\"host\":\"a.test\",\"model\":\"teapot\"}]}");
    assertThat(run("simulate", "pacing", bad.toString())).isEqualTo(2);
    assertThat(err).contains("model");
  }

  @Test
  void pacingPrintsATableByDefaultWithARowPerPolicyAndTheFiguresOfTheJson() throws IOException {
    Path scenario = Path.of("..", "hostpace-simulator", "scenarios", "pacing", "kgf-like.json");
    PacingResult expected = Simulator.PACING.simulate(scenario);

    assertThat(run("simulate", "pacing", scenario.toString())).as(err).isZero();

    assertThat(out).isEqualTo(expected.toTable());
    List<String> lines = out.lines().toList();
    assertThat(lines.get(0)).isEqualTo("ideal finish " + String.format(java.util.Locale.ROOT, "%.1f", expected.idealSeconds())
        + " s: the soonest the servers could have accepted every request");
    assertThat(lines.get(2)).startsWith("policy").contains("refused %", "finish s", "wait p99 ms");
    PacingResult.Policy seed = expected.policy("seed");
    assertThat(lines.get(3)).matches("seed +" + seed.completed() + " +" + seed.lost() + " +[0-9,]+ +"
        + String.format(java.util.Locale.ROOT, "%.1f", seed.refusalPct()) + " .*");
    // the columns are aligned: every row is as long as the headings' line
    assertThat(lines.subList(3, 3 + expected.policies().size()))
        .allSatisfy(row -> assertThat(row).hasSize(lines.get(2).length()));
  }

  @Test
  void aShippedScenarioRunsByNameAsItsFileDoes() throws IOException {
    Path file = Path.of("..", "hostpace-simulator", "scenarios", "pacing", "fast-host.json");

    assertThat(run("simulate", "pacing", "fast-host", "--json")).as(err).isZero();

    assertThat(out.strip()).isEqualTo(Simulator.PACING.simulate(file).toJson());
    assertThat(run("simulate", "timeouts", "outage")).as(err).isZero();
    assertThat(out).startsWith("policy ").contains("hostpace");
  }

  @Test
  void anUnknownNameIsAUsageErrorListingTheShippedNames() {
    assertThat(run("simulate", "pacing", "qlever")).isEqualTo(2);

    assertThat(err).startsWith("hostpace: SCENARIO 'qlever' is neither a file nor a shipped pacing scenario:"
        + " expected a file or one of bucket-burst-10, bucket-burst-5, eight-processes, eight-processes-burst-3, fast-host, ").contains(", qlever-like, ");
    assertThat(out).isEmpty();
  }

  @Test
  void listPrintsEveryShippedScenarioByKindWithItsDescription() {
    assertThat(run("simulate", "list")).as(err).isZero();

    assertThat(out).startsWith("pacing scenarios (hostpace simulate pacing NAME):\n  bucket-burst-10 ")
        .containsPattern("\n  qlever-like +QLever's Wikidata endpoint: one request a second, the rest refused with a bare 429\\.\n")
        .contains("\ntimeouts scenarios (hostpace simulate timeouts NAME):\n")
        .containsPattern("\n  seed-003 +The run of seed 003: ");
    assertThat(out.lines().filter(l -> l.startsWith("  "))).hasSize(46 + 6);
  }
}

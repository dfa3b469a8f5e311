package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hostpace simulate timeouts}, on the shipped scenarios (SPEC D5). */
class SimulateCommandTest {

  static final Path SCENARIOS = Path.of("..", "hostpace-simulator", "scenarios", "timeouts");

  String out;
  String err;

  int run(String... args) {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    int status = Main.run(args, new ByteArrayInputStream(new byte[0]),
        new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));
    out = stdout.toString(StandardCharsets.UTF_8);
    err = stderr.toString(StandardCharsets.UTF_8);
    return status;
  }

  @Test
  void D5_theSeedRunLosesABlockOfStagesWithTheSeedPolicyAndOnlyDatatypesWithOurs() {
    assertThat(run("simulate", "timeouts", SCENARIOS.resolve("seed-003.json").toString())).as(err).isZero();

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
        assertThat(out).contains("\"policies\"");
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
    Path chart = dir.resolve("qlever.png");
    Path scenario = Path.of("..", "hostpace-simulator", "scenarios", "pacing", "qlever-like.json");

    assertThat(run("simulate", "pacing", scenario.toString(), "--chart", chart.toString())).as(err).isZero();

    assertThat(out).startsWith("{\"policies\":[").contains("\"name\":\"seed\"").contains("\"goodputRatio\"");
    assertThat(chart).isNotEmptyFile();
  }

  @Test
  void aBadPacingScenarioIsAUsageError(@TempDir Path dir) throws IOException {
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"servers\":[{\"host\":\"a.test\",\"model\":\"teapot\"}]}");
    assertThat(run("simulate", "pacing", bad.toString())).isEqualTo(2);
    assertThat(err).contains("model");
  }
}

package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The refusals after the first window: at each fixed-window server, the attempts that arrive at
 * or after the end of the server's own window in which its first refusal arrived, and of them the
 * refused ones; blank in the tables where no server is a fixed window.
 */
class FirstWindowRefusalsTest {

  /** Three fixed-window servers and a token bucket, a client each (the figures need the arrivals). */
  private static final PacingScenario SCENARIO = PacingScenarioParser.parse("""
      { "servers": [
          { "host": "w.test", "model": "fixed-window", "limit": 2, "windowSeconds": 10, "windowsFromSeconds": 3 },
          { "host": "v.test", "model": "fixed-window", "limit": 1, "windowSeconds": 10 },
          { "host": "u.test", "model": "fixed-window", "limit": 100, "windowSeconds": 10 },
          { "host": "b.test", "model": "token-bucket", "rate": 1.0 } ],
        "clients": [
          { "host": "w.test", "requests": 1 }, { "host": "v.test", "requests": 1 },
          { "host": "u.test", "requests": 1 }, { "host": "b.test", "requests": 1 } ],
        "policies": [ "unpaced" ] }
      """);

  @Test
  void countsWhatArrivesFromTheEndOfEachServersWindowOfItsFirstRefusal() {
    PacingFigures figures = new PacingFigures();
    // w.test's windows begin 3 s into every 10 s: its first refusal, at 2 s, is in [-7 s, 3 s).
    // The refusal at 2.5 s is in that window; the one at 3 s, on its end, is after it.
    // After it: 3 s refused, 4 s, 12 s, 14 s refused: 2 of 4.
    attempts(figures, "w.test", "0.5 A", "1 A", "2 R", "2.5 R", "3 R", "4 A", "12 A", "14 R");
    // v.test's windows begin at 0 s: its first refusal, at 10 s on a boundary, is in [10 s, 20 s),
    // as the server counts it; 15 s and 19.9 s are in it. After it: 20 s, 25 s refused: 1 of 2.
    attempts(figures, "v.test", "1 A", "10 R", "15 R", "19.9 A", "20 A", "25 R");
    // u.test refused nothing: every attempt counts, none refused: 0 of 3.
    attempts(figures, "u.test", "1 A", "30 A", "50 A");
    // a token bucket's refusals are not a window's, early or late
    attempts(figures, "b.test", "1 A", "20 R", "30 R");

    PacingResult.Policy policy = figures.result("unpaced", SCENARIO.maxNanos(),
        new Arrivals(SCENARIO, Simulator.WALL_ORIGIN), 0, SCENARIO.servers());

    // 3 refused of 9 attempts
    assertThat(policy.firstWindowRefusalPct()).isEqualTo(33.3);
    // the refusals after 10 s count other attempts: 14, 15, 25 s and the bucket's two, of 10
    assertThat(policy.lateRefusalPct()).isEqualTo(50.0);
  }

  @Test
  void isNotDefinedWithoutAFixedWindowServerAndIsThenBlankInTheTables() throws IOException {
    PacingResult withoutWindow = PacingSimulationTest.replay("qlever-like.json");
    List<String> rows = PacingTable.markdown(List.of(PacingSimulationTest.DIR.resolve("qlever-like.json")))
        .lines().skip(2).toList();

    assertThat(withoutWindow.policies()).allSatisfy(p -> assertThat(p.firstWindowRefusalPct()).isNull());
    assertThat(rows).hasSize(withoutWindow.policies().size())
        .allSatisfy(row -> assertThat(cells(row)[8]).isEmpty());
    assertThat(withoutWindow.toTable()).doesNotContain("window");
    assertThat(withoutWindow.toJson()).doesNotContain("firstWindowRefusalPct");
  }

  @Test
  void aFixedWindowScenarioShowsItsFigureInEachTableAndItsJson() throws IOException {
    Path file = PacingSimulationTest.DIR.resolve("fixed-window.json");
    PacingResult result = Simulator.PACING.simulate(file);
    List<String> rows = PacingTable.markdown(List.of(file)).lines().skip(2).toList();
    JsonNode json = new ObjectMapper().readTree(result.toJson()).get("policies");

    assertThat(rows).hasSize(result.policies().size());
    for (int i = 0; i < rows.size(); i++) {
      PacingResult.Policy p = result.policies().get(i);
      assertThat(p.firstWindowRefusalPct()).as(p.name()).isNotNull().isBetween(0.0, 100.0);
      assertThat(Double.parseDouble(cells(rows.get(i))[8])).as(p.name()).isEqualTo(p.firstWindowRefusalPct());
      PacingSimulationTest.assertJsonIs(json.get(i), p);
    }
    assertThat(result.toTable()).contains("after 1st window %")
        .contains("after 1st window %: at a fixed-window server, refusals of attempts that arrived after the window"
            + " of its first refusal, of those attempts;\n");
  }

  /** The cells of a row of the Markdown table, without the outer bars. */
  private static String[] cells(String row) {
    return row.substring(2, row.length() - 2).split(" \\| ", -1);
  }

  /**
   * Attempts at {@code host}, a request each, each {@code "SECONDS A"} (accepted) or
   * {@code "SECONDS R"} (refused), recorded as the replay records them as they reach the server.
   */
  private static void attempts(PacingFigures figures, String host, String... attempts) {
    PacingFigures.Process process = figures.process(0, 0, 0);
    for (String attempt : attempts) {
      String[] parts = attempt.split(" ");
      long at = Math.round(Double.parseDouble(parts[0]) * 1e9);
      figures.request(host, at, process);
      PacingFigures.Request request = process.requests.get(process.requests.size() - 1);
      figures.attempt(request, at, parts[1].equals("A"));
    }
  }
}

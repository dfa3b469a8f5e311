package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.simulator.TimeoutResult.Policy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The caller and the server model of {@link TimeoutWorkload}, each rule on a tiny scenario. */
class TimeoutSimulationTest {

  /** A scenario of the seed's server with these stages, replayed by one fixed timeout. */
  static Policy fixed(long budgetMs, String stages) {
    return Simulator.TIMEOUTS.simulate("""
        {"serverLimitMs": 300000, "abortedSlowdown": 0.5, "maxSlowdown": 3,
         "retries": 3, "retryBackoffMs": [1000, 2000],
         "stages": [%s],
         "policies": [{"name": "fixed", "kind": "fixed", "defaultMs": %d}]}
        """.formatted(stages, budgetMs)).policy("fixed");
  }

  @Test
  void anAbortedQueryKeepsRunningUntilItsOwnRunWouldEndAndSlowsNewOnesMeanwhile() {
    Policy run = fixed(20_000, """
        {"name": "heavy", "requests": [128000]},
        {"name": "a", "requests": [9000]},
        {"name": "b", "requests": [9000]},
        {"name": "c", "requests": [9000]}""");

    // heavy is cut off at 20 s and runs on until 128 s: a and b take 9 s x 1.5.
    assertThat(run.stages()).extracting(s -> s.name() + " " + s.outcome() + " " + s.startMs() + ".." + s.endMs())
        .containsExactly("heavy timeout 0..20000", "a ok 20000..33500", "b ok 33500..47000", "c ok 47000..60500");
  }

  @Test
  void theSlowdownGrowsByHalfPerAbortedQueryUpToThreeTimes() {
    Policy run = fixed(1_000, """
        {"name": "h1", "requests": ["hang"]}, {"name": "h2", "requests": ["hang"]},
        {"name": "h3", "requests": ["hang"]}, {"name": "h4", "requests": ["hang"]},
        {"name": "h5", "requests": ["hang"]},
        {"name": "q", "requests": [200]}""");

    assertThat(run.stage("q").endMs() - run.stage("q").startMs()).as("1 + 0.5 x 5 is above 3").isEqualTo(600);
  }

  @Test
  void aQueryThatReachesTheServersLimitIsAnswered504AtTheLimitAndRetriedAfterTheBackOff() {
    Policy run = fixed(300_000, """
        {"name": "datatypes", "requests": [420000]}""");

    // An answer at the budget is in time; the back-off's last value repeats.
    assertThat(run.stage("datatypes").outcome()).isEqualTo("504");
    assertThat(run.stage("datatypes").budgetsMs()).containsExactly(300_000L, 300_000L, 300_000L, 300_000L);
    assertThat(run.totalMs()).isEqualTo(4 * 300_000 + 1_000 + 2_000 + 2_000);
  }

  @Test
  void ourOwnTimeoutIsNeverRetriedAndLosesTheStage() {
    Policy run = fixed(10_000, """
        {"name": "x", "requests": ["hang"]}""");

    assertThat(run.stage("x").outcome()).isEqualTo("timeout");
    assertThat(run.stage("x").attempts()).isEqualTo(1);
    assertThat(run.lost()).containsExactly("x");
  }

  @Test
  void aStageIsLostAtItsFirstRequestThatFinallyFailsAndItsLaterRequestsAreNotSent() {
    Policy run = fixed(10_000, """
        {"name": "s", "requests": [1000, {"fail": "dns", "afterMs": 20}, 1000]}""");

    assertThat(run.stage("s").outcome()).isEqualTo("dns");
    assertThat(run.stage("s").attempts()).isEqualTo(1 + 4);
    assertThat(run.totalMs()).isEqualTo(1_000 + 4 * 20 + 1_000 + 2_000 + 2_000);
  }

  @Test
  void aFailureSlowerThanTheBudgetIsOurTimeout() {
    Policy run = fixed(10_000, """
        {"name": "s", "requests": [{"fail": "reset", "afterMs": 30000}]}""");

    assertThat(run.stage("s").outcome()).isEqualTo("timeout");
  }

  @Test
  void theOriginalExampleRunsAsWrittenCommentsAndAll() {
    TimeoutResult result = Simulator.TIMEOUTS.simulate("""
        { "serverLimitMs": 300000,          // the server answers 504 when a query reaches this
          "abortedSlowdown": 0.5,           // each query we aborted keeps running on the server
          "maxSlowdown": 3,                 //   and slows new ones by (1 + 0.5 n), at most 3x
          "retries": 3, "retryBackoffMs": [1000, 2000, 4000],
                                            // the caller retries 502/503/504 and network
                                            // failures, never its own timeout
          "stages": [ { "name": "subjects", "tag": "subjects",      // tag defaults to name
                        "requests": [95000] },                      // ms to the answer when idle
                      { "name": "x", "requests": ["hang"] },        // never answers
                      { "name": "y", "requests": [{"fail": "refused", "afterMs": 5}] } ],
                                            // fail: refused | reset | dns
          "policies": [ { "name": "seed",     "kind": "seed", "defaultMs": 300000,
                          "tightenedMs": 10000, "tightenAfterTimeouts": 2 },
                        { "name": "hostpace", "kind": "adaptive", "defaultMs": 300000 } ] }
        """);

    assertThat(result.toJson()).isEqualTo("{\"policies\":["
        + "{\"name\":\"seed\",\"lost\":[\"x\",\"y\"],\"totalMs\":402020,\"stages\":["
        + "{\"name\":\"subjects\",\"outcome\":\"ok\",\"attempts\":1,\"budgetsMs\":[300000],\"startMs\":0,\"endMs\":95000},"
        + "{\"name\":\"x\",\"outcome\":\"timeout\",\"attempts\":1,\"budgetsMs\":[300000],\"startMs\":95000,\"endMs\":395000},"
        + "{\"name\":\"y\",\"outcome\":\"refused\",\"attempts\":4,\"budgetsMs\":[300000,300000,300000,300000],"
        + "\"startMs\":395000,\"endMs\":402020}]},"
        + "{\"name\":\"hostpace\",\"lost\":[\"x\",\"y\"],\"totalMs\":402020,\"stages\":["
        + "{\"name\":\"subjects\",\"outcome\":\"ok\",\"attempts\":1,\"budgetsMs\":[300000],\"startMs\":0,\"endMs\":95000},"
        + "{\"name\":\"x\",\"outcome\":\"timeout\",\"attempts\":1,\"budgetsMs\":[300000],\"startMs\":95000,\"endMs\":395000},"
        + "{\"name\":\"y\",\"outcome\":\"refused\",\"attempts\":4,\"budgetsMs\":[300000,300000,300000,300000],"
        + "\"startMs\":395000,\"endMs\":402020}]}]}");
  }

  @Test
  void D6_theEnginesProberProbesOnItsTimerAndAnAttemptForADownEndpointWaitsForAProbe() {
    TimeoutResult result = Simulator.TIMEOUTS.simulate("""
        {"retries": 3, "retryBackoffMs": [1000],
         "stages": [{"name": "down", "requests": [{"fail": "refused", "afterMs": 5}]},
                    {"name": "next", "requests": [{"fail": "refused", "afterMs": 5}]}],
         "policies": [{"name": "p", "kind": "adaptive", "defaultMs": 60000, "probeMs": 2000}]}
        """);

    // Down at 2.015 s, after three refusals; the timer's probe goes at 3.015 s, at the end of the
    // cool-down, and the fourth attempt, due then too, waits for it: refused at 3.02 s, so it is
    // failed fast, not sent at the full budget. The next stage's attempt waits for a probe of its own.
    assertThat(result.toJson()).contains(
        "{\"name\":\"down\",\"outcome\":\"fast-fail\",\"attempts\":4,\"budgetsMs\":[60000,60000,60000,0],"
            + "\"startMs\":0,\"endMs\":3020,\"probes\":1}",
        "{\"name\":\"next\",\"outcome\":\"fast-fail\",\"attempts\":1,\"budgetsMs\":[0],\"startMs\":3020,"
            + "\"endMs\":3025,\"probes\":1}");
  }

  @Test
  void D6_aProbeThatSucceedsGivesTheNextAttemptTheFullBudgetAndProbesAreLeftOutWhenThereAreNone() {
    TimeoutResult result = Simulator.TIMEOUTS.simulate("""
        {"retries": 2, "retryBackoffMs": [1000], "probeIdleMs": 50,
         "outages": [{"fromStage": "down", "toStage": "down", "fail": "refused", "afterMs": 5}],
         "stages": [{"name": "down", "requests": [1000]}, {"name": "back", "requests": [1000]}],
         "policies": [{"name": "p", "kind": "adaptive", "defaultMs": 60000, "probeMs": 2000}]}
        """);

    // Down after the third refusal, at 2.015 s; back is asked for at once, waits for a probe that
    // is answered in 50 ms, and is sent with the full budget.
    assertThat(result.toJson()).contains(
        "{\"name\":\"down\",\"outcome\":\"refused\",\"attempts\":3,\"budgetsMs\":[60000,60000,60000],"
            + "\"startMs\":0,\"endMs\":2015}",
        "{\"name\":\"back\",\"outcome\":\"ok\",\"attempts\":1,\"budgetsMs\":[60000],\"startMs\":2015,"
            + "\"endMs\":3065,\"probes\":1}");
  }

  @Test
  void theResultDoesNotDependOnTheClocksOrigin() throws IOException {
    for (String file : new String[] {"seed-003.json", "dead-endpoint.json", "overloaded.json", "outage.json"}) {
      TimeoutScenario scenario = TimeoutScenarioParser.parse(Files.readString(Path.of("scenarios/timeouts", file)));
      long origin = ThreadLocalRandom.current().nextLong();
      assertThat(new TimeoutWorkload().replay(scenario, origin))
          .as(file + " from origin " + origin)
          .isEqualTo(new TimeoutWorkload().replay(scenario, Simulator.ORIGIN))
          .isEqualTo(new TimeoutWorkload().replay(scenario, 0));
    }
  }

  @Test
  void writeJsonWritesOneObjectOnOneLine() {
    TimeoutResult result = Simulator.TIMEOUTS.simulate("""
        {"stages": [{"name": "s", "requests": [1500.4]}],
         "policies": [{"name": "f", "kind": "fixed", "defaultMs": 1000}]}""");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    result.writeJson(out);

    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("{\"policies\":[{\"name\":\"f\",\"lost\":[\"s\"],"
        + "\"totalMs\":1000,\"stages\":[{\"name\":\"s\",\"outcome\":\"timeout\",\"attempts\":1,"
        + "\"budgetsMs\":[1000],\"startMs\":0,\"endMs\":1000}]}]}\n");
  }

  @Test
  void theCommandRunsATimeoutScenarioAsAPacingOneAndABadOneIsOneLineNamingTheFileAndField(@TempDir Path dir)
      throws IOException {
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"stages\": [{\"name\": \"s\", \"requests\": [\"slow\"]}], \"policies\": []}");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int good = Main.run(new String[] {"timeouts", "scenarios/timeouts/dead-endpoint.json"},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    int refused = Main.run(new String[] {"timeouts", bad.toString()}, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(good).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("{\"policies\":[");
    assertThat(refused).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(bad + ": stages[0].requests[0]: expected a number of ms,"
        + " \"hang\" or {\"fail\": ...}" + System.lineSeparator());
  }
}

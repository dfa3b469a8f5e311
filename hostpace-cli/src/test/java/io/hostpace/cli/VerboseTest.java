package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Logger;
import org.apache.jena.query.DatasetFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * SPEC L3: {@code --verbose} prints the engine's decisions to stderr, one compact line each; without
 * it none, and warnings in the same form in any case. Run in this process against servers on 127.0.0.1.
 * Isolated: {@code --verbose} sets the level of the JVM's logger {@code io.hostpace}, whose lines
 * every run in the JVM would print, and a test here checks the logger is left as it was.
 */
@Isolated
class VerboseTest extends ServedCommandTest {

  /** A line of LogSetup's: the time to the millisecond, the level, the message. */
  static final String LINE = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (DEBUG|WARN) .+";

  List<String> logLines() {
    return Arrays.stream(err.split("\n")).filter(line -> line.matches(LINE)).toList();
  }

  @Test
  void L3_fetchVerbosePrintsEachDecisionAsALineWithTheTimeTheLevelAndTheHost() {
    String key = "127.0.0.1:" + server.server.getAddress().getPort();
    assertThat(run("fetch", "--verbose", server.url("/refuse-once"))).isZero();

    // Every line names its host; a line of another host's may come from a run of an earlier test
    // still ending in this JVM (the logger is the JVM's), so the host is not this test's to pin.
    assertThat(logLines()).isNotEmpty().allMatch(line -> line.matches("\\S+ DEBUG [^ ]+:\\d+: .+"))
        .anyMatch(line -> line.endsWith(" DEBUG " + key + ": attempt 1 of " + server.url("/refuse-once")
            + " refused with 429, Retry-After 0 ms"))
        .anyMatch(line -> line.endsWith(" DEBUG " + key + ": attempt 2 of " + server.url("/refuse-once") + " queued"));
  }

  @Test
  void L3_withoutVerboseFetchPrintsNoDecision() {
    assertThat(run("fetch", server.url("/refuse-once"))).isZero();

    assertThat(server.seen.get("/refuse-once").get()).isEqualTo(2); // it was refused, and retried
    assertThat(err).doesNotContain("DEBUG").doesNotContain("refused with 429");
  }

  @Test
  void L3_sparqlVerbosePrintsItsDecisionsAndWithoutItNone() {
    try (GatedEndpoint endpoint = GatedEndpoint.start(DatasetFactory.create(), Gate.open())) {
      String url = endpoint.sparql().toString();
      String key = "127.0.0.1:" + endpoint.sparql().getPort();

      assertThat(run("sparql", "--verbose", "--endpoint", url, "--query", "ASK {}")).isZero();
      assertThat(logLines()).anyMatch(line -> line.matches("\\S+ DEBUG " + key + ": attempt 1 of .+ started after waiting .+"));

      assertThat(run("sparql", "--endpoint", url, "--query", "ASK {}")).isZero();
      assertThat(err).doesNotContain("DEBUG");
    }
  }

  @Test
  void L3_aWarningReachesStderrAsOneCompactLineWithItsExceptionAndTheRunLeavesTheLoggerAsItWas() {
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    PrintStream to = new PrintStream(stderr, true, StandardCharsets.UTF_8);
    System.Logger logger = System.getLogger("io.hostpace.SomeClass");
    Logger hostpace = Logger.getLogger("io.hostpace");
    try (LogSetup logs = LogSetup.toStderr(to)) {
      logger.log(System.Logger.Level.WARNING, "cannot save host state to /x/state.tsv", new IOException("disk full"));
      logger.log(System.Logger.Level.DEBUG, "a decision, not asked for");
    }
    logger.log(System.Logger.Level.WARNING, "after the run: not this run's");

    assertThat(stderr.toString(StandardCharsets.UTF_8))
        .matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN cannot save host state to /x/state.tsv \\(disk full\\)\n");
    assertThat(hostpace.getHandlers()).isEmpty();
    assertThat(hostpace.getLevel()).isNull();
  }
}

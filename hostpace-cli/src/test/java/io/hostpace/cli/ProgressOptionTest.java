package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --progress} and {@code --no-progress} of {@code hostpace fetch}, run in this process,
 * whose standard error (the test runner's) is no terminal, against a server on 127.0.0.1.
 */
class ProgressOptionTest extends ServedCommandTest {

  @BeforeEach
  void start() {
    assertThat(Terminal.ofThisProcess().standardErrorIsTerminal()).as("the tests' standard error is no terminal").isFalse();
  }

  @Test
  void progressDrawsTheLineWhenStandardErrorIsNoTerminalAndClearsItBeforeTheSummary() {
    assertThat(run("fetch", "--progress", "--max-in-flight", "1", server.url("/slow"), server.url("/ok"),
        server.url("/ok2"))).isZero();
    assertThat(err).startsWith("\r0 of 3 done, ");
    assertThat(err).containsPattern("\r\\d of 3 done, \\d in flight, \\d waiting, \\d:\\d\\d, \\d+\\.\\d/s");
    // Cleared: blanked out with spaces, the cursor back at the start, before the summary's first line.
    assertThat(err).containsPattern("\r +\rhost|\r +\r[^\r]*\n");
    String afterLine = err.substring(err.lastIndexOf('\r') + 1);
    assertThat(afterLine).doesNotContain("done, ").contains("total: 3 requests, 3 completed");
  }

  @Test
  void noProgressDrawsNothingAndTheSummaryStays() {
    assertThat(run("fetch", "--no-progress", server.url("/ok"))).isZero();
    assertThat(err).doesNotContain("\r").doesNotContain(" done, ").contains("total: 1 request, 1 completed");
  }

  @Test
  void byDefaultNoTerminalMeansNoLine() {
    assertThat(run("fetch", server.url("/ok"))).isZero();
    assertThat(err).doesNotContain("\r").contains("total: 1 request,");
  }

  @Test
  void quietLeavesOutTheSummaryButProgressStillForcesTheLine() {
    assertThat(run("fetch", "--quiet", server.url("/ok"))).isZero();
    assertThat(err).isEmpty();
    assertThat(run("fetch", "--quiet", "--progress", server.url("/ok"))).isZero();
    assertThat(err).startsWith("\r0 of 1 done").doesNotContain("total:");
  }
}

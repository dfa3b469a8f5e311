package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A scenario of several {@code runs}: each run's servers and engines as a run of their own, on the run's clock. */
class PacingRunsTest {

  /** 100 requests at once to a bucket of one a second, {@code runs} times, refused with {@code retryAfter}. */
  private static PacingResult.Policy seed(int runs, String retryAfter) {
    return Simulator.PACING.simulate("{\"runs\":" + runs + ",\"maxSeconds\":600,"
        + "\"servers\":[{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1.0,\"retryAfter\":\"" + retryAfter + "\"}],"
        + "\"clients\":[{\"host\":\"q.test\",\"requests\":100}],\"policies\":[\"seed\"]}").policy("seed");
  }

  @Test
  void aRetryAfterDateIsAsFarAheadInALaterRunAsInTheFirst() {
    // The seed's rule waits as long as Retry-After says: a date in the past would send its retries
    // at once, and lose most requests within a second.
    PacingResult.Policy first = seed(1, "date");
    PacingResult.Policy second = seed(2, "date");
    assertThat(second.finishSeconds()).isGreaterThan(10);
    assertThat(second.completed()).isEqualTo(first.completed());
  }
}

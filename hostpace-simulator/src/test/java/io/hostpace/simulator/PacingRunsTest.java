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

  /** 300 requests at once to a bucket of one a second, cut at 100 s, {@code runs} times, under the default engine. */
  private static PacingResult.Policy cut(int runs) {
    return Simulator.PACING.simulate("{\"runs\":" + runs + ",\"maxSeconds\":100,"
        + "\"servers\":[{\"host\":\"q.test\",\"model\":\"token-bucket\",\"rate\":1.0}],"
        + "\"clients\":[{\"host\":\"q.test\",\"requests\":300}],\"policies\":[\"hostpace\"]}").policy("hostpace");
  }

  @Test
  void aRunCutByMaxSecondsStillKeepsWhatItsEnginesLearnedForTheNext() {
    PacingResult.Policy first = cut(1);
    PacingResult.Policy second = cut(2);
    assertThat(first.refusalsBetween(0, 1)).isPositive();     // a first contact's opening
    assertThat(second.refusalsBetween(0, 1)).isZero();        // started from the rate the first run learned
    assertThat(second.refusals()).isLessThan(first.refusals());
  }
}

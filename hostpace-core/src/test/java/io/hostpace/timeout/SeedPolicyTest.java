package io.hostpace.timeout;

import static io.hostpace.timeout.Outcome.REJECTED;
import static io.hostpace.timeout.Outcome.SERVER_ERROR;
import static io.hostpace.timeout.Outcome.SERVER_TIMEOUT;
import static io.hostpace.timeout.Outcome.SUCCESS;
import static io.hostpace.timeout.Outcome.TIMED_OUT;
import static io.hostpace.timeout.Outcome.UNREACHABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** Seed 003's policy, kept as a reference: it must do exactly what the seed's did, faults included. */
class SeedPolicyTest {

  static final long T0 = ThreadLocalRandom.current().nextLong();

  final TimeoutPolicy seed = TimeoutPolicy.seed(Duration.ofSeconds(300), Duration.ofSeconds(10), 2);

  String ask(double at, String kind) {
    return seed.budget(T0 + Math.round(at * 1e9), "e", kind).toString();
  }

  void report(double at, String kind, Outcome outcome, double took) {
    seed.onOutcome(T0 + Math.round(at * 1e9), "e", kind, outcome, Math.round(took * 1e9));
  }

  @Test
  void D5_twoConsecutiveTimeoutsOfOneQueryClampEveryLaterQueryOfTheEndpoint() {
    assertThat(ask(361, "datatypes")).isEqualTo("send 300 s (default)");
    report(661, "datatypes", SERVER_TIMEOUT, 300);
    assertThat(ask(662, "datatypes")).isEqualTo("send 300 s (default)");
    report(962, "datatypes", SERVER_TIMEOUT, 300);

    assertThat(ask(964, "datatypes")).isEqualTo("send 10 s (degraded)");
    assertThat(ask(964, "triples")).as("kinds are ignored").isEqualTo("send 10 s (degraded)");
    assertThat(seed.budget(T0, "other", "triples")).as("per endpoint").hasToString("send 300 s (default)");
  }

  @Test
  void D5_itsTightenedStateFeedsItselfUntilALuckyFastQuery() {
    report(300, "datatypes", TIMED_OUT, 300);
    report(600, "datatypes", TIMED_OUT, 300);
    for (int i = 0; i < 12; i++) {
      report(610 + 10 * i, "heavy" + i, TIMED_OUT, 10);
      assertThat(ask(610 + 10 * i, "next")).isEqualTo("send 10 s (degraded)");
    }
    report(731.4, "shacl-sample", SUCCESS, 1.4);

    assertThat(ask(731.4, "iiif")).isEqualTo("send 300 s (default)");
  }

  @Test
  void everyOtherOutcomeIsNeutral() {
    report(300, "q", TIMED_OUT, 300);
    report(301, "q", UNREACHABLE, 0.005);
    report(302, "q", SERVER_ERROR, 0.1);
    report(303, "q", REJECTED, 0.1);
    assertThat(ask(303, "q")).as("one timeout so far").isEqualTo("send 300 s (default)");

    report(603, "q", TIMED_OUT, 300);
    assertThat(ask(603, "q")).as("the errors between did not reset the count").isEqualTo("send 10 s (degraded)");
    report(604, "q", UNREACHABLE, 0.005);
    assertThat(ask(604, "q")).isEqualTo("send 10 s (degraded)");
  }

  @Test
  void aSuccessResetsTheCount() {
    report(300, "q", TIMED_OUT, 300);
    report(309, "q", SUCCESS, 9);
    report(609, "q", TIMED_OUT, 300);

    assertThat(ask(609, "q")).isEqualTo("send 300 s (default)");
  }

  @Test
  void itsSettingsAreCheckedAsTheSeedChecksThem() {
    assertThat(catchThrowable(() -> TimeoutPolicy.seed(Duration.ofSeconds(10), Duration.ofSeconds(10), 2)))
        .hasMessage("seed policy tightenedMs 10 s is not below defaultMs 10 s: expected a shorter tightened budget");
    assertThat(catchThrowable(() -> TimeoutPolicy.seed(Duration.ofSeconds(300), Duration.ofSeconds(10), 0)))
        .hasMessage("seed policy tightenAfterTimeouts 0 is not a count of timeouts: expected 1 or more");
    assertThat(seed).hasToString("seed(default 300 s, tightened 10 s after 2 timeouts)");
  }

  @Test
  void theFixedPolicyGivesEveryAttemptTheSameBudget() {
    TimeoutPolicy fixed = TimeoutPolicy.fixed(Duration.ofSeconds(300));
    fixed.onOutcome(T0, "e", "q", TIMED_OUT, 300_000_000_000L);
    fixed.onOutcome(T0, "e", "q", TIMED_OUT, 300_000_000_000L);

    assertThat(fixed.budget(T0, "e", "q")).hasToString("send 300 s (default)");
    assertThat(fixed).hasToString("fixed 300 s");
  }

  @Test
  void outcomesOfStatuses() {
    assertThat(Outcome.ofStatus(200)).isEqualTo(SUCCESS);
    assertThat(Outcome.ofStatus(304)).isEqualTo(SUCCESS);
    assertThat(Outcome.ofStatus(429)).isEqualTo(REJECTED);
    assertThat(Outcome.ofStatus(503)).isEqualTo(SERVER_ERROR);
    assertThat(Outcome.ofStatus(504)).isEqualTo(SERVER_TIMEOUT);
    assertThat(catchThrowable(() -> Outcome.ofStatus(42))).hasMessage("HTTP status 42 is not one: expected 100 to 599");
    assertThat(TIMED_OUT.isAnswer()).isFalse();
    assertThat(SERVER_TIMEOUT.isAnswer()).isTrue();
  }
}

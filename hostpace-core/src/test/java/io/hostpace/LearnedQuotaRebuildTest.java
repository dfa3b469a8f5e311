package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a learned quota is rebuilt when the rule changes it, with literal numbers: seconds as nanoseconds. */
class LearnedQuotaRebuildTest {

  static final long S = 1_000_000_000L;

  @Test
  void aFirstQuotaCountsItsWindowsFromTheStartOfTheRequestThatTaughtIt() {
    LearnedQuota quota = LearnedQuota.after(null, 60, 60 * S, 7 * S);
    assertThat(quota).isNotNull();
    assertThat(quota.permits).isEqualTo(60);
    assertThat(quota.readyAt(8 * S)).isEqualTo(8 * S); // 1 of 60 used
    assertThat(quota.rate()).isEqualTo(Rate.of(60, java.time.Duration.ofMinutes(1)));
  }

  @Test
  void aChangedQuotaKeepsWhereTheWindowsBegin() {
    LearnedQuota first = LearnedQuota.after(null, 1, 60 * S, 7 * S);
    assertThat(first).isNotNull();
    assertThat(first.readyAt(8 * S)).isEqualTo(67 * S); // its one permit used at 7 s
    LearnedQuota second = LearnedQuota.after(first, 1, 30 * S, 9 * S);
    assertThat(second).isNotNull();
    assertThat(second.readyAt(8 * S)).isEqualTo(37 * S); // still from 7 s, with the new window
  }

  @Test
  void R7_noPermitsOrNoWindowIsNoQuota() {
    LearnedQuota first = LearnedQuota.after(null, 60, 60 * S, 0);
    assertThat(LearnedQuota.after(first, 0, 60 * S, S)).isNull();
    assertThat(LearnedQuota.after(first, 60, 0, S)).isNull();
  }
}

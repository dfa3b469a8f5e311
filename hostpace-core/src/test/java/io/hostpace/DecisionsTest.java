package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The engine's small decisions with literal numbers: times in nanoseconds, some near the wrap of the count. */
class DecisionsTest {

  static final long S = 1_000_000_000L;
  static final long NEAR_WRAP = Long.MAX_VALUE - 2 * S;

  @Test
  void R3_aPauseLastsAtMostTheRetryDelayLimit() {
    assertThat(Decisions.pause(30 * S, 60 * S)).isEqualTo(30 * S);
    assertThat(Decisions.pause(90 * S, 60 * S)).isEqualTo(60 * S);
    assertThat(Decisions.pause(0, 60 * S)).isZero();
  }

  @Test
  void R2_aShorterPauseNeverCutsALongerOneShort() {
    assertThat(Decisions.lengthens(false, 0, 5 * S)).isTrue();
    assertThat(Decisions.lengthens(true, 10 * S, 5 * S)).isFalse();
    assertThat(Decisions.lengthens(true, 10 * S, 10 * S)).isFalse();
    assertThat(Decisions.lengthens(true, 10 * S, 11 * S)).isTrue();
    // Compared by difference: a pause past the wrap of the count is later than one before it.
    assertThat(Decisions.lengthens(true, NEAR_WRAP, NEAR_WRAP + 3 * S)).isTrue();
  }

  @Test
  void R4_theKeptIntervalIsNeverNegativeNorNearOverflow() {
    assertThat(Decisions.interval(250_000_000L)).isEqualTo(250_000_000L);
    assertThat(Decisions.interval(-1)).isZero();
    assertThat(Decisions.interval(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE / 4);
  }

  @Test
  void R4_aHostMayStartAgainOnceItsIntervalPassedSinceItsLastStart() {
    assertThat(Decisions.intervalReadyAt(S, true, 10 * S, 10 * S)).isEqualTo(11 * S);
    assertThat(Decisions.intervalReadyAt(S, true, 10 * S, 12 * S)).isEqualTo(12 * S);
    assertThat(Decisions.intervalReadyAt(0, true, 10 * S, 10 * S)).isEqualTo(10 * S);
    // P11: the first request of a host never waits.
    assertThat(Decisions.intervalReadyAt(S, false, 0, 3 * S)).isEqualTo(3 * S);
    assertThat(Decisions.intervalReadyAt(S, true, NEAR_WRAP, NEAR_WRAP)).isEqualTo(NEAR_WRAP + S);
  }
}

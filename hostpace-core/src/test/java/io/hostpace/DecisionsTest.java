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
  void S1_aKeptPauseOfADayUnderARetryDelayLimitOf5sEndsIn5s() {
    long day = 86_400 * S;
    Decisions.Taught kept = new Decisions.Taught(true, 100 * S + day, 0, 0, 0, 0);
    assertThat(Decisions.held(kept, 100 * S, 5 * S).pausedUntil()).isEqualTo(105 * S);
    assertThat(Decisions.held(kept, 100 * S, 5 * S).paused()).isTrue();
    // Within the limit, or already over: as kept.
    assertThat(Decisions.held(new Decisions.Taught(true, 103 * S, 0, 0, 0, 0), 100 * S, 5 * S).pausedUntil())
        .isEqualTo(103 * S);
    assertThat(Decisions.held(new Decisions.Taught(true, 90 * S, 0, 0, 0, 0), 100 * S, 5 * S).pausedUntil())
        .isEqualTo(90 * S);
    // Compared by difference: a kept pause across the wrap of the count is held as well.
    assertThat(Decisions.held(new Decisions.Taught(true, NEAR_WRAP + day, 0, 0, 0, 0), NEAR_WRAP, 5 * S).pausedUntil())
        .isEqualTo(NEAR_WRAP + 5 * S);
  }

  @Test
  void S1_aKeptIntervalBeyondTheClampIsClampedAsALearnedOneIs() {
    assertThat(Decisions.held(new Decisions.Taught(false, 0, Long.MAX_VALUE, 0, 0, 0), 0, 5 * S).interval())
        .isEqualTo(Long.MAX_VALUE / 4);
    assertThat(Decisions.held(new Decisions.Taught(false, 0, -1, 0, 0, 0), 0, 5 * S).interval()).isZero();
    assertThat(Decisions.held(new Decisions.Taught(false, 0, 2 * S, 0, 0, 0), 0, 5 * S).interval()).isEqualTo(2 * S);
  }

  @Test
  void S1_aKeptInFlightLimitOrQuotaNoEngineWouldLearnIsNone() {
    assertThat(Decisions.held(new Decisions.Taught(false, 0, 0, -3, 0, 0), 0, 5 * S).inFlightLimit()).isZero();
    assertThat(Decisions.held(new Decisions.Taught(false, 0, 0, 4, 0, 0), 0, 5 * S).inFlightLimit()).isEqualTo(4);
    // A quota needs permits and a window; its window is clamped as an interval is.
    assertThat(Decisions.held(new Decisions.Taught(false, 0, 0, 0, 3, 0), 0, 5 * S))
        .isEqualTo(new Decisions.Taught(false, 0, 0, 0, 0, 0));
    assertThat(Decisions.held(new Decisions.Taught(false, 0, 0, 0, -3, 10 * S), 0, 5 * S))
        .isEqualTo(new Decisions.Taught(false, 0, 0, 0, 0, 0));
    assertThat(Decisions.held(new Decisions.Taught(false, 0, 0, 0, 3, Long.MAX_VALUE), 0, 5 * S))
        .isEqualTo(new Decisions.Taught(false, 0, 0, 0, 3, Long.MAX_VALUE / 4));
    // A quota of 3 a minute is longer than a retry delay limit of 5 s, and held as learned: a window is no pause.
    assertThat(Decisions.held(new Decisions.Taught(false, 0, 0, 0, 3, 60 * S), 0, 5 * S))
        .isEqualTo(new Decisions.Taught(false, 0, 0, 0, 3, 60 * S));
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

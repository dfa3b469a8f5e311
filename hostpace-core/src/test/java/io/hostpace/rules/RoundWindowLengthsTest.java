package io.hostpace.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The round lengths a host's window may have, and those that fit its boundaries counted by the clock (SPEC R11). */
class RoundWindowLengthsTest {

  @Test
  void theShortestRoundLengthWithinTheBounds() {
    assertThat(RoundWindowLengths.shortestWithin(40.5, 81)).isEqualTo(60);
    assertThat(RoundWindowLengths.shortestWithin(31, 47)).isZero();
    assertThat(RoundWindowLengths.shortestWithin(3_600, 30_000)).isEqualTo(7_200);
  }

  @Test
  void R11_byTheClockALengthFitsWhereItPutsABoundaryInTheOneFoundNoneInTheWallBeforeItNorUpToTheLastRefusal() {
    // A wall from 24.1 s, its end between 27.3 s and 30.5 s, in seconds of the clock's day: 4 s puts
    // a boundary at 28 s and none in the wall (24 s), 5 s one at 30 s but one at 25 s, in the wall.
    assertThat(RoundWindowLengths.shortestOnClock(24.1, 27.3, 30.5, 27.3, 30.5, 30.5)).isEqualTo(4);
    // Refused up to 33 s since: 4 s would have put one at 32 s; 6 s fits (30 s, and 36 s next).
    assertThat(RoundWindowLengths.shortestOnClock(24.1, 27.3, 30.5, 27.3, 30.5, 33)).isEqualTo(6);
    // Up to 37.1 s: 10 s (30 s, then 40 s); up to 45.5 s: 30 s.
    assertThat(RoundWindowLengths.shortestOnClock(24.1, 27.3, 30.5, 27.3, 30.5, 37.1)).isEqualTo(10);
    assertThat(RoundWindowLengths.shortestOnClock(24.1, 27.3, 30.5, 27.3, 30.5, 45.5)).isEqualTo(30);
  }

  @Test
  void R11_byTheClockALaterBoundaryFoundMustFitTooAndNoneMayFitAtAll() {
    // The first boundary between 53.6 s and 64.8 s, the wall from 42.4 s: 20 s, 30 s and a minute put
    // one at 60 s and none in the wall (12 s and 15 s do: 48 s, 45 s). A later boundary between
    // 118 s and 121 s: each of the three puts one at 120 s; refused since up to 125 s, 141 s, 151 s.
    assertThat(RoundWindowLengths.shortestOnClock(42.4, 53.6, 64.8, 118, 121, 125)).isEqualTo(20);
    assertThat(RoundWindowLengths.shortestOnClock(42.4, 53.6, 64.8, 118, 121, 141)).isEqualTo(30);
    assertThat(RoundWindowLengths.shortestOnClock(42.4, 53.6, 64.8, 118, 121, 151)).isEqualTo(60);
    // Its end between 53.6 s and 58.5 s: no round length puts a boundary there and none in the wall.
    assertThat(RoundWindowLengths.shortestOnClock(42.4, 53.6, 58.5, 53.6, 58.5, 58.5)).isZero();
  }
}

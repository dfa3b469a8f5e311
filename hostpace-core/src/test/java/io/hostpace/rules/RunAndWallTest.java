package io.hostpace.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * SPEC R11's recognising half: a run of accepted answers, a wall of refusals after it, and the
 * answer that ends the wall. Times in seconds from an origin near the wrap of the nanosecond count;
 * each answer 50 ms after its start.
 */
class RunAndWallTest {

  static final long ORIGIN = Long.MAX_VALUE - 20_000_000_000L;
  final RunAndWall seen = new RunAndWall();

  static long at(double seconds) {
    return ORIGIN + Math.round(seconds * 1e9);
  }

  boolean accepted(double startedAt) {
    return seen.accepted(at(startedAt + 0.05), at(startedAt));
  }

  void refused(double startedAt) {
    seen.refused(at(startedAt + 0.05), at(startedAt));
  }

  @Test
  void R11_aRunThenAWallLongerThanTheRunTookEndedByAnAcceptedAnswerIsAWindows() {
    for (int i = 0; i < 60; i++) {
      assertThat(accepted(0.005 * i)).isFalse();
    }
    for (double t : new double[] {0.35, 3.35, 9.35, 21.35, 31.6}) {
      refused(t);
    }
    assertThat(seen.wallRefusals()).isEqualTo(5);

    assertThat(accepted(63.6)).isTrue();
    assertThat(seen.runAccepted()).isEqualTo(60);
    assertThat(seen.runFirstStart()).isEqualTo(at(0));
    assertThat(seen.wallLastRefusedStart()).isEqualTo(at(31.6));
    assertThat(seen.wallRefusals()).isZero();
  }

  @Test
  void R11_aWallShorterThanItsFirstProbeAfterARunOfTenOrMoreIsNoWindowsAfterAQuotaWasLearnedFromOne() {
    // The host's first wall after a run of ten or more is a window's whatever its length (it ends
    // at its first probe, 3 s on at the soonest); a later one lasts at least 5 s.
    for (int i = 0; i < 15; i++) {
      accepted(0);
    }
    for (double t : new double[] {0.1, 0.2, 0.3}) {
      refused(t);
    }
    assertThat(accepted(3.5)).isTrue();
    seen.quotaDropped(); // the quota learned did not hold
    for (int i = 0; i < 15; i++) {
      accepted(4);
    }
    for (double t : new double[] {4.1, 4.2, 4.3}) {
      refused(t);
    }

    assertThat(accepted(7.5)).as("a later wall of 3.4 s").isFalse();
  }

  @Test
  void R11_anAnswerStartedWithTheWallsRefusedOnesEndsNothingAndAddsToTheRun() {
    for (int i = 0; i < 10; i++) {
      accepted(0);
    }
    refused(0.1);
    refused(0.1);
    refused(0.1);

    // Another process's answer of the same burst, heard after the refusals (SPEC S2).
    assertThat(accepted(0.1)).isFalse();
    assertThat(seen.wallRefusals()).isEqualTo(3);
    assertThat(seen.runAccepted()).isEqualTo(11);
  }

  @Test
  void R11_theFirstWallAfterARunOfTenIsProbedNoSoonerThanThreeSecondsAfterItBeganALaterOneByDoubling() {
    for (int i = 0; i < 10; i++) {
      accepted(0);
    }
    refused(0.1);
    refused(0.1);
    long from = at(0.15);

    assertThat(seen.wallInterval(from + 100_000_000L, false)).isEqualTo(3_200_000_000L - 100_000_000L);
    assertThat(seen.wallInterval(from + 100_000_000L, true)).as("a quota followed").isZero();

    seen.runAgain(10, at(0));
    assertThat(seen.wallInterval(from + 100_000_000L, false)).as("a wall after one that ended").isEqualTo(100_000_000L);
  }

  /** A run of {@code count} accepted starts {@code every} seconds apart from {@code from}, then refusals at {@code wall}. */
  boolean runThenWall(double from, int count, double every, double... wall) {
    boolean window = false;
    for (int i = 0; i < count; i++) {
      window |= accepted(from + every * i);
    }
    for (double t : wall) {
      refused(t);
    }
    return window;
  }

  @Test
  void R11_aRunBegunByTheEndOfAWindowsWallIsAWindowsThoughItTookLongerThanTheWallAfterIt() {
    // Two a second, given by the user, at a host allowing 60 a minute from 17.4 s: the first run
    // spans a boundary (95 accepted in 47 s), and its wall (39 s) is no proof.
    assertThat(runThenWall(0, 95, 0.5, 47.5, 48, 52, 57, 67)).isFalse();
    // Begun at that wall's end, the next run is one window's: 60 in 30 s, then a wall of 21 s.
    assertThat(runThenWall(86.45, 60, 0.51, 117, 117.9, 119.6, 122.2, 127.4)).as("the wall's end began the run").isFalse();

    assertThat(accepted(137.8)).isTrue();
    assertThat(seen.runAccepted()).isEqualTo(60);
    assertThat(seen.runFirstStart()).isEqualTo(at(86.45));
  }

  @Test
  void R11_aRunOfFewerThanTenBegunByAWallsEndThatTookLongerThanTheWallAfterItIsNoWindows() {
    assertThat(runThenWall(0, 95, 0.5, 47.5, 48, 52, 57, 67)).isFalse();
    assertThat(runThenWall(86.45, 9, 3, 117, 117.9, 119.6, 122.2, 127.4)).isFalse();

    assertThat(accepted(137.8)).as("a bucket in debt refills a few in a wall's time").isFalse();
  }
}

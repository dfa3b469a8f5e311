package io.hostpace.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hostpace.Clock;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A quota counted in fixed windows, recognised and followed by the default rule: times in
 * seconds from an origin near the wrap of the nanosecond count; each answer 50 ms after its start.
 */
class WindowQuotaTest {

  static final long ORIGIN = Long.MAX_VALUE - 20_000_000_000L;
  final WindowQuota quota = new WindowQuota();
  final HostState host = HostStateStore.inMemory().open("api.test");

  static long at(double seconds) {
    return ORIGIN + Math.round(seconds * 1e9);
  }

  boolean accepted(double startedAt) {
    return quota.accepted(at(startedAt + 0.05), at(startedAt), host);
  }

  boolean refused(double startedAt) {
    return refused(startedAt, false);
  }

  /** A refusal of the request started at {@code startedAt}, another process's when {@code heard}. */
  boolean refused(double startedAt, boolean heard) {
    wall.now = at(startedAt + 0.05);
    return quota.refused(at(startedAt + 0.05), at(startedAt), heard, host);
  }

  /** The engine's clock, read at each refusal's answer, once {@link #clockAt} told the quota of it. */
  final WallClock wall = new WallClock();

  static final class WallClock implements Clock {
    long now;
    Instant atOrigin = Instant.EPOCH;

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public Instant instant() {
      return atOrigin.plusNanos(now - ORIGIN);
    }
  }

  /** The quota told the engine's clock, whose wall time at 0 s is {@code atOrigin}. */
  void clockAt(String atOrigin) {
    wall.atOrigin = Instant.parse(atOrigin);
    quota.clock(wall);
  }

  /** When the next probe goes, the window that {@code began} then counted as the engine counts it. */
  double nextProbe(double began) {
    return began + window();
  }

  double window() {
    return host.quotaWindow() / 1e9;
  }

  /** 60 accepted at once from 0 s, then refused at 0.1 s and at growing gaps up to 31.6 s. */
  void firstWindow() {
    for (int i = 0; i < 60; i++) {
      assertThat(accepted(0)).isFalse();
    }
    for (double t : new double[] {0.1, 1, 3, 7, 15, 31.6}) {
      assertThat(refused(t)).isFalse();
    }
  }

  /** {@code permits} accepted at 0 s, then a wall of refusals at {@code refusedAt} (in seconds). */
  void wall(int permits, double... refusedAt) {
    for (int i = 0; i < permits; i++) {
      accepted(0);
    }
    for (double t : refusedAt) {
      refused(t);
    }
  }

  /** The burst of a window whose probe started at {@code probe}. */
  void burst(double probe) {
    assertThat(accepted(probe)).isTrue();
    for (int i = 1; i < 60; i++) {
      assertThat(accepted(probe + 0.05)).isTrue();
    }
  }

  /**
   * The first window, then its boundary at 47.6 s (the window lasts 31.6 s to 47.6 s: no round
   * length fits), three refused probes, and the next at 95.2 s.
   */
  void twoBoundaries() {
    firstWindow();
    burst(47.6);
    refused(79.2);
    refused(87.2);
    refused(91.2);
    burst(95.2);
  }

  @Test
  void aRunAcceptedAtOnceThenAWallOfRefusalsThenABurstAcceptedIsAQuota() {
    firstWindow();
    assertThat(accepted(63.6)).isTrue();

    assertThat(host.quotaPermits()).isEqualTo(61); // 60, and in this first window one more tried
    // The window lasts 31.6 s to 63.6 s: a minute is the one round length there. Not known to last
    // three quarters of it, a start goes first at 108.6 s, 45 s after the window began (the check
    // that the count is not longer than the host's windows, which would accept every probe of it).
    assertThat(window()).isCloseTo(45, within(1e-6));
    assertThat(refused(108.6)).isTrue();
    // Refused: the next probe goes where a minute puts the next boundary, a thousandth of it late,
    // at 120.06 s, which the engine counts from the last probe, at 63.6 s.
    assertThat(window()).isCloseTo(120.06 - 63.6, within(1e-6));
  }

  @Test
  void R11_aHostsFirstWallAfterARunOfAFewIsProbedNoSoonerThanHalfASecondAfterItBegan() {
    for (int i = 0; i < 4; i++) {
      accepted(0);
    }
    refused(0.1);   // the wall begins at 0.15 s
    refused(0.2);
    // 0.1 s into it: the doubling's probes at 0.2 and 0.4 s skipped, the next 0.8 s from its start.
    assertThat(quota.wallInterval(at(0.25))).isEqualTo(700_000_000L);
    // A later wall of the same host is probed from its start, doubling.
    accepted(1.0);
    accepted(1.1);
    accepted(1.2);
    refused(1.3);   // the wall begins at 1.35 s
    refused(1.35);
    assertThat(quota.wallInterval(at(1.45))).isEqualTo(100_000_000L);
  }

  @Test
  void R11_whereNoRoundLengthFitsTheBoundsTheProbeGoesInTheMiddleOfWhereTheNextBoundaryLies() {
    firstWindow();
    accepted(47.6);

    // The window lasts 31.6 s to 47.6 s, no round length between; the next boundary lies in
    // 63.2 s to 95.2 s, and the probe goes at 79.2 s.
    assertThat(window()).isCloseTo(79.2 - 47.6, within(1e-6));
  }

  @Test
  void R11_aProbeWhereTheRoundLengthHoldsGoesEachTimeTheLengthPassesAndARefusedOneRulesTheLengthOut() {
    wall(20, 0.1, 0.6, 1.3, 2.6, 5.1);
    accepted(10.2);
    // 5.1 s to 10.2 s: 6 s is the shortest round length there; its boundary at 12 s, probed at 12.006 s.
    assertThat(window()).isCloseTo(12.006 - 10.2, within(1e-6));
    assertThat(refused(12.006)).isTrue();
    // Not 6 s, then: 10 s is the next round length up to 10.2 s, its second boundary at 20 s, once
    // its check, three quarters of it after the window began, is refused.
    assertThat(window()).isCloseTo(7.5, within(1e-6));
    assertThat(refused(17.7)).isTrue();
    assertThat(window()).isCloseTo(20.01 - 10.2, within(1e-6));
    assertThat(accepted(20.01)).isTrue();
    assertThat(window()).isCloseTo(10, within(1e-6));
    assertThat(accepted(30.01)).isTrue();
    assertThat(window()).isCloseTo(10, within(1e-6));
  }

  @Test
  void R11_aProbeRefusedWhereALengthThatHeldPutTheBoundarySearchesForItAndCountsTheWindowsFromThere() {
    firstWindow();
    burst(63.6);
    assertThat(refused(108.6)).isTrue(); // the minute's check, three quarters of it in
    burst(120.06); // a minute holds
    // The host's windows grew to two minutes from 120 s: the probe at 180.06 s is refused.
    assertThat(refused(180.06)).isTrue();
    // The boundary lies within a minute after it: probes in the middle of what is left.
    assertThat(window()).isCloseTo(210.06 - 120.06, within(1e-6));
    assertThat(refused(210.06)).isTrue();
    assertThat(refused(225.06)).isTrue();
    assertThat(refused(232.56)).isTrue();
    assertThat(window()).isCloseTo(240.06 - 120.06, within(1e-6)); // three refused: at the end
    burst(240.06);
    // Counted from 240.06 s: a minute first (windows that moved keep their length) ...
    assertThat(window()).isCloseTo(60.06, within(1e-6));
    assertThat(refused(300.12)).isTrue();
    // ... refused there, so the next round length up to the two minutes between the boundaries,
    // once its check, 90 s after the window began, is refused.
    assertThat(window()).isCloseTo(90, within(1e-6));
    assertThat(refused(330.06)).isTrue();
    assertThat(window()).isCloseTo(120.12, within(1e-6));
    assertThat(accepted(360.18)).isTrue();
    // Accepted there; but the boundary searched for lay between 232.56 s and 240.06 s, and a window
    // known to last more than a minute is not known to last three quarters of two: the boundaries
    // are narrowed by probes, not counted at two minutes (which a host of 90 s would accept at each
    // probe, every fourth of its windows unused). From there the host's two minutes are followed.
    assertThat(window()).isLessThan(120);
    List<Double> probes = follow(60, 120, 0, 360.18, 2400);
    assertLastProbesWithin(probes, 4, 120, 0, 0.02 * 120);
    assertThat(refusedProbes).isLessThanOrEqualTo(3);
  }

  @Test
  void aRefusedProbeRaisesTheLowerEndAndAfterThreeTheProbeGoesAtTheUpperEnd() {
    firstWindow();
    burst(47.6);
    assertThat(refused(79.2)).isTrue();
    assertThat(window()).isCloseTo(87.2 - 47.6, within(1e-6));
    assertThat(refused(87.2)).isTrue();
    assertThat(window()).isCloseTo(91.2 - 47.6, within(1e-6));
    assertThat(refused(91.2)).isTrue();
    assertThat(window()).isCloseTo(95.2 - 47.6, within(1e-6));
  }

  @Test
  void R11_aQuotaWhoseProbesAreRefusedEightTimesInARowIsDroppedToTheRateRule() {
    firstWindow();
    burst(47.6);
    // Each probe refused where the quota put it (the last one each time, as the engine sends them),
    // whatever boundary it looked for: the host counts no such windows now. The first four, counted
    // from the run's first start, rule out that it was a boundary (the windows are then counted
    // from the one found at 47.6 s), and eight more drop the quota. Three of the starts refused are
    // checks of the round lengths taken on the way, three quarters of each after the window began,
    // which say only that the window lasts that long, and are no probes.
    int refused = 0;
    while (quota.active() && refused < 20) {
      double probe = nextProbe(47.6);
      assertThat(host.quotaPermits()).isGreaterThanOrEqualTo(60); // and one more, tried now and then
      refused(probe);
      refused++;
    }
    assertThat(refused).isEqualTo(4 + 8 + 3);
    assertThat(host.quotaPermits()).isZero();
  }

  @Test
  void S2_probesOfTheFleetsOtherProcessesRefusedDoNotCountTowardDroppingTheQuota() {
    firstWindow();
    burst(47.6);
    for (int i = 0; i < 8; i++) {
      assertThat(refused(nextProbe(47.6), true)).isTrue();
    }
    assertThat(host.quotaPermits()).isGreaterThanOrEqualTo(60);
  }

  @Test
  void R11_aProbeAcceptedAmongRefusedOnesStartsTheCountOfRefusalsInARowAgain() {
    firstWindow();
    burst(47.6);
    for (int i = 0; i < 7; i++) {
      refused(nextProbe(47.6));
    }
    double boundary = nextProbe(47.6);
    burst(boundary);
    for (int i = 0; i < 7; i++) {
      assertThat(refused(nextProbe(boundary))).isTrue();
    }
    assertThat(host.quotaPermits()).isGreaterThanOrEqualTo(60);
  }

  @Test
  void eachAcceptedProbeIsABoundaryAndTheBoundariesNarrowTheWindow() {
    twoBoundaries();
    // Two boundaries: the window is 45.6 s to 47.6 s; the next lies in 136.8 s to 142.8 s.
    assertThat(window()).isCloseTo(139.8 - 95.2, within(1e-6));
    burst(139.8);
    // Three: 45.6 s to 46.6 s; the next in 182.4 s to 186.4 s.
    assertThat(window()).isCloseTo(184.4 - 139.8, within(1e-6));
    burst(184.4);
    // Four: 45.6 s to 46.1 s; the next in 228 s to 230.5 s.
    assertThat(window()).isCloseTo(229.25 - 184.4, within(1e-6));
  }

  @Test
  void whenTheNextBoundaryIsKnownWithinTwoPercentTheProbeGoesAtItsUpperEnd() {
    wall(10, 0.1, 1, 3, 7, 15, 31, 44.9);
    accepted(45);
    assertThat(host.quotaPermits()).isEqualTo(11);
    assertThat(window()).isCloseTo(45, within(1e-6)); // no round length; the next in 89.8 s to 90 s: at 90 s
  }

  @Test
  void whenTheOneMoreIsRefusedTheQuotaHoldsAndItIsTriedAgainFourWindowsLaterThenSixteen() {
    firstWindow();
    burst(63.6);
    assertThat(refused(63.7)).isTrue(); // the 61st
    assertThat(host.quotaPermits()).isEqualTo(60);
    List<Integer> permits = new java.util.ArrayList<>();
    double at = 63.6;
    for (int window = 2; window <= 8; window++) {
      at += window();
      burst(at); // each probe accepted where the rule put it
      permits.add(host.quotaPermits());
      if (host.quotaPermits() == 61) {
        assertThat(refused(at + 0.1)).isTrue();
      }
    }
    assertThat(permits).containsExactly(60, 60, 60, 61, 60, 60, 60);
  }

  /**
   * A quota of three: three accepted at 0 s, a wall from 0.1 s to 7.6 s, the first window's probe
   * accepted at 15.6 s (the window lasts 7.6 s to 15.6 s). That window's bounds leave no time for
   * its try of one more to go alone, and the try is put off; the probe at 23.2 s is refused, the
   * one at 27.2 s accepted: the window lasts 11.6 s to 13.6 s, the next boundary lies in 34.8 s to
   * 40.8 s.
   */
  void smallQuotaKnownWithinHalfAWindow() {
    wall(3, 0.1, 0.6, 1.6, 3.6, 7.6);
    assertThat(accepted(15.6)).isTrue();
    assertThat(host.quotaPermits()).isEqualTo(3); // the try of one more put off: not with the starts
    accepted(15.65);
    accepted(15.65);
    assertThat(refused(23.2)).isTrue();
    assertThat(accepted(27.2)).isTrue();
    accepted(27.25);
    accepted(27.25);
  }

  @Test
  void R11_aSmallQuotasTryOfOneMoreGoesAloneAfterTheWindowsStartsBeforeItsWindowCanEnd() {
    smallQuotaKnownWithinHalfAWindow();
    // Alone, 1.1 shares of the longest window (13.6 s / 3) after the window began at 27.2 s: at
    // 32.187 s, before 34.8 s, the soonest the next boundary may come. The engine is told a quota of
    // three, and a window that ends there.
    assertThat(host.quotaPermits()).isEqualTo(3);
    assertThat(window()).isCloseTo(1.1 * 13.6 / 3, within(1e-6));
  }

  @Test
  void R11_aSmallQuotasTryOfOneMoreGoesAloneOnlyOnceTheWindowHasTakenItsStarts() {
    wall(3, 0.1, 0.6, 1.6, 3.6, 7.6);
    accepted(15.6);
    accepted(15.65);
    accepted(15.65);
    refused(23.2);
    accepted(27.2);
    // The window's probe alone: its other two starts not yet taken, the engine is told the window
    // lasts to the next probe, in the middle of 34.8 s to 40.8 s.
    assertThat(window()).isCloseTo(37.8 - 27.2, within(1e-6));
    accepted(27.25);
    // The third start comes after 32.187 s, when the try would have gone: nothing is tried alone
    // this time, and the next probe goes where it was.
    accepted(33.0);
    assertThat(window()).isCloseTo(37.8 - 27.2, within(1e-6));
    assertThat(host.quotaPermits()).isEqualTo(3);
  }

  @Test
  void R11_aSmallQuotasTryOfOneMoreRefusedAloneKeepsTheQuotaAndTheNextProbeWhereItWas() {
    smallQuotaKnownWithinHalfAWindow();
    assertThat(refused(27.2 + 1.1 * 13.6 / 3)).isTrue();
    assertThat(quota.active()).isTrue();
    // The next probe in the middle of 34.8 s to 40.8 s, counted from the window's start.
    assertThat(host.quotaPermits()).isEqualTo(3);
    assertThat(window()).isCloseTo(37.8 - 27.2, within(1e-6));
    assertThat(quota.heldRate()).isZero();
  }

  @Test
  void R11_aSmallQuotaWhoseTryOfOneMoreWasRefusedAloneIsCountedAtARoundLength() {
    smallQuotaKnownWithinHalfAWindow();
    refused(27.2 + 1.1 * 13.6 / 3);
    // The probe in the middle of 34.8 s to 40.8 s, accepted: the window lasts 11.6 s to 12.6 s. A
    // window's, as the refused try showed: 12 s is taken, and the next probe goes where it puts the
    // fourth boundary, a thousandth of it late.
    accepted(37.8);
    assertThat(window()).isCloseTo(48.012 - 37.8, within(1e-6));
  }

  @Test
  void R11_aSmallQuotaNotShownToBeAWindowsIsNarrowedByProbesNotTakenAtARoundLength() {
    smallQuotaKnownWithinHalfAWindow();
    // No try alone refused yet: a token bucket's walls are not ruled out, and the next probe goes in
    // the middle of where the next boundary lies, 46.4 s to 50.4 s.
    accepted(37.8);
    assertThat(window()).isCloseTo(48.4 - 37.8, within(1e-6));
  }

  @Test
  void R11_aSmallQuotasTryOfOneMoreAcceptedAloneEndsTheQuotaWithTheRatesTheWindowsAndTheTryShowed() {
    smallQuotaKnownWithinHalfAWindow();
    double alone = 27.2 + 1.1 * 13.6 / 3;
    assertThat(accepted(alone)).isFalse(); // a token bucket, refilled: the rate rule takes it
    assertThat(quota.active()).isFalse();
    assertThat(host.quotaPermits()).isZero();
    assertThat(quota.heldRate()).isCloseTo(3 / 13.6, within(1e-9));
    assertThat(quota.triedRate()).isCloseTo(4 / (alone - 27.2), within(1e-9));
  }

  @Test
  void R11_aSmallQuotasTryOfOneMorePutOffOnceGoesWithTheStartsOfTheNextWindowWhoseBoundsLeaveNoTime() {
    wall(3, 0.1, 0.6, 1.6, 3.6, 7.6);
    accepted(15.6);
    assertThat(host.quotaPermits()).isEqualTo(3); // put off
    accepted(15.65);
    accepted(15.65);
    // Accepted in the middle of where the next boundary lies, the window's bounds are no narrower:
    // the next boundary may come as soon as 22.8 s, before this window began. Put off once already,
    // the try goes with the starts.
    assertThat(accepted(23.2)).isTrue();
    assertThat(host.quotaPermits()).isEqualTo(4);
  }

  @Test
  void oneMoreThanTheQuotaAcceptedInAWindowMeansThereIsNoQuota() {
    firstWindow();
    burst(63.6);
    assertThat(accepted(63.7)).isFalse(); // the 61st, accepted: the rate rule takes it from here
    assertThat(host.quotaPermits()).isZero();
    assertThat(quota.active()).isFalse();
  }

  @Test
  void aRefusalWithinTheWindowAfterFewerThanTheQuotaBringsTheQuotaDownAndBelowThreeDropsIt() {
    firstWindow();
    accepted(63.6);
    for (int i = 1; i < 40; i++) {
      accepted(63.65);
    }
    assertThat(refused(63.7)).isTrue(); // 40 accepted: somebody else counts in it too
    assertThat(host.quotaPermits()).isEqualTo(40);

    accepted(95.2); // the probe
    accepted(95.25);
    assertThat(refused(95.3)).isFalse(); // two: no quota worth the name; the rate rule takes it
    assertThat(host.quotaPermits()).isZero();
  }

  @Test
  void S2_theAnswersOfOneBurstAreOneRunInWhateverOrderTheyArrive() {
    // Three processes of a fleet sent 32 each at 0 s: this one hears its own 32 accepted, then
    // another's 16 refused, then the third's 28 accepted (told a millisecond late), then 4 refused.
    for (int i = 0; i < 32; i++) {
      accepted(0);
    }
    for (int i = 0; i < 16; i++) {
      refused(0);
    }
    for (int i = 0; i < 28; i++) {
      assertThat(accepted(0.001)).isFalse(); // of the burst: it ends no wall, it lengthens the run
    }
    for (double t : new double[] {0.001, 0.001, 0.001, 0.001, 1, 3, 7, 15, 31.6}) {
      refused(t);
    }
    assertThat(accepted(63.6)).isTrue();

    assertThat(host.quotaPermits()).isEqualTo(61); // the burst's 60, and one more tried
  }

  @Test
  void S2_aRefusalHeardBeforeTheRestOfItsBurstBringsTheQuotaDownOnlyToWhatTheBurstGot() {
    firstWindow();
    accepted(63.6);
    for (int i = 1; i < 57; i++) {
      accepted(63.65);
    }
    assertThat(refused(63.66)).isTrue(); // the one more than 60, told before three of the 60
    assertThat(host.quotaPermits()).isEqualTo(57);
    for (int i = 0; i < 3; i++) {
      assertThat(accepted(63.65)).isTrue(); // started with it: the window held them too
    }
    assertThat(host.quotaPermits()).isEqualTo(60);
    assertThat(quota.active()).isTrue();

    assertThat(accepted(63.9)).isFalse(); // one more, later: the window held more than its quota
    assertThat(quota.active()).isFalse();
  }

  @Test
  void S2_theRestOfABurstHeardAfterItsRefusalIsOfItsWindowWhereTheFirstWallsLengthWasGuessed() {
    // A fleet's first window after the guess of a second: 13 of its burst heard accepted, then
    // its refusal, then the burst's last two accepted (another process's, told late), then the
    // refusal of a start begun with them. Read as the host's next window, the two would count the
    // windows from 5.1 s, and the refusal, two into that window, would forget the quota.
    quota.fleet(true);
    firstWallOfASecondsWindows();
    for (int i = 1; i < 13; i++) {
      accepted(5.1);
    }
    assertThat(refused(5.1, true)).isTrue();
    assertThat(host.quotaPermits()).isEqualTo(13);
    for (int i = 0; i < 2; i++) {
      assertThat(accepted(5.1)).isTrue();
    }
    assertThat(refused(5.11, true)).isTrue();

    assertThat(quota.active()).isTrue();
    assertThat(host.quotaPermits()).isEqualTo(15);
    assertThat(nextProbe(5.05)).isCloseTo(6.001, within(1e-6));
  }

  @Test
  void S2_oneMoreThanTheQuotaStartedJustBeforeTheProbeWasDueBeginsTheNextWindow() {
    twoBoundaries();
    burst(139.8);
    burst(184.4); // the next probe is due at 229.25 s, the window known within 0.5 s
    // Another process of the fleet, whose probe was due a little earlier, probed at 228.8 s: the
    // 61st accepted since 184.4 s, less than 2 % of the window before this one's probe.
    assertThat(accepted(228.8)).isTrue();
    assertThat(quota.active()).isTrue();
    assertThat(window()).as("the next probe, counted from 228.8 s").isBetween(44.0, 47.0);
    for (int i = 1; i < 60; i++) {
      assertThat(accepted(228.85)).isTrue(); // the window it began
    }
    assertThat(quota.active()).isTrue();
  }

  @Test
  void aTokenBucketThatAnswersWithinSecondsOfSlowingDownBuildsNoWall() {
    // One a second, refused at the start of each probe above it, accepted a second later.
    for (int i = 0; i < 30; i++) {
      accepted(i);
      if (i % 5 == 4) {
        refused(i + 0.5);
        refused(i + 0.7);
        refused(i + 0.9);
      }
    }
    assertThat(host.quotaPermits()).isZero();
  }

  @Test
  void aShortRunBeforeTheWallIsNoQuotaAsABucketInDebtShowsIt() {
    accepted(0); // a burst of 32 into a bucket of 1 whose refusals count: one accepted
    for (int i = 0; i < 31; i++) {
      refused(0);
    }
    for (double t : new double[] {1, 3, 7, 15, 31}) {
      refused(t);
    }
    assertThat(accepted(40)).isFalse();
    assertThat(host.quotaPermits()).isZero();
  }

  /** Probes refused while {@link #follow} ran. */
  int refusedProbes;

  /**
   * Runs the quota against a host that counts {@code permits} starts in fixed windows of
   * {@code length} s, one of them beginning at {@code phase} s, from the probe accepted at
   * {@code began} (given to the quota by the caller, the window it began the host's) until
   * {@code until} s: after each accepted probe the rest of its window's starts at once, and one
   * more when the quota tries it; each probe where the quota puts it. The starts of the accepted
   * probes, in order; the refused ones counted in {@link #refusedProbes}.
   */
  List<Double> follow(int permits, double length, double phase, double began, double until) {
    List<Double> probes = new ArrayList<>();
    long window = (long) Math.floor((began - phase) / length);
    int count = 1;
    double t = began;
    while (true) {
      for (int i = 1; i < permits; i++) {
        accepted(t + 0.05);
      }
      count += permits - 1;
      if (host.quotaPermits() > permits) {
        refused(t + 0.06); // the one more, in a window the host counts full
      }
      do {
        t = began + window();
        if (t >= until || !quota.active()) {
          return probes;
        }
        long at = (long) Math.floor((t - phase) / length);
        if (at != window) {
          window = at;
          count = 0;
        }
        if (count < permits) {
          accepted(t);
          count++;
          probes.add(t);
          began = t;
        } else {
          refused(t);
          refusedProbes++;
        }
      } while (began != t);
    }
  }

  /**
   * Asserts that the quota still holds, and that the last {@code windows} accepted probes each came
   * less than {@code within} s after the host's boundary before it, of windows of {@code length} s
   * from {@code phase} s.
   */
  void assertLastProbesWithin(List<Double> probes, int windows, double length, double phase, double within) {
    assertThat(quota.active()).isTrue();
    List<Double> last = probes.subList(probes.size() - windows, probes.size());
    assertThat(last).allSatisfy(t -> assertThat(late(t, length, phase)).isLessThan(within));
  }

  /** How long after the last boundary before it, of windows of {@code length} s from {@code phase} s, {@code t} is. */
  static double late(double t, double length, double phase) {
    double since = (t - phase) % length;
    return since < 0 ? since + length : since;
  }

  /**
   * 100 a minute, the host's windows beginning at 18.3 s and each minute after: the run of 100
   * began 41.7 s into one. The wall's probes find its end between 11.9 s and 23.1 s; the accepted
   * probes until 660 s.
   */
  List<Double> runBegunWithinAMinute() {
    wall(100, 0.1, 0.7, 5.5, 11.9);
    assertThat(accepted(23.1)).isTrue();
    return follow(100, 60, 18.3, 23.1, 660);
  }

  @Test
  void R11_aRunThatBeganWithinAWindowHasItsWindowsCountedFromTheBoundaryFound() {
    List<Double> probes = runBegunWithinAMinute();

    // Counted from the run's first start, 12, 15 and 20 s are ruled out, and then any length up to
    // 23.1 s: the windows are counted from the boundary found, and a minute is found from there.
    assertLastProbesWithin(probes, 5, 60, 18.3, 11.2 + 0.1);
    // Two of the refused: the checks that 20 s and a minute are not longer than the host's windows.
    assertThat(refusedProbes).isLessThanOrEqualTo(9);
    assertThat(probes.get(probes.size() - 1) - probes.get(probes.size() - 2)).isCloseTo(60, within(0.1));
  }

  @Test
  void R11_aRunThatBeganWithinAWindowOfAHostThatCountsByTheClockHasItsWindowsCountedByTheClock() {
    // The run begun 41.7 s into a minute of the clock, by which the host counts.
    clockAt("2026-12-06T12:00:41.700Z");

    List<Double> probes = runBegunWithinAMinute();

    // Counted from the run's first start, 12, 15 and 20 s are ruled out; by the clock, the boundary
    // found is its minute's (and shorter lengths', which probes there rule out): from the first
    // window on, each probe a thousandth of a minute after the host's boundary, where counted from
    // the boundary found they come up to 4.9 s late.
    assertLastProbesWithin(probes, probes.size(), 60, 18.3, 0.1);
    // Two of the refused: the checks that 20 s and a minute are not longer than the host's windows.
    assertThat(refusedProbes).isLessThanOrEqualTo(7);
  }

  @Test
  void R11_aRunThatBeganWithinAWindowNotCountedByTheClockHasItsWindowsCountedFromTheBoundaryFound() {
    // The same host, the clock's minute beginning 3.3 s before its windows do: by the clock, the
    // boundary found fits a minute, longer than the 30 s counted from the boundary found tries
    // first, so the clock is not taken (a host off the clock fits a longer length of it by chance,
    // which it would accept at every probe).
    clockAt("2026-12-06T12:00:45.000Z");

    List<Double> probes = runBegunWithinAMinute();

    // Counted from the boundary found, its upper end at 23.1 s: a minute from there, and, once the
    // window's bounds are narrowed to it, each minute after.
    assertThat(probes.get(0)).isCloseTo(23.1 + 60.06, within(1e-6));
    assertLastProbesWithin(probes, probes.size() - 2, 60, 18.3, 4.9);
    // Two of the refused: the checks that 20 s and a minute are not longer than the host's windows.
    assertThat(refusedProbes).isLessThanOrEqualTo(9);
  }

  /**
   * A fleet's process (SPEC S2) whose run began 23.9 s into a minute of the clock, by which the host
   * counts 100: the first wall's end found between 31.4 s and 62.17 s after the run's first start,
   * its last refusal another process's (which the rule passes on without the clock).
   */
  void fleetBegunWithinAMinuteOfTheClock() {
    quota.fleet(true);
    clockAt("2026-12-06T12:00:23.900Z");
    wall(100, 0.1, 3.75, 8.25, 15.96, 31.36);
    quota.clock(null);
    refused(31.4, true);
    assertThat(accepted(62.17)).isTrue();
  }

  @Test
  void S2_aFleetCountsItsWindowsByTheClockWhereItsNextBoundaryComesSoonerThanTheRunsCount() {
    fleetBegunWithinAMinuteOfTheClock();
    // From the run's first start a minute fits, its next boundary at 120 s; by the clock the
    // boundary found is the minute's at 36.1 s, and the next at 96.1 s: probed there.
    assertThat(window()).isCloseTo(96.16 - 62.17, within(1e-6));
  }

  @Test
  void S2_aFleetsProbeRefusedWhereTheClockPutTheBoundaryCountsFromTheRunsFirstStartAgain() {
    fleetBegunWithinAMinuteOfTheClock();
    assertThat(refused(96.16)).isTrue();
    // The clock's phase was wrong, not the run's count, which every process of the fleet kept: its
    // next boundary probed, at 120 s of a minute's count from the run's first start, as before the
    // clock was read, once the minute's check, 45 s after the window began, is refused.
    assertThat(quota.active()).isTrue();
    assertThat(nextProbe(62.17)).isCloseTo(62.17 + 45, within(1e-6));
    assertThat(refused(107.17)).isTrue();
    assertThat(nextProbe(62.17)).isCloseTo(120.06, within(1e-6));
  }

  @Test
  void R11_aLengthNoRoundOneFitsIsNarrowedByProbesNotTakenForALongerRoundOne() {
    // 45 each 90 s from 0 s: the first boundary lies between 48 s and 96 s, and a minute, the round
    // length there, is refused where it puts the next; 90 s is not round.
    wall(45, 0.1, 3, 6, 12, 24, 48);
    assertThat(accepted(96)).isTrue();

    List<Double> probes = follow(45, 90, 0, 96, 1800);

    assertLastProbesWithin(probes, 4, 90, 0, 0.02 * 90);
  }

  @Test
  void R11_aCountLongerThanTheHostsWindowsIsCheckedAndTheWindowsNarrowedToTheHosts() {
    // 45 each 90 s from 0 s: the first wall's last refusal at 65 s, its end found at 125 s. Two
    // minutes is the one round length there, and a host of 90 s accepts every probe of it (each
    // meets a window nobody started in), one of its windows in four unused for good. The window
    // not known to last 90 s, a start goes there first, 90 s after the window began: accepted, a
    // window began sooner than two minutes put it, and the windows are narrowed to the host's.
    wall(45, 0.1, 3, 6, 12, 24, 48, 65);
    assertThat(accepted(125)).isTrue();
    assertThat(nextProbe(125)).isCloseTo(125 + 90, within(1e-6));

    List<Double> probes = follow(45, 90, 0, 125, 3600);

    assertLastProbesWithin(probes, 10, 90, 0, 0.02 * 90);
  }

  @Test
  void S2_aFleetsWindowsThatGrewToALengthNoRoundOneFitsAreNarrowedByProbesNotTakenForALongerRoundOne() {
    // 45 each 90 s from the clock's midnight, met by a fleet then: the first boundary lies between
    // 45.4 s and 90.5 s, where the clock's minute fits.
    quota.fleet(true);
    clockAt("2026-12-06T00:00:00Z");
    wall(45, 0.35, 0.65, 5.17, 11.62, 22.89, 45.42);
    assertThat(accepted(90.49)).isTrue();
    // Refused where the minute put the next boundary, and again: nothing counted from the run's
    // first start fits, and the windows are counted from the boundary found, by 188.08 s.
    assertThat(refused(nextProbe(90.49))).isTrue();
    assertThat(refused(nextProbe(90.49))).isTrue();
    double found = nextProbe(90.49);
    assertThat(found).isCloseTo(188.08, within(0.01));
    assertThat(accepted(found)).isTrue();

    // Two minutes, which a host of 90 s accepts at every probe, would leave every fourth of its
    // windows unused for good: the count is held to the host's windows by the probes a minute
    // rules out and by those that narrow where the windows begin, each window's probe coming
    // closer to the host's boundary, within a fiftieth of its length in an hour.
    List<Double> probes = follow(45, 90, 0, found, 3600);

    assertLastProbesWithin(probes, 4, 90, 0, 0.02 * 90);
    for (int i = 1; i < probes.size(); i++) {
      assertThat(probes.get(i) - probes.get(i - 1)).as("%s", probes).isLessThan(120);
    }
  }

  @Test
  void R11_countedFromABoundaryFoundARoundLengthIsTakenOnlyOnceNoMuchShorterOneFits() {
    // 45 each 45 s, the host's windows beginning at 37.7 s: the run began 7.3 s into one. From the
    // boundary found, a minute's probe would always come after the host's next boundary: it is
    // not taken while the window may last much less.
    wall(45, 0.1, 3, 6, 12, 24);
    assertThat(accepted(48)).isTrue();

    List<Double> probes = follow(45, 45, 37.7, 48, 1200);

    assertLastProbesWithin(probes, 4, 45, 37.7, 0.02 * 60);
  }

  @Test
  void S2_inAFleetMoreThanTheQuotaLateInAWindowIsTheHostsNextWindowNotNoQuota() {
    quota.fleet(true);
    firstWindow();
    burst(63.6);
    assertThat(refused(108.6)).isTrue(); // the minute's check, three quarters of it in
    burst(120.06); // a minute holds
    // Another process's start at 160 s, 40 s into the window this count began at 120.06 s, is
    // accepted beyond the 60: the host's windows begin earlier than the run's first start put them.
    assertThat(accepted(160)).isTrue();

    assertThat(quota.active()).isTrue();
    assertThat(nextProbe(160)).isCloseTo(160 + 60.06, within(1e-6));
  }

  @Test
  void S2_aFleetsProcessCountsTheWindowsFromTheBoundaryFoundOnceNothingCountedFromTheRunsFirstStartFits() {
    // The first test's host, met by a process of a fleet: once 12, 15 and 20 s are ruled out and
    // the boundary is searched for within the 23.1 s the run's first start allows, the windows are
    // counted from the boundary found, as a process alone counts them, and a minute found from
    // there, where the fleet's processes kept the run's count and searched for the windows where
    // they were not (the first probe of that search in the middle of 40.02 s to 63.12 s).
    quota.fleet(true);
    wall(100, 0.1, 0.7, 5.5, 11.9);
    assertThat(accepted(23.1)).isTrue();
    // (38.1 s: the check of 20 s, three quarters of it after the window began.)
    for (double probe : new double[] {24.012, 30.015, 38.1, 40.02}) {
      assertThat(nextProbe(23.1)).isCloseTo(probe, within(1e-6));
      assertThat(refused(probe)).isTrue();
    }
    assertThat(nextProbe(23.1)).isNotCloseTo((40.02 + 63.12) / 2, within(0.01));

    List<Double> probes = follow(100, 60, 18.3, 23.1, 660);

    assertLastProbesWithin(probes, 5, 60, 18.3, 11.2 + 0.1);
    assertThat(probes.get(probes.size() - 1) - probes.get(probes.size() - 2)).isCloseTo(60, within(0.1));
  }

  /**
   * 15 a second, the host's windows beginning at {@code phase} s (under 0.25 s) and each second
   * after: the run of 15 accepted from 0 s, the wall's refusals until 0.5 s, and its first probe,
   * 3 s and more after it began, accepted at 5.05 s.
   */
  void firstWallOfASecondsWindows() {
    wall(15, 0.25, 0.25, 0.25, 0.3, 0.5);
    assertThat(accepted(5.05)).isTrue();
  }

  @Test
  void R11_aQuotaOfASecondIsLearnedFromTheFirstWallItsProbeFindsSecondsLateAndCountedByTheLength() {
    // The wall lasted 4.8 s, less than a later wall must: the host's first one ends at its first
    // probe. It lies between 0.5 s and 5.05 s: a second fits, and five of them lie in it.
    firstWallOfASecondsWindows();
    assertThat(host.quotaPermits()).isEqualTo(16);
    assertThat(nextProbe(5.05)).isCloseTo(6.001, within(1e-6));

    List<Double> probes = follow(15, 1, 0, 5.05, 120);

    assertLastProbesWithin(probes, 100, 1, 0, 0.002);
    assertThat(refusedProbes).isZero();
  }

  /**
   * Asserts that a later wall like the first one above, from {@code from} s (15 accepted, refused
   * until half a second on, a probe accepted 4.05 s on), makes no quota: it lasted under 5 s.
   */
  void assertALaterWallOfASecondMakesNoQuota(double from) {
    for (int i = 0; i < 15; i++) {
      accepted(from);
    }
    refused(from + 0.25);
    refused(from + 0.25);
    refused(from + 0.5);

    assertThat(accepted(from + 4.05)).isFalse();
    assertThat(quota.active()).isFalse();
  }

  @Test
  void R11_aWallOfASecondAfterAQuotaForgottenMakesNoQuota() {
    firstWallOfASecondsWindows();
    assertThat(refused(5.1)).isFalse(); // fewer than half of the 15 accepted: forgotten

    assertALaterWallOfASecondMakesNoQuota(10);
  }

  @Test
  void R11_aWallOfASecondAfterAWallThatMadeNoQuotaMakesNoQuota() {
    wall(15, 0.25, 0.3);
    accepted(0.9); // two refusals: no window's wall

    assertALaterWallOfASecondMakesNoQuota(1.0);
  }

  @Test
  void R11_aWallOfASecondAfterAQuotaDroppedMakesNoQuota() {
    firstWindow();
    burst(63.6);
    assertThat(accepted(63.7)).isFalse(); // one more than the quota accepted: none

    assertALaterWallOfASecondMakesNoQuota(70);
  }

  @Test
  void R11_whereTheFirstWallsGuessedLengthPutsABoundaryAProbeRefusedSearchesForItWithinThatLength() {
    // The host's windows begin at 0.1 s and each second after, so the window the probe at 5.05 s
    // was accepted in ended at 5.1 s, where the rest of the quota began the next: the probe at
    // 6.001 s is refused. The boundary is searched for within a second of it, not ruled out.
    firstWallOfASecondsWindows();
    for (int i = 1; i < 15; i++) {
      accepted(5.1);
    }
    refused(5.11); // the one more
    assertThat(refused(6.001)).isTrue();

    assertThat(nextProbe(5.05)).isCloseTo(6.501, within(1e-6));
    assertThat(accepted(6.501)).isTrue();
    assertThat(nextProbe(6.501)).isCloseTo(7.502, within(1e-6));
  }

  @Test
  void R11_aQuotaGuessedFromAFirstWallThatItsFirstWindowDoesNotHoldIsForgotten() {
    // A bucket of 15 that refills one a second: the first window after the guess accepts 4.
    firstWallOfASecondsWindows();
    for (int i = 1; i < 4; i++) {
      accepted(5.1);
    }

    assertThat(refused(5.1)).as("the rate rule's to count").isFalse();
    assertThat(quota.active()).isFalse();
  }

  @Test
  void R11_aQuotaGuessedFromAFirstWallWhoseBoundaryIsNotFoundWithinItsLengthIsForgottenAndLearnedAgain() {
    // 45 each 45 s, the run of 45 met 3.3 s before the host's boundary: the wall ended by 5.05 s
    // fits a second, but the window after it lasts until 48.3 s.
    wall(45, 0.1, 0.15, 0.4);
    assertThat(accepted(5.05)).isTrue();
    for (int i = 1; i < 45; i++) {
      accepted(5.1);
    }
    refused(5.11); // the one more
    for (double probe : new double[] {6.001, 6.501, 6.751, 6.876}) {
      assertThat(nextProbe(5.05)).isCloseTo(probe, within(1e-6));
      assertThat(refused(probe)).isTrue();
    }
    assertThat(nextProbe(5.05)).isCloseTo(7.001, within(1e-6));

    assertThat(refused(7.001)).isFalse();
    assertThat(quota.active()).isFalse();
    // The 45 of its window were a run, and the refusals since a wall that makes a quota when it ends.
    refused(20);
    assertThat(accepted(48.35)).isTrue();
    assertThat(host.quotaPermits()).isEqualTo(45); // one more was tried, and refused, at 5.11 s
  }

  @Test
  void R11_aRunThatTheFirstWindowAfterTheGuessHoldsFewerOfSpannedABoundaryAndAShorterLengthIsGuessed() {
    // 100 a second, the host's windows beginning at 0.39 s and each second after: the run of 134
    // from 0 s to 0.74 s spanned the boundary at 0.39 s, and its wall's last refusal at 1.05 s,
    // counted from 0 s, rules a second out: two seconds are guessed. The first window after it
    // holds 100: the run spanned a boundary, and a second is guessed again.
    for (int i = 0; i < 134; i++) {
      accepted(i * 0.0055);
    }
    refused(0.8);
    refused(0.8);
    refused(1.05);
    assertThat(accepted(4.8)).isTrue();
    assertThat(nextProbe(4.8)).isCloseTo(6.002, within(1e-6));

    List<Double> probes = follow(100, 1, 0.39, 4.8, 120); // its window's 99 more, then a refusal

    assertThat(host.quotaPermits()).isBetween(100, 101);
    assertLastProbesWithin(probes, 50, 1, 0.39, 0.5);
    assertThat(probes.get(probes.size() - 1) - probes.get(probes.size() - 2)).isCloseTo(1, within(0.01));
  }

  @Test
  void R11_moreThanTheQuotaInTheFirstWindowAfterTheGuessIsTheHostsNextWindowNotNoQuota() {
    // 50 a second, the host's windows beginning at 0.63 s and each second after: the first wall's
    // probe is accepted at 4.625 s, at the end of a window, and the rest of the quota, started
    // at 4.675 s, is the next window's: 51 accepted counted from the probe, one more than the quota.
    wall(50, 0.25, 0.25, 0.25, 0.5);
    assertThat(accepted(4.625)).isTrue();
    for (int i = 0; i < 50; i++) {
      assertThat(accepted(4.675)).isTrue();
    }

    assertThat(quota.active()).isTrue();
    assertThat(nextProbe(4.675)).isCloseTo(4.675 + 1.001, within(1e-6));
  }

}

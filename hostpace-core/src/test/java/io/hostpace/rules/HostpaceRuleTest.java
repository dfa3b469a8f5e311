package io.hostpace.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import org.junit.jupiter.api.Test;

/**
 * The default learning rule fed {@code (now, outcome)} by hand, as the engine's {@code teach()}
 * does: times in seconds from a random origin near the wrap of the nanosecond count, intervals in
 * nanoseconds. Each answer is 50 ms after its start.
 */
class HostpaceRuleTest {

  static final long ORIGIN = Long.MAX_VALUE - 20_000_000_000L; // wraps 20 s in
  final LearningRule rule = LearningRule.hostpace();
  final HostState host = HostStateStore.inMemory().open("qlever.test");

  static long at(double seconds) {
    return ORIGIN + Math.round(seconds * 1e9);
  }

  long refused(double seconds) {
    return teach(rule.onRefusal(at(seconds), at(seconds - 0.05), host), seconds);
  }

  long refusedStartedAt(double seconds, double startedAt) {
    return teach(rule.onRefusal(at(seconds), at(startedAt), host), seconds);
  }

  long answeredStartedAt(double seconds, double startedAt) {
    return teach(rule.onAnswer(at(seconds), at(startedAt), host), seconds);
  }

  long answered(double seconds) {
    return teach(rule.onAnswer(at(seconds), at(seconds - 0.05), host), seconds);
  }

  /**
   * Accepted answers at the host's pace, each started an interval after the one before from a
   * start at {@code from}, up to the one answered at {@code seconds} (started 50 ms before), whose
   * interval is returned: the engine's with requests waiting, the pace tried all along (SPEC R16).
   */
  long answeredAtThePace(double from, double seconds) {
    return answeredAtThePace(rule, host, from, seconds);
  }

  /** {@link #answeredAtThePace(double, double)} on any host, each answer's interval taught to it. */
  static long answeredAtThePace(LearningRule rule, HostState host, double from, double seconds) {
    double start = from;
    while (host.interval() > 0) {
      double next = start + host.interval() / 1e9;
      if (next >= seconds - 0.05 - 1e-6) {
        break;
      }
      host.interval(rule.onAnswer(at(next + 0.05), at(next), host), at(next + 0.05));
      start = next;
    }
    long last = rule.onAnswer(at(seconds), at(seconds - 0.05), host);
    host.interval(last, at(seconds));
    return last;
  }

  private long teach(long next, double seconds) {
    if (next != host.interval()) {
      host.interval(next, at(seconds));
    }
    return next;
  }

  @Test
  void aHostThatNeverRefusedIsNotPaced() {
    assertThat(answered(0.05)).isZero();
    assertThat(answered(0.10)).isZero();
    assertThat(rule.toString()).isEqualTo("hostpace");
  }

  @Test
  void aHostThatOnlyAcceptedKeepsItsLastAnswersAloneAndItsFirstRefusalMeasuresFromThem() {
    for (int i = 0; i < 8; i++) { // one a second, nothing refused: nothing paces it
      assertThat(answeredStartedAt(i + 0.05, i)).isZero();
    }
    assertThat(host.memory()).isInstanceOf(HostpaceRule.Samples.class).isNotInstanceOf(HostpaceRule.Memory.class);
    // The eight accepted in a row at our pace measure the host's rate: 0.96 of one a second.
    assertThat(refusedStartedAt(8.1, 8.05)).isEqualTo(1_041_666_667L);
    assertThat(host.memory()).isInstanceOf(HostpaceRule.Memory.class);
  }

  @Test
  void theFirstRefusalStartsSlowlyAt250msAndABurstRefusedTogetherCountsOnce() {
    assertThat(refusedStartedAt(0.05, 0)).isEqualTo(250_000_000L);
    assertThat(refusedStartedAt(0.05, 0)).isEqualTo(250_000_000L);
    assertThat(refusedStartedAt(0.06, 0)).isEqualTo(250_000_000L);
  }

  @Test
  void beforeAMeasurementTheRateDoublesEverySecondAsTcpsSlowStart() {
    refusedStartedAt(0.05, 0);
    assertThat(answeredAtThePace(0, 1.05)).isEqualTo(125_000_000L);      // 8 a second
    assertThat(answeredAtThePace(1.0, 2.05)).isEqualTo(62_500_000L);     // 16
    assertThat(answeredAtThePace(2.0, 3.05)).isEqualTo(31_250_000L);     // 32
  }

  @Test
  void whileRefusedTheRateOfAcceptedAnswersIsTheHostsRateAndTheRuleSettlesUnderIt() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);   // accepted one a second while sending 32 a second
    assertThat(refused(3.5)).isEqualTo(1_041_666_667L);   // 0.96 × 1.0 a second
  }

  @Test
  void afterADropTheRateClimbsConcaveToThePlateauAt99PercentThenProbesConvexBeyond() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);
    refused(3.5);                                                              // base 0.96, wmax 0.99, K 10 s
    assertThat(answeredAtThePace(3.45, 8.5)).isCloseTo(1_013_941_698L, within(1_000L));    // 0.98625 a second
    assertThat(answeredAtThePace(8.45, 13.5)).isCloseTo(1_010_101_010L, within(1_000L));   // 0.99: the plateau at K
    assertThat(answeredAtThePace(13.45, 16.0)).isCloseTo(1_008_525_189L, within(1_000L));  // 0.99155: still nearly flat
    assertThat(answeredAtThePace(15.95, 23.5)).isCloseTo(918_273_646L, within(1_000L));    // 1.089 at 2K: probing
  }

  @Test
  void R16_theClimbCountsOnlyTheTimeThePaceWasTriedNotWhileAnotherLimitHeldTheStarts() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);
    refused(3.5);                                                              // base 0.96, wmax 0.99, K 10 s
    // Another limit (a rate given by key, spent for the minute) holds the starts: one each 30 s.
    answeredStartedAt(33.5, 33.45);
    long held = answeredStartedAt(63.5, 63.45);
    // Of the minute since the drop, one interval a start was the pace tried: still climbing to the
    // plateau (0.99), where a minute counted whole would have probed far beyond it.
    assertThat(held).isGreaterThan(1_010_101_010L).isLessThan(1_041_666_667L);
    // Asked at its pace from then on, it climbs on from there: still under the plateau at 70 s,
    // and only just beyond it at 75 s, about K of the pace tried after the drop.
    assertThat(answeredAtThePace(63.45, 70.0)).isGreaterThan(1_010_101_010L);
    assertThat(answeredAtThePace(69.95, 75.0)).isLessThan(1_010_101_010L).isGreaterThan(1_000_000_000L);
  }

  @Test
  void R16_theFleetsStartsHeardInTheMeantimeAreThePaceTried() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);
    refused(3.5);
    // This process's own starts come 30 s apart, but the fleet's others start the host each second.
    for (double t = 4.5; t < 63.5; t += 1) {
      rule.onAnswerHeard(at(t), at(t - 0.05), host);
      if (Math.abs(t - 33.5) < 0.01) {
        answeredStartedAt(33.5, 33.45);
      }
    }
    // So the minute counts whole: beyond the plateau, probing.
    assertThat(answeredStartedAt(63.5, 63.45)).isLessThan(1_010_101_010L);
  }

  @Test
  void aRefusalMetOnlyWhileProbingAtTheSameMeasuredRateDoublesTheTimeToThePlateau() {
    refusedStartedAt(0.05, 0);
    for (double t = 1.05; t < 3.1; t++) {
      answered(t);
    }
    refused(3.5);
    for (double t = 4.5; t < 23.6; t++) {
      answered(t);   // accepted one a second, whatever we sent
    }
    // sent 1.089 a second, accepted 1.0: back to 0.96, and K from 10 s to 20 s
    assertThat(refused(24.0)).isEqualTo(1_041_666_667L);
    assertThat(answeredAtThePace(23.95, 34.0)).isCloseTo(1_013_941_698L, within(1_000L));  // halfway up at 10 s, not at 5 s
    assertThat(answeredAtThePace(33.95, 44.0)).isCloseTo(1_010_101_010L, within(1_000L));  // the plateau, now 20 s after
  }

  @Test
  void R11_aQuotaThatAWindowTookMoreThanEndsInTheSlowStartNotUnpaced() {
    // Three accepted at once, then a wall of refusals for 7 s ended by an accepted answer: a quota of
    // three a window. Two more accepted in that window, and the one more its first window tries:
    // more than the quota, so there was none (a bucket whose debt looked like a window, say). What
    // waited behind the quota is paced from the slow start, four a second, not started all at once.
    for (int i = 0; i < 3; i++) {
      answeredStartedAt(0.05, 0);
    }
    for (double t : new double[] {0.1, 1, 3, 7}) {
      refused(t);
    }
    assertThat(answeredStartedAt(10.05, 10)).isZero();      // the quota spaces the starts
    for (int i = 0; i < 2; i++) {
      assertThat(answeredStartedAt(10.1, 10.05)).isZero();
    }
    assertThat(answeredStartedAt(10.1, 10.05)).isEqualTo(250_000_000L);
  }

  /**
   * A quota of three learned and followed as {@code WindowQuotaTest} has it (the window lasts 11.6 s
   * to 13.6 s from the third boundary, at 27.2 s), and its try of one more, alone at 32.187 s,
   * accepted: the interval the rule paces the host at then.
   */
  long smallQuotasTryAcceptedAlone() {
    for (int i = 0; i < 3; i++) {
      answeredStartedAt(0.05, 0);
    }
    for (double t : new double[] {0.1, 0.6, 1.6, 3.6, 7.6}) {
      refusedStartedAt(t + 0.05, t);
    }
    for (double t : new double[] {15.6, 15.65, 15.65}) {
      assertThat(answeredStartedAt(t + 0.05, t)).isZero(); // the quota spaces the starts
    }
    refusedStartedAt(23.25, 23.2);
    for (double t : new double[] {27.2, 27.25, 27.25}) {
      answeredStartedAt(t + 0.05, t);
    }
    double alone = 27.2 + 1.1 * 13.6 / 3;
    return answeredStartedAt(alone + 0.05, alone);
  }

  @Test
  void R11_aSmallQuotaEndedByItsTryOfOneMoreAcceptedAloneIsPacedFromWhatItsWindowsHeldClimbingToTwiceThat() {
    // Three a window of at most 13.6 s: 0.22 a second, climbing to 0.44 (the try showed four in 4.99 s).
    assertThat(smallQuotasTryAcceptedAlone()).isCloseTo(Math.round(13.6 / 3 * 1e9), within(1_000L));
    double from = 32.187 + 0.05;
    assertThat(answeredAtThePace(32.187, from + 10)).isCloseTo(Math.round(13.6 / 6 * 1e9), within(5_000_000L));
  }

  @Test
  void R11_aSmallQuotaEndedByItsTryOfOneMoreAcceptedAloneIsABucketMeasuredOverItsCycles() {
    // Paced as the rule says from the try: twelve accepted, one refused, eight accepted, one refused.
    // The gaps of the last eight read 0.62 a second, the cycle between the two refusals 0.55: under
    // 0.9 of the gaps, the cycle is the rate measured, as for a bucket of a large burst (R15), and
    // the pace drops under it.
    long next = smallQuotasTryAcceptedAlone();
    double t = 32.187 + 0.05;
    for (int i = 0; i < 12; i++) {
      t += next / 1e9;
      next = answeredStartedAt(t + 0.05, t);
    }
    t += next / 1e9;
    next = refusedStartedAt(t + 0.05, t);
    double cycleFrom = t;
    for (int i = 0; i < 8; i++) {
      t += next / 1e9;
      next = answeredStartedAt(t + 0.05, t);
    }
    t += next / 1e9;
    double cycle = 8 / (t - cycleFrom);
    assertThat(refusedStartedAt(t + 0.05, t)).isCloseTo(Math.round(1e9 / (0.96 * cycle)), within(1_000_000L));
  }

  @Test
  void R13_requestsStartedTogetherThatAreAcceptedMeasureNoRateHoweverApartTheyAnswer() {
    // Five started at 0 s, answered 10 to 18 ms later as their round trips differ; the sixth, of
    // the same moment, refused. Those answers came 2 ms apart, and the host's rate is not five
    // hundred a second: nothing is measured, so the rule starts slowly, as at a first refusal (its
    // 250 ms lengthened by the spread of those round trips, at most 3 %).
    for (int i = 0; i < 5; i++) {
      answeredStartedAt(0.010 + 0.002 * i, 0);
    }
    assertThat(refusedStartedAt(0.019, 0)).isBetween(250_000_000L, 257_500_000L);
  }

  @Test
  void R13_theIntervalsLeaveRoomForTheSpreadOfTheHostsRoundTripsUpToThreePercent() {
    refusedStartedAt(0.05, 0);
    answeredStartedAt(1.05, 1.0);     // a round trip of 50 ms
    answeredStartedAt(2.06, 2.0);     // 60 ms
    answeredStartedAt(3.05, 3.0);
    // 0.96 × 1.0 a second, as without the spread, and 10 ms more: the longest trip less the shortest.
    assertThat(refused(3.5)).isEqualTo(1_041_666_667L + 10_000_000L);
    // 150 ms: a spread of 100 ms, of which 3 % of the interval at most, on the climb from the drop.
    long climbing = Math.round(1e9 / (0.99 - 0.03 * Math.pow(1 - 1.1 / 10, 3)));
    assertThat(answeredStartedAt(4.6, 4.45)).isEqualTo(climbing + (long) (0.03 * climbing));
  }

  /**
   * A host that took one a second, refused, then accepted one: the refusals that follow are a run
   * after fewer than three accepted (after three or more they would be a wall, R11's).
   */
  private void pacedThenAcceptedOne() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);
    refused(3.5);
    answered(4.6);
  }

  @Test
  void R14_aRunOfRefusalsWaitsAsManyIntervalsAsItsRefusalsUpToThreeOnceWithoutCompoundingTheCuts() {
    pacedThenAcceptedOne();
    long first = refused(5.7);   // the first of a run: cut to 0.7 of the pace (refused soon after a drop), no wait
    // Each next refusal is cut from the pace meant, not from the wait, and the next start waits
    // as many of those intervals as the run has refusals, three at the most.
    assertThat(refused(6.9)).isCloseTo(2 * Math.round(first / 0.7), within(100L));
    assertThat(refused(9.5)).isCloseTo(3 * Math.round(first / 0.49), within(100L));
    assertThat(refused(14.0)).isCloseTo(3 * Math.round(first / 0.343), within(100L));
    // Accepted: paced from the pace meant, climbing from the last drop's base, not from its wait.
    double base = 0.343 * 1e9 / first;
    double wmax = 0.99 * 0.49 * 1e9 / first;
    double rate = wmax - (wmax - base) * Math.pow(1 - (20.0 - 14.0) / 10, 3);
    assertThat(answered(20.0)).isCloseTo(Math.round(1e9 / rate), within(1_000L));
  }

  @Test
  void R14_whileARunsWaitLastsTheHostsPaceIsTheIntervalMeantWhichAStoreKeepsNotTheWait() {
    pacedThenAcceptedOne();
    long first = refused(5.7);
    assertThat(host.pace()).isEqualTo(first); // no wait: the pace is the interval
    long waiting = refused(6.9);
    assertThat(host.interval()).isEqualTo(waiting);
    assertThat(host.pace()).isEqualTo(waiting / 2).isCloseTo(Math.round(first / 0.7), within(100L));
    long next = answered(6.9 + waiting / 1e9 + 0.05);
    assertThat(host.pace()).isEqualTo(next);
  }

  @Test
  void R14_theRunsWaitsDoNotCountAsTroubleSoAnAnswerAfterThemClimbsAsAfterADrop() {
    pacedThenAcceptedOne();
    long first = refused(5.7);
    long waiting = refused(6.9);   // two intervals of first / 0.7: one of them more than the pace
    double answeredAt = 6.9 + waiting / 1e9 + 0.05;
    assertThat(answeredAt - 5.7).isGreaterThan(5.0);   // nothing accepted for over 5 s, but
    assertThat(answeredAt - 5.7 - waiting / 2e9).isLessThan(5.0);   // under 5 s without the wait
    // So not after trouble (which would double the pace at once): the climb from the drop.
    double base = 0.7 * 1e9 / first;
    double wmax = 0.99 * 1e9 / first;
    double rate = wmax - (wmax - base) * Math.pow(1 - (answeredAt - 6.9) / 10, 3);
    assertThat(answered(answeredAt)).isCloseTo(Math.round(1e9 / rate), within(1_000L));
  }

  @Test
  void R14_anAcceptedAnswerEndsTheRunSoTheNextRefusalIsTheFirstOfANewOne() {
    pacedThenAcceptedOne();
    long first = refused(5.7);
    answered(6.9);
    long paced = host.interval();
    assertThat(refused(8.0)).isCloseTo(Math.round(paced / 0.7), within(100L));   // cut alone, no wait
    assertThat(refused(9.2)).isCloseTo(2 * Math.round(paced / 0.49), within(100L));
    assertThat(first).isPositive();
  }

  @Test
  void R14_aRefusalStartedBeforeTheLastDropLeavesTheRunsWaitAsItIs() {
    pacedThenAcceptedOne();
    long first = refused(5.7);
    long waiting = refused(6.9);
    assertThat(refusedStartedAt(7.0, 6.0)).isEqualTo(waiting);
    // And what the next refusal cuts is still the pace meant, not the wait.
    assertThat(refused(9.5)).isCloseTo(3 * Math.round(first / 0.49), within(100L));
  }

  @Test
  void R14_aRefusalAnotherProcessOfTheFleetMetNeitherCountsInTheRunNorWaits() {
    pacedThenAcceptedOne();
    long first = refused(5.7);
    long heard = teach(rule.onRefusalHeard(at(6.9), at(6.85), host), 6.9);
    assertThat(heard).isCloseTo(Math.round(first / 0.7), within(100L));   // cut, not waited
    // This process's own next refusal is the second of its run.
    assertThat(refused(9.5)).isCloseTo(2 * Math.round(first / 0.49), within(100L));
  }

  @Test
  void R14_aWallAfterARunOfThreeOrMoreIsProbedAsAWindowsNotWaitedAsARun() {
    for (double t = 0.1; t < 1.25; t += 0.1) {
      answeredStartedAt(t + 0.05, t);   // a run of twelve at 10 a second
    }
    refusedStartedAt(1.35, 1.3);
    // The wall's second refusal: its end probed 3.2 s after the wall began (R11), not waited on twice.
    assertThat(refusedStartedAt(1.45, 1.4)).isEqualTo(3_100_000_000L);
  }

  /**
   * A memory whose last drop, at a refusal of the request started at 0 s, set {@code interval} s,
   * {@code accepted} accepted since; {@code run} accepted at first contact.
   */
  static HostpaceRule.Memory cycle(double interval, int accepted, int run) {
    HostpaceRule.Memory memory = new HostpaceRule.Memory();
    memory.cycleFrom = at(0);
    memory.cycleInterval = Math.round(interval * 1e9);
    memory.cycleAccepted = accepted;
    memory.runAccepted = run;
    return memory;
  }

  @Test
  void R15_whatACycleBetweenTwoRefusalsAcceptedIsTheRateABucketRefilledAt() {
    // Three accepted 3.7 s apart after the refused start at 0 s, the next refused at 14.5 s.
    assertThat(cycle(3.7, 3, 10).cycleRate(at(14.5), 0)).isCloseTo(3 / 14.5, within(1e-9));
  }

  @Test
  void R15_aCycleWithAGapOfMoreThanTwiceItsIntervalOnAverageSaysNothing() {
    // Three accepted in 40 s at an interval of 3.7 s: there was less to send.
    assertThat(cycle(3.7, 3, 10).cycleRate(at(40), 0)).isNaN();
    assertThat(cycle(3.7, 1, 10).cycleRate(at(7.4), 0)).as("one accepted").isNaN();
  }

  @Test
  void R15_aCycleInWhichTheBucketCouldHaveFilledUpWhileThePaceWasUnderItSaysNothing() {
    // 480 accepted in 28.4 s from a drop to 14.9 a second: up to 57 tokens could have piled up
    // under that pace, more than the host's first run showed it holds.
    assertThat(cycle(1 / 14.9, 480, 10).cycleRate(at(28.4), 0)).isNaN();
    assertThat(cycle(1 / 14.9, 480, 100).cycleRate(at(28.4), 0)).isCloseTo(480 / 28.4, within(1e-9));
  }

  @Test
  void R15_aBucketShownByAQuotasTryPiledTokensUpOnlyWhileItsClimbWasUnderTheCyclesRate() {
    // Eight accepted in 14.7 s after a drop to 0.3 a second: 0.54 a second. Had the whole cycle gone
    // at the drop's pace, 3.6 tokens could have piled up, more than the first run's 3: nothing said.
    // Shown to be a bucket (its small quota's try accepted alone), its pace climbing to 1.56 a
    // second, only the climb's first fifth was under 0.54 a second: 0.35 tokens.
    HostpaceRule.Memory memory = cycle(1 / 0.3, 8, 3);
    long climbedTo = Math.round(1e9 / 1.56);
    assertThat(memory.cycleRate(at(14.7), climbedTo)).isNaN();
    memory.refilled = true;
    assertThat(memory.cycleRate(at(14.7), climbedTo)).isCloseTo(8 / 14.7, within(1e-9));
    assertThat(memory.cycleRate(at(14.7), Math.round(1e9 / 0.5))).as("never past the rate").isNaN();
  }

  @Test
  void R14_aBucketRefusingAgainRightAfterADropToItsCyclesRateWentIntoDebtForThatRefusalItsPaceIsKeptAndWaitedOn() {
    // Shown to be a bucket (its quota's try accepted alone): 60 accepted since the drop that began
    // the cycle at 0 s, the last eight 0.7 s apart as its stored tokens let them through.
    HostpaceRule.Memory memory = cycle(1.1, 60, 3);
    memory.refilled = true;
    memory.epoch = at(0);
    memory.base = 1 / 1.1;
    memory.wmax = 0.95;
    memory.k = 20;
    for (int i = 0; i < 8; i++) {
      double start = 64.4 + 0.7 * i;
      memory.answered(at(start + 0.05), at(start), false);
    }
    host.memory(memory);
    host.interval(700_000_000L, at(60));
    // Refused at 70 s: the cycle's rate, 60 in 70 s, is the host's, not the gaps' 1.43 a second.
    long dropped = refusedStartedAt(70.05, 70.0);
    assertThat(dropped).isCloseTo(Math.round(1e9 / (0.96 * 60 / 70)), within(1_000L));
    double k = memory.k;
    // Refused again at the next start, nothing accepted between: a bucket that counts refusals went
    // into debt for the one before. The pace is kept, the time to the plateau with it, and the next
    // start waits two intervals (without this, cut to 0.7 of it and probed as a wall).
    assertThat(refusedStartedAt(71.3, 71.25)).isEqualTo(2 * dropped);
    assertThat(host.pace()).isEqualTo(dropped);
    assertThat(memory.k).isEqualTo(k);
  }

  @Test
  void theMeasuredRateIsTheMedianGapSoSlowGapsWhileNotRefusedDoNotLowerIt() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(6.05);   // a 4 s gap: we had nothing to send
    answered(7.05);
    assertThat(refused(7.5)).isEqualTo(1_041_666_667L);   // gaps 1, 1, 4, 1: the median is 1 s
  }

  @Test
  void R4_refusalsBetweenTheAcceptedAnswersBoundTheHostsIntervalAndTheRateIsTakenFromTheMiddle() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.55);
    answered(4.05);   // 1.5 s apart, each after refusals and our wait after them
    // Refused 0.85 s after the last accepted answer: the interval lies between 0.85 and 1.5 s.
    assertThat(refused(4.9)).isEqualTo(1_223_958_333L);   // 0.96 of one over 1.175 s
  }

  @Test
  void R4_aRefusalAfterARunAcceptedAtOurPaceDropsToJustUnderThatPaceNotByATenth() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);
    double t = 3.5;
    long interval = refused(t);
    double before = t;
    for (int i = 0; i < 30; i++) {   // every start accepted, at the pace the rule sets: it climbs
      before = t;
      t += interval / 1e9;
      interval = answered(t);
    }
    double lastGap = t - before;
    // The host took a pace of one per lastGap: 0.96 of that, not 0.9 of the pace refused.
    assertThat(refused(t + interval / 1e9)).isCloseTo(Math.round(lastGap / 0.96 * 1e9), within(1_000L));
  }

  @Test
  void S3_aRefusalAfterOthersOfTheFleetCarriedAFasterPaceClimbsToUnderTheirPaceFromThisProcesss() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);
    long own = refused(3.5);   // this process drops to under one a second
    assertThat(own).isGreaterThan(1_000_000_000L);
    // The fleet's answers, heard from processes that went faster: two a second since the drop,
    // while this process's own pace climbs only by the time since its drop.
    for (double t = 4.0; t <= 8.0; t += 0.5) {
      answered(t);
    }
    long before = host.interval();
    assertThat(before).isGreaterThan(900_000_000L);
    // The host took the fleet's two a second: the plateau is 0.99 of that, not of this process's
    // own pace; but the refusal does not make this process faster than it was: it climbs there.
    assertThat(refused(8.3)).isEqualTo(before);
    assertThat(answeredAtThePace(8.25, 18.3)).isCloseTo(Math.round(1e9 / (0.99 * 2)), within(1_000_000L)); // K = 10 s later
  }

  @Test
  void refusalsWithNothingAcceptedToMeasureHalveAtFirstThenCutByThreeTenths() {
    assertThat(refusedStartedAt(0.0, 0.0)).isEqualTo(250_000_000L);            // 4 a second
    // 2, then 1.4: the second refusal and the third of a run wait two and three intervals (R14).
    assertThat(refusedStartedAt(0.3, 0.25)).isEqualTo(2 * 500_000_000L);
    assertThat(refusedStartedAt(0.9, 0.75)).isEqualTo(3 * 714_285_714L);
  }

  /** One accepted, then refused three times over 6 s, nothing accepted: 4, 2, then 1.4 a second. */
  void refusedForAWhileWithNothingAccepted() {
    answered(0.05);
    refusedStartedAt(0.3, 0.25);
    refusedStartedAt(0.6, 0.55);
    refusedStartedAt(6.0, 5.95);
  }

  @Test
  void acceptedAfterTroubleWithNoPaceBeforeItDoublesThePacePerAnswerUpToSlowStart() {
    refusedForAWhileWithNothingAccepted();
    assertThat(answered(6.8)).isEqualTo(357_142_857L);                       // 2.8 a second
    assertThat(answeredStartedAt(6.84, 6.79)).isEqualTo(357_142_857L);       // started before: no doubling
    assertThat(refusedStartedAt(7.0, 6.75)).isEqualTo(357_142_857L);         // started before too: nothing
    assertThat(answeredStartedAt(7.2, 7.15)).isEqualTo(250_000_000L);        // 5.6: slow start from 4
    assertThat(answeredAtThePace(7.15, 8.2)).isEqualTo(125_000_000L);        // doubling each second
  }

  @Test
  void aRefusalWhileDoublingDropsToThePaceBeforeTheLastDoublingAndClimbsBackAsAfterAnyDrop() {
    refusedForAWhileWithNothingAccepted();
    answered(6.8);                                                            // 2.8 a second
    assertThat(refusedStartedAt(7.2, 7.15)).isEqualTo(714_285_714L);         // back to 1.4
    assertThat(answeredAtThePace(7.15, 17.2)).isEqualTo(357_142_857L);       // at 2.8 again by K
  }

  @Test
  void aHostThatNeverAcceptedARequestIsClimbedAsAfterAnyDrop() {
    refusedStartedAt(0.3, 0.25);
    refusedStartedAt(0.6, 0.55);
    refusedStartedAt(6.0, 5.95);
    assertThat(answered(6.8)).isEqualTo(652_406_283L);                       // 1.53: from 1.4 back to 2, no doubling
  }

  @Test
  void twoRefusalsOrFewerThan5sWithoutAnAcceptedAnswerAreNoTrouble() {
    refusedStartedAt(0.0, 0.0);
    refusedStartedAt(0.3, 0.25);
    // Nothing asked between: the climb from 2 back to 4 counts one interval of that time (R16).
    assertThat(answered(6.0)).isEqualTo(389_686_518L);                       // 2.57 a second
    HostpaceRuleTest other = new HostpaceRuleTest();
    other.refusedStartedAt(0.0, 0.0);
    other.refusedStartedAt(0.3, 0.25);
    other.refusedStartedAt(0.9, 0.75);
    assertThat(other.answered(4.0)).isEqualTo(554_663_595L);                 // 1.80: climbing from 1.4 back to 2
  }

  @Test
  void aRefusalOfARequestStartedBeforeTheLastDropChangesNothing() {
    refusedStartedAt(0.05, 0);
    refusedStartedAt(0.3, 0.25);
    assertThat(refusedStartedAt(0.35, 0.29)).isEqualTo(2 * 500_000_000L);   // halved, and R14's wait goes on
  }

  @Test
  void aHostPacedAlreadyWithNoMemoryOfTheRuleGoesOnAtThatPace() {
    host.interval(1_000_000_000L, at(0));              // a store kept the interval, from another run
    assertThat(answered(5.0)).isEqualTo(1_000_000_000L);   // the plateau: 1 a second, measured already,
    assertThat(answeredAtThePace(4.95, 59.0)).isEqualTo(1_000_000_000L);  // for the longest K
    assertThat(answeredAtThePace(58.95, 65.0)).isLessThan(1_000_000_000L); // then probing beyond it
    assertThat(refused(65.5)).isGreaterThan(1_000_000_000L);
  }

  @Test
  void S2_aRefusalHeardOfAPaceTakenFromTheFleetDropsALittleUnderItWhereAnOwnOneIsCut() {
    host.interval(1_000_000_000L, at(0));              // read from the fleet as this process joined
    answered(0.5);                                     // too little to measure
    assertThat(rule.onRefusalHeard(at(1.0), at(0.95), host)).isEqualTo(Math.round(1e9 / 0.96));

    HostState own = HostStateStore.inMemory().open("qlever.test");
    own.interval(1_000_000_000L, at(0));
    rule.onAnswer(at(0.5), at(0.45), own);
    assertThat(rule.onRefusal(at(1.0), at(0.95), own)).isEqualTo(Math.round(1e9 / 0.7)); // cut, as CUBIC does
  }

  @Test
  void S3_answersHeardATripThroughTheFleetLateMeasureTheHostsRateNotTheTrip() {
    host.interval(1_000_000_000L, at(0));              // paced at the host's one a second
    // Two processes take turns: this one's answers at 1, 3, 5 and 7 s, the other's at 2, 4, 6 and
    // 8 s, each heard 50 ms late. Between answers of the two kinds the gaps are 0.95 and 1.05 s.
    for (int i = 0; i < 4; i++) {
      answered(1.0 + 2 * i);
      teach(rule.onAnswerHeard(at(2.05 + 2 * i), at(2.0 + 2 * i), host), 2.05 + 2 * i);
    }
    // Measured at one a second: a little under it. From those gaps' median, 1.05 s, it would be
    // 0.96 of 0.95 a second.
    assertThat(refused(8.5)).isEqualTo(1_041_666_667L);

    // The same answers, every one this process's own: the gaps as they came, 1.05 s their median.
    HostState alone = HostStateStore.inMemory().open("qlever.test");
    alone.interval(1_000_000_000L, at(0));
    for (int i = 0; i < 4; i++) {
      rule.onAnswer(at(1.0 + 2 * i), at(0.95 + 2 * i), alone);
      rule.onAnswer(at(2.05 + 2 * i), at(2.0 + 2 * i), alone);
    }
    assertThat(rule.onRefusal(at(8.5), at(8.45), alone)).isEqualTo(Math.round(1e9 / (0.96 / 1.05)));
  }

  /**
   * A host of one a second, paced from a refusal at 3.5 s (0.96 a second, the plateau 0.99, K 10 s)
   * and accepting one a second whatever is sent, refused at 24 s probing 1.089 a second: the same
   * rate as at the drop before. {@code fleet} hears one answer of another process first.
   */
  private static long probeRefusedAtTheSameRate(LearningRule rule, HostState host, boolean fleet) {
    return probeRefused(rule, host, fleet, 1.0);
  }

  /** As {@link #probeRefusedAtTheSameRate}, the host accepting {@code perSecond} after the first drop. */
  private static long probeRefused(LearningRule rule, HostState host, boolean fleet, double perSecond) {
    rule.onRefusal(at(0.05), at(0), host);
    host.interval(250_000_000L, at(0.05));
    if (fleet) {
      rule.onAnswerHeard(at(0.55), at(0.5), host);
    }
    for (double t = 1.05; t < 3.1; t++) {
      host.interval(rule.onAnswer(at(t), at(t - 0.05), host), at(t));
    }
    host.interval(rule.onRefusal(at(3.5), at(3.45), host), at(3.5));
    for (double t = 4.5; t < 23.6; t += 1 / perSecond) {
      host.interval(rule.onAnswer(at(t), at(t - 0.05), host), at(t));
    }
    long next = rule.onRefusal(at(24.0), at(23.95), host);
    host.interval(next, at(24.0));
    return next;
  }

  @Test
  void S3_aFleetsProbeRefusedAtTheRateOfTheLastDropsToThePlateauNotUnderAndHoldsItFortyIntervals() {
    HostState alone = HostStateStore.inMemory().open("alone.test");
    assertThat(probeRefusedAtTheSameRate(rule, alone, false)).isEqualTo(1_041_666_667L);   // 0.96 a second
    assertThat(probeRefusedAtTheSameRate(rule, host, true)).isEqualTo(1_010_101_010L);     // 0.99: the plateau
    // K doubled to 20 s, then 40 of the host's intervals (40 s) more at the plateau, then the probe.
    assertThat(answeredAtThePace(23.95, 34.0)).isEqualTo(1_010_101_010L);
    assertThat(answeredAtThePace(33.95, 83.5)).isEqualTo(1_010_101_010L);
    assertThat(answeredAtThePace(83.45, 104.0)).isCloseTo(918_273_646L, within(1_000L));  // 1.089: K past the hold
    // Alone, the probe comes K after the plateau's start, with nothing held.
    assertThat(answeredAtThePace(rule, alone, 23.95, 64.0)).isCloseTo(918_273_646L, within(1_000L));
    // In a fleet still, but refused at 0.98 a second: 2 % under the rate of the last drop, so under it.
    HostState slower = HostStateStore.inMemory().open("slower.test");
    assertThat(probeRefused(rule, slower, true, 0.98)).isEqualTo(Math.round(1e9 / (0.96 * 0.98)));
  }

  @Test
  void S3_aRefusalOnAFleetsHeldPlateauDropsUnderItAndNoPlateauIsHeldForThatHostAgain() {
    probeRefusedAtTheSameRate(rule, host, true);
    for (double t = 25.0; t < 49.1; t++) {
      answered(t);
    }
    // Refused at the plateau, within the hold: 0.96 of the pace the host took, 0.99 a second, as
    // alone; and the hold is over: the plateau 0.9801 from K (20 s), probed 1.1 times it at 2K.
    assertThat(refused(50.0)).isEqualTo(1_052_188_552L);
    assertThat(answeredAtThePace(49.95, 90.0)).isCloseTo(927_549_137L, within(1_000L));
    // The host took 0.99 a second since, the plateau's rate: a probe refused at it would be held
    // there, but this host's plateau was refused once, so the rule drops under it as alone.
    double t = 90.0;
    for (int i = 0; i < 40; i++) {
      t += 1 / 0.99;
      answered(t);
    }
    assertThat(refused(t + 0.5)).isEqualTo(Math.round(1e9 / (0.96 * 0.99)));
  }

  @Test
  void S3_aRefusalHeardSoonAfterJoiningDropsALittleUnderThePaceReadThoughAFewOwnAnswersCameAtIt() {
    host.interval(1_000_000_000L, at(0));              // read from the fleet as this process joined
    answered(1.0);
    answered(2.0);
    answered(3.0);                                     // enough to measure: its own pace, 1 a second
    // Read as a drop refused again soon, it would be cut by 0.7 and probe again within 10 s.
    assertThat(rule.onRefusalHeard(at(3.5), at(3.45), host)).isEqualTo(Math.round(1e9 / 0.96));
  }

  @Test
  void S3_aRefusalHeardOfAFleetWhoseAnswersCameFasterThanThisProcessWentNeverSpeedsItUp() {
    refusedStartedAt(0.05, 0);
    answered(1.05);
    answered(2.05);
    answered(3.05);
    long own = refused(3.5);                               // 0.96 a second, measured
    for (int i = 1; i <= 20; i++) {                        // the fleet's answers, heard: ten a second
      answered(3.5 + 0.1 * i);
    }
    long before = host.interval();
    assertThat(before).isGreaterThan(own / 2);             // still this process's own pace, near 1 a second
    // Taken from the fleet's pace, the drop would be to 0.96 × 10 a second: faster than this process went.
    assertThat(teach(rule.onRefusalHeard(at(5.6), at(5.55), host), 5.6)).isGreaterThanOrEqualTo(before);
  }

  @Test
  void aStoreThatKeepsNoMemoryGetsTheSeedsSlowingAndAHundredthOffPerAnswer() {
    HostState forgetful = new ForgetfulState();
    assertThat(rule.onRefusal(at(0), at(0), forgetful)).isEqualTo(250_000_000L);
    forgetful.interval(250_000_000L, at(0));
    assertThat(rule.onAnswer(at(1), at(0.95), forgetful)).isEqualTo(247_500_000L);
  }

  @Test
  void forgettingTheMemoryStartsTheHostOverAsNew() {
    refusedStartedAt(0.05, 0);
    host.interval(0, at(1));
    host.memory(null);
    assertThat(answered(1.05)).isZero();
    assertThat(refusedStartedAt(1.10, 1.05)).isEqualTo(250_000_000L);
  }

  // ------------------------------------------------------------- how many at once (Retry-After)

  int pausedAt(double seconds, int inFlightAtStart) {
    int next = rule.inFlightAfterPause(at(seconds), at(seconds - 0.5), inFlightAtStart, host);
    host.inFlightLimit(next);
    return next;
  }

  int acceptedAt(double seconds, int inFlightAtStart) {
    int next = rule.inFlightAfterAnswer(at(seconds), at(seconds - 0.5), inFlightAtStart, host);
    host.inFlightLimit(next);
    return next;
  }

  @Test
  void aRefusalWithRetryAfterOfTheFifthAtOnceWhenFourWereAcceptedLimitsTheHostToFour() {
    for (int k = 1; k <= 4; k++) {
      assertThat(acceptedAt(0.5, k)).isZero();
    }
    assertThat(pausedAt(0.5, 9)).isEqualTo(8);
    assertThat(pausedAt(0.5, 5)).isEqualTo(4);
    assertThat(pausedAt(0.5, 7)).isEqualTo(4); // the lowest refused counts
  }

  @Test
  void aRefusalWhereAsManyWereAcceptedOrOfARequestAloneSaysNothingOfHowManyAtOnce() {
    assertThat(pausedAt(0.5, 1)).isZero();
    acceptedAt(1.0, 3);
    assertThat(pausedAt(1.5, 3)).isZero();
    assertThat(pausedAt(1.5, 2)).isZero();
  }

  @Test
  void atTheLimitItTriesOneMoreAfter10sAndARefusedProbeDoublesTheWaitUpTo120s() {
    acceptedAt(0.5, 1);
    pausedAt(0.5, 2); // limit 1 from 0.5 s
    assertThat(acceptedAt(10.4, 1)).isEqualTo(1);
    assertThat(acceptedAt(10.5, 1)).isEqualTo(2); // 10 s at the limit
    assertThat(pausedAt(11.0, 2)).isEqualTo(1);
    assertThat(acceptedAt(30.9, 1)).isEqualTo(1);
    assertThat(acceptedAt(31.0, 1)).isEqualTo(2); // 20 s
    assertThat(pausedAt(31.5, 2)).isEqualTo(1);
    assertThat(acceptedAt(71.5, 1)).isEqualTo(2); // 40 s
    assertThat(pausedAt(72.0, 2)).isEqualTo(1);
    assertThat(acceptedAt(151.9, 1)).isEqualTo(1);
    assertThat(acceptedAt(152.0, 1)).isEqualTo(2); // 80 s
    assertThat(pausedAt(152.5, 2)).isEqualTo(1);
    assertThat(acceptedAt(272.4, 1)).isEqualTo(1);
    assertThat(acceptedAt(272.5, 1)).isEqualTo(2); // 120 s
    assertThat(pausedAt(273.0, 2)).isEqualTo(1);
    assertThat(acceptedAt(393.0, 1)).isEqualTo(2); // 120 s, and no longer after that
  }

  @Test
  void anAcceptedProbeHalvesTheWaitForTheNextAndACutSetsItBackTo10s() {
    acceptedAt(0.5, 3);
    pausedAt(0.5, 4); // limit 3
    assertThat(acceptedAt(10.5, 3)).isEqualTo(4);
    assertThat(acceptedAt(11.0, 4)).isEqualTo(4); // the fourth was accepted: 5 s to the next probe
    assertThat(acceptedAt(16.0, 4)).isEqualTo(5);
    assertThat(acceptedAt(16.5, 5)).isEqualTo(5); // 2.5 s
    assertThat(acceptedAt(19.0, 5)).isEqualTo(6);
    assertThat(pausedAt(19.5, 6)).isEqualTo(5);
    // The host shrank: refused at the third while as many are no longer among the last accepted.
    for (int i = 0; i < 8; i++) {
      acceptedAt(20 + i, 2);
    }
    assertThat(pausedAt(28.5, 3)).isEqualTo(2);
    assertThat(acceptedAt(38.4, 2)).isEqualTo(2);
    assertThat(acceptedAt(38.5, 2)).isEqualTo(3); // 10 s after the cut
  }

  @Test
  void aLimitTheRuleDidNotSetIsProbed10sAfterTheRuleFirstSawItNotAtOnce() {
    host.inFlightLimit(2); // restored by a store (SPEC S1), as a fleet's test store sets it too
    assertThat(acceptedAt(0.5, 2)).isEqualTo(2);
    assertThat(acceptedAt(10.4, 2)).isEqualTo(2);
    assertThat(acceptedAt(10.5, 2)).isEqualTo(3); // 10 s at the limit, counted from 0.5 s
  }

  @Test
  void S2_anAcceptanceWithMoreAtOnceThanTheLimitRaisesTheLimitToThatMany() {
    acceptedAt(0.5, 1);
    pausedAt(0.5, 2); // limit 1: this process lost the opening burst
    // Another process of the fleet had four in flight, all accepted: the host holds four at once.
    assertThat(acceptedAt(1.5, 4)).isEqualTo(4);
    assertThat(acceptedAt(2.0, 3)).isEqualTo(4);
    assertThat(acceptedAt(11.4, 4)).isEqualTo(4); // and the next probe is 10 s after the raise
    assertThat(acceptedAt(11.5, 4)).isEqualTo(5);
  }

  @Test
  void anAcceptanceOfARequestInFlightWhenARefusalWasHeardSaysNothingOfHowManyAtOnce() {
    acceptedAt(0.5, 3);
    pausedAt(0.5, 4); // limit 3
    // Started at 10 s beside a request that was refused at 10.2 s: it may have got in only
    // because that one was refused, so it is no evidence that four at once are fine.
    host.inFlightLimit(4);
    rule.inFlightAfterPause(at(10.2), at(10), 2, host);
    assertThat(rule.inFlightAfterAnswer(at(10.5), at(10), 4, host)).isEqualTo(4);
    assertThat(pausedAt(11, 4)).isEqualTo(3); // the fourth refused: still a gate of three
  }

  /** A state whose store cannot keep the rule's memory. */
  static final class ForgetfulState implements HostState {
    private long interval;
    private long changedAt;

    @Override public String key() { return "forgetful.test"; }
    @Override public boolean paused() { return false; }
    @Override public long pausedUntil() { return 0; }
    @Override public void pauseUntil(long until) {}
    @Override public void clearPause() {}
    @Override public long interval() { return interval; }
    @Override public long intervalChangedAt() { return changedAt; }
    @Override public void interval(long interval, long now) { this.interval = interval; this.changedAt = now; }
    @Override public boolean started() { return false; }
    @Override public long lastStart() { return 0; }
    @Override public void start(long now) {}
  }
}

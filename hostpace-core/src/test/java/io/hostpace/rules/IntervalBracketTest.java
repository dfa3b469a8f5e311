package io.hostpace.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * SPEC R12: the default rule's first contact with a host that accepts its first request and then
 * refuses bare, through the rule's own interface, each answer 50 ms after its start.
 */
class IntervalBracketTest {

  static final long ORIGIN = Long.MAX_VALUE - 20_000_000_000L; // wraps 20 s in
  static final long LATENCY = 50_000_000L;
  final LearningRule rule = LearningRule.hostpace();
  final HostState host = HostStateStore.inMemory().open("one.test");

  static long at(double seconds) {
    return ORIGIN + Math.round(seconds * 1e9);
  }

  /** The interval after a refusal of the request started at {@code start}, answered 50 ms later. */
  long refused(long start) {
    return teach(rule.onRefusal(start + LATENCY, start, host), start + LATENCY);
  }

  /** The interval after an accepted answer of the request started at {@code start}, 50 ms later. */
  long accepted(long start) {
    return teach(rule.onAnswer(start + LATENCY, start, host), start + LATENCY);
  }

  private long teach(long next, long now) {
    if (next != host.interval()) {
      host.interval(next, now);
    }
    return next;
  }

  private @Nullable IntervalBracket bracket() {
    return host.memory() instanceof HostpaceRule.Memory memory ? memory.bracket : null;
  }

  /** Accepted at 0 s, the two the opening then started refused at 0.05 s: the bracket opens. */
  void acceptedThenTheOpeningRefused() {
    assertThat(accepted(at(0))).isZero();
    assertThat(refused(at(0.05))).isEqualTo(250_000_000L); // the slow start's 4 a second
    assertThat(refused(at(0.05))).isEqualTo(250_000_000L); // the same burst: once
    assertThat(bracket()).isNotNull();
  }

  /** The gap the bracket tries between a refused {@code lo} and an accepted {@code hi}, in nanoseconds. */
  static long between(double lo, double hi) {
    return Math.round(Math.pow(lo, IntervalBracket.TOWARD_REFUSED) * Math.pow(hi, 1 - IntervalBracket.TOWARD_REFUSED) * 1e9);
  }

  @Test
  void R12_aHostOfOneASecondIsBracketedBetweenTheGapsItRefusedAndAcceptedWithFiveRefusals() {
    acceptedThenTheOpeningRefused();
    // Refused 0.30 s after the accepted start: the interval is longer than 0.30 s; twice that next.
    assertThat(refused(at(0.30))).isEqualTo(600_000_000L);
    // Refused 0.90 s after it: longer than 0.90 s; twice that next.
    assertThat(refused(at(0.90))).isEqualTo(1_800_000_000L);
    // Accepted 2.70 s after the accepted start: at most 2.70 s, or, at a bucket that counts the three
    // refusals since against the client, at most 2.70 / 4 s. The lower end, read with refusals
    // before it, is tried again alone: 0.90 s on.
    assertThat(accepted(at(2.70))).isEqualTo(900_000_000L);
    // Refused: this bucket does not count refusals, and 0.90 s is now read alone. The next gap goes
    // where it would have without the try, from the accepted start: between the two ends, nearer the
    // accepted one (0.9^0.35 x 2.7^0.65 s), and each is accepted at this host.
    assertThat(refused(at(3.60))).isCloseTo(between(0.90, 2.70) - 900_000_000L, within(2L));
    assertThat(bracket().loAlone).isTrue();
    long start = at(2.70) + between(0.90, 2.70);
    long[] gaps = {1_431_614_998L, 1_216_947_755L, 1_094_993_738L, 1_022_356_686L};
    for (long gap : gaps) {
      assertThat(accepted(start)).isCloseTo(gap, within(2L));
      start += gap;
    }
    // 1.022 s accepted, 0.90 s refused: within 1.2 times, so paced at 0.96 of one over 1.022 s, as
    // from a measured rate (R4), climbing to its plateau at 0.99 of it.
    assertThat(accepted(start)).isCloseTo(1_064_954_881L, within(2L));
    assertThat(bracket()).isNull();
  }

  @Test
  void R12_aBucketThatCountsRefusalsAcceptsTheLowerEndTriedAloneAndIsBracketedAsOne() {
    // Five a second, and each refused request takes a token too: accepted at 0 s, the opening's
    // second refused at 0.05 s (in debt now), the slow start's at 0.30 s too (deeper in debt).
    assertThat(accepted(at(0))).isZero();
    assertThat(refused(at(0.05))).isEqualTo(250_000_000L);
    assertThat(refused(at(0.30))).isEqualTo(600_000_000L);
    // Accepted 0.90 s after the accepted start, with two refused since: at most 0.90 s for a plain
    // bucket, at most 0.30 s for a counting one, whose lower end is 0.30 / 2 s. The try: 0.30 s on.
    assertThat(accepted(at(0.90))).isEqualTo(300_000_000L);
    // Accepted: a gap no longer than the lower end, which was the debt's. From here the gaps are
    // read as a counting bucket's: between 0.15 s and 0.30 s, nearer the accepted end.
    assertThat(accepted(at(1.20))).isCloseTo(between(0.15, 0.30), within(2L));
    long start = at(1.20) + between(0.15, 0.30);
    assertThat(accepted(start)).isCloseTo(between(0.15, between(0.15, 0.30) / 1e9), within(2L));
    double hi = between(0.15, 0.30) / 1e9;
    start += between(0.15, hi);
    hi = between(0.15, hi) / 1e9;
    long last = start;
    long gap = between(0.15, hi);
    assertThat(accepted(start)).isCloseTo(gap, within(2L));
    // Refused alone, at a gap under the host's 0.20 s: the next is accepted only once the bucket has
    // refilled the refused request's token as well, two of at most hi after the accepted start.
    start += gap;
    assertThat(refused(start)).isCloseTo(Math.round(2 * hi * 1e9) - gap, within(2L));
    assertThat(bracket()).isNotNull();
    // Accepted there: hi within 1.2 times the gap refused alone, and the host is paced at 0.96 of
    // one over hi, as from a measured rate.
    assertThat(accepted(last + Math.round(2 * hi * 1e9))).isCloseTo(Math.round(hi / 0.96 * 1e9), within(2L));
    assertThat(bracket()).isNull();
    assertThat(1 / hi).isBetween(4.5, 5.0);
  }

  @Test
  void R12_aHostThatAcceptedTwoBeforeItsFirstRefusalIsNotReadAsCountingRefusals() {
    assertThat(accepted(at(0))).isZero();
    assertThat(accepted(at(0.05))).isZero();
    assertThat(refused(at(0.10))).isEqualTo(250_000_000L);
    assertThat(refused(at(0.35))).isEqualTo(600_000_000L);
    // Accepted 0.90 s after the last accepted start: the bracket narrows, no try of the lower end.
    assertThat(accepted(at(0.95))).isCloseTo(between(0.30, 0.90), within(2L));
  }

  @Test
  void R12_aRefusedGapIsReadAloneOnlyWithNothingRefusedSinceTheAcceptedStartItIsReadFrom() {
    acceptedThenTheOpeningRefused();
    // 0.90 s after the start accepted at 0 s, with the opening's and the slow start's refused since:
    // a server that counts refusals against the client may have refused it for their debt.
    refused(at(0.30));
    refused(at(0.90));
    assertThat(bracket().lo).isEqualTo(0.90);
    assertThat(bracket().loAlone).isFalse();
    // The same gap from the next accepted start, with nothing refused since: read alone.
    assertThat(accepted(at(2.70))).isEqualTo(900_000_000L);
    assertThat(refused(at(3.60))).isPositive();
    assertThat(bracket().lo).isEqualTo(0.90);
    assertThat(bracket().loAlone).isTrue();
  }

  @Test
  void R12_aHostThatRefusedItsFirstRequestIsNotBracketedAndIsHalvedAsTheRuleDoes() {
    assertThat(refused(at(0))).isEqualTo(250_000_000L);
    assertThat(bracket()).isNull();
    // Halved, not twice the gap; the second refusal of a run, its next start waits two of that (R14).
    assertThat(refused(at(0.30))).isEqualTo(2 * 500_000_000L);
  }

  @Test
  void R12_aHostThatAcceptedABurstBeforeItsFirstRefusalIsNotBracketed() {
    for (int i = 0; i < 4; i++) {
      accepted(at(0.01 * i));
    }
    refused(at(0.05));
    assertThat(host.memory()).isInstanceOf(HostpaceRule.Memory.class);
    assertThat(bracket()).isNull();
  }

  @Test
  void R12_aRefusedGapShorterThanTheSlowStartsIntervalIsAFastHostLeftToTheRule() {
    acceptedThenTheOpeningRefused();
    accepted(at(0.30));
    // Refused 0.15 s after the last accepted start: faster than 4 a second, which the slow start
    // finds. The rule halves the slow start's pace then (4 x 2^0.25, at 0.35 s) as it would have.
    assertThat(refused(at(0.45))).isCloseTo(420_448_208L, within(2L));
    assertThat(bracket()).isNull();
  }

  @Test
  void R12_anAcceptedGapAsShortAsARefusedOneIsAnotherClientsAndEndsTheBracket() {
    acceptedThenTheOpeningRefused();
    refused(at(0.80)); // longer than 0.80 s, says this refusal
    // At most 0.50 s, says this acceptance, answered late: the gaps are not all this client's.
    rule.onAnswer(at(0.90), at(0.50), host);
    assertThat(bracket()).isNull();
  }

  @Test
  void R12_aThirdRefusalWithNothingAcceptedPacesTheHostAsTheRulesOwnCutsWouldHave() {
    // Two accepted before the first refusal: a burst, whose debt is not read.
    assertThat(accepted(at(0))).isZero();
    assertThat(accepted(at(0.05))).isZero();
    refused(at(0.10));
    refused(at(0.35));
    refused(at(0.95));
    // 4, halved to 2, cut to 1.4 and to 0.98 a second: where the rule's cuts would be by now.
    assertThat(refused(at(2.75))).isEqualTo(1_020_408_163L);
    assertThat(bracket()).isNull();
  }

  @Test
  void R12_aBucketOfOneIsGivenAThirdGapTripledBeforeTheBracketIsGivenUp() {
    acceptedThenTheOpeningRefused();
    refused(at(0.30));
    refused(at(0.90));
    // Refused 2.70 s after the accepted start, the third refusal with nothing accepted: a counting
    // bucket, three refusals in debt, accepts a gap of four intervals, so one more is tried.
    assertThat(refused(at(2.70))).isEqualTo(5_400_000_000L);
    assertThat(bracket()).isNotNull();
    // Refused again 8.1 s after it: given up, paced where the rule's cuts would be by now.
    assertThat(refused(at(8.10))).isEqualTo(Math.round(1e9 / (4 * 0.5 * 0.7 * 0.7 * 0.7)));
    assertThat(bracket()).isNull();
  }

  @Test
  void R12_aRefusalMoreThanFiveSecondsAfterTheLastAcceptanceIsTroubleNotASlowHost() {
    acceptedThenTheOpeningRefused();
    refused(at(0.30));
    assertThat(refused(at(6.0))).isEqualTo(714_285_714L); // 4, 2, then 1.4: the rule's cuts
    assertThat(bracket()).isNull();
  }

  @Test
  void R12_aPauseOrARefusalAnotherProcessMetEndsTheBracket() {
    acceptedThenTheOpeningRefused();
    rule.intervalAfterPause(at(0.40), at(0.30), 1, host);
    assertThat(bracket()).isNull();

    HostState other = HostStateStore.inMemory().open("two.test");
    rule.onAnswer(at(0.05), at(0), other);
    other.interval(rule.onRefusal(at(0.10), at(0.05), other), at(0.10));
    assertThat(other.memory()).isInstanceOfSatisfying(HostpaceRule.Memory.class, m -> assertThat(m.bracket).isNotNull());
    rule.onRefusalHeard(at(0.40), at(0.30), other);
    assertThat(other.memory()).isInstanceOfSatisfying(HostpaceRule.Memory.class, m -> assertThat(m.bracket).isNull());
  }
}

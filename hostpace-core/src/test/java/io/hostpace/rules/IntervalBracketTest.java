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

  @Test
  void R12_aHostOfOneASecondIsBracketedBetweenTheGapsItRefusedAndAcceptedWithFourRefusals() {
    acceptedThenTheOpeningRefused();
    // Refused 0.30 s after the accepted start: the interval is longer than 0.30 s; twice that next.
    assertThat(refused(at(0.30))).isEqualTo(600_000_000L);
    // Refused 0.90 s after it: longer than 0.90 s; twice that next.
    assertThat(refused(at(0.90))).isEqualTo(1_800_000_000L);
    // Accepted 2.70 s after the accepted start: at most 2.70 s. Each next gap goes between the two
    // ends, nearer the accepted one (0.9^0.35 x 2.7^0.65 s), and each is accepted at this host.
    long start = at(2.70);
    long[] gaps = {1_838_109_269L, 1_431_614_998L, 1_216_947_755L, 1_094_993_738L, 1_022_356_686L};
    for (long gap : gaps) {
      assertThat(accepted(start)).isCloseTo(gap, within(2L));
      start += gap;
    }
    // 1.022 s accepted, 0.90 s refused: within 1.2 times, so paced at 0.96 of one over 1.022 s, as
    // from a measured rate (R4), climbing to its plateau at 0.99 of it.
    assertThat(accepted(start)).isCloseTo(1_064_954_881L, within(2L));
    assertThat(bracket()).isNull();
  }

  /** The time to the plateau the rule's memory of the host holds, in seconds. */
  double timeToPlateau() {
    return ((HostpaceRule.Memory) host.memory()).k;
  }

  @Test
  void R12_aLowerEndACountingBucketsDebtWouldExplainNarrowsToASoonerProbe() {
    acceptedThenTheOpeningRefused();
    refused(at(0.30));
    refused(at(0.90));
    // Accepted 2.70 s after the accepted start, with four refused since (the opening's two
    // included): at most 2.70 s, or at most 2.70 / 5 s at a bucket that counts refusals against
    // the client, no longer than the lower end of 0.90 s, read with refusals before it.
    long start = at(2.70);
    IntervalBracket bracket = bracket();
    start += accepted(start);
    assertThat(bracket.mayBeDebt()).isTrue();
    for (int i = 0; i < 4; i++) {
      start += accepted(start);
    }
    assertThat(accepted(start)).isPositive();
    assertThat(bracket()).isNull();
    // Narrowed: the probe beyond the plateau comes sooner than after any other bracket.
    assertThat(timeToPlateau()).isEqualTo(HostpaceRule.K_DEBT_SECONDS).isLessThan(HostpaceRule.K_MIN_SECONDS);
  }

  @Test
  void R12_aLowerEndReadAloneOrAfterABurstIsNoDebt() {
    // Two accepted before the first refusal: a burst, whose debt the gaps do not tell.
    assertThat(accepted(at(0))).isZero();
    assertThat(accepted(at(0.05))).isZero();
    refused(at(0.10));
    refused(at(0.35));
    refused(at(0.95));
    accepted(at(2.75));
    assertThat(bracket().mayBeDebt()).isFalse();
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
    long start = at(2.70);
    for (int i = 0; i < 3; i++) {
      start += accepted(start);
    }
    // The next gap, 1.217 s from the last accepted start with nothing refused since: read alone.
    assertThat(bracket().mayBeDebt()).isTrue();
    assertThat(refused(start)).isPositive();
    assertThat(bracket().lo).isCloseTo(1.217, within(0.001));
    assertThat(bracket().loAlone).isTrue();
    // No debt refused it: the host is no faster than that.
    assertThat(bracket().mayBeDebt()).isFalse();
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
    acceptedThenTheOpeningRefused();
    refused(at(0.30));
    refused(at(0.90));
    // 4, halved to 2, cut to 1.4 and to 0.98 a second: where the rule's cuts would be by now.
    assertThat(refused(at(2.70))).isEqualTo(1_020_408_163L);
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

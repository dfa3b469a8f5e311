package io.hostpace.timeout;

import static io.hostpace.timeout.Outcome.REJECTED;
import static io.hostpace.timeout.Outcome.SERVER_TIMEOUT;
import static io.hostpace.timeout.Outcome.SUCCESS;
import static io.hostpace.timeout.Outcome.TIMED_OUT;
import static io.hostpace.timeout.Outcome.UNREACHABLE;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * SPEC D1 to D4: the adaptive policy, fed literal numbers. Times are seconds since a random
 * origin (so a confusion of a time with a duration, or an overflow, fails here); the endpoint is
 * {@code e} unless said. The budgets are the seed's: 300 s by default, so the floor and the
 * reduced budget are 30 s.
 */
class AdaptivePolicyTest {

  static final long T0 = ThreadLocalRandom.current().nextLong();

  final List<String> events = new ArrayList<>();

  AdaptiveTimeouts.Builder settings() {
    return AdaptiveTimeouts.builder()
        .defaultBudget(Duration.ofSeconds(300))
        .listener(event -> events.add("at " + seconds(event.at() - T0) + " " + event));
  }

  TimeoutPolicy policy = TimeoutPolicy.adaptive(settings().build());

  static long at(double seconds) {
    return T0 + nanos(seconds);
  }

  static long nanos(double seconds) {
    return Math.round(seconds * 1e9);
  }

  static String seconds(long nanos) {
    return Durations.format(nanos);
  }

  String ask(double at, String kind) {
    return policy.budget(at(at), "e", kind).toString();
  }

  void report(double at, String kind, Outcome outcome, double took) {
    policy.onOutcome(at(at), "e", kind, outcome, nanos(took));
  }

  /** Three refusals in a row, 5 ms each, 1 s and 2 s apart as a caller's backoff spaces them. */
  void refusedThreeTimes(String kind) {
    report(0.005, kind, UNREACHABLE, 0.005);
    report(1.010, kind, UNREACHABLE, 0.005);
    report(3.015, kind, UNREACHABLE, 0.005);
  }

  /**
   * Two different kinds cut off at the full budget, the second at {@code second}, with no success
   * between, and no 504 that says the server's own limit is near it.
   */
  void degradeAt(double second) {
    report(second - 300, "a", TIMED_OUT, 300);
    report(second, "b", TIMED_OUT, 300);
  }

  // ---------------------------------------------------------------- D1

  @Test
  void D1_budgetsAreKeptPerEndpointAndPerKind() {
    assertThat(ask(0, "subjects")).isEqualTo("send 300 s (default)");
    report(95, "subjects", SUCCESS, 95);

    assertThat(ask(95, "subjects")).isEqualTo("send 190 s (learned)");
    assertThat(ask(95, "properties")).isEqualTo("send 300 s (default)");
    assertThat(policy.budget(at(95), "f", "subjects")).hasToString("send 300 s (default)");
  }

  @Test
  void D1_aCallerWithoutAKindHasOneKindPerEndpoint() {
    policy.onOutcome(at(40), "e", SUCCESS, nanos(40));

    assertThat(policy.budget(at(40), "e")).hasToString("send 80 s (learned)");
    assertThat(policy.budget(at(40), "e", TimeoutPolicy.DEFAULT_KIND)).hasToString("send 80 s (learned)");
    assertThat(ask(40, "triples")).isEqualTo("send 300 s (default)");
  }

  // ---------------------------------------------------------------- D2

  @Test
  void D2_theBudgetIsTheSlowestRecentSuccessTimesTheMarginBetweenTheFloorAndTheDefault() {
    report(9, "q", SUCCESS, 9);
    assertThat(ask(9, "q")).as("9 s x 2 is below the floor").isEqualTo("send 30 s (learned)");
    report(49, "q", SUCCESS, 40);
    assertThat(ask(49, "q")).isEqualTo("send 80 s (learned)");
    report(69, "q", SUCCESS, 20);
    assertThat(ask(69, "q")).as("the slowest recent one counts").isEqualTo("send 80 s (learned)");
    report(269, "q", SUCCESS, 200);
    assertThat(ask(269, "q")).as("never above the default").isEqualTo("send 300 s (learned)");
  }

  @Test
  void D2_onlyTheLastEightSuccessesCount() {
    report(60, "q", SUCCESS, 60);
    for (int i = 1; i <= 7; i++) {
      report(60 + 20 * i, "q", SUCCESS, 20);
    }
    assertThat(ask(200, "q")).as("60 s is one of the last eight").isEqualTo("send 120 s (learned)");
    report(220, "q", SUCCESS, 20);
    assertThat(ask(220, "q")).as("60 s has dropped out").isEqualTo("send 40 s (learned)");
  }

  @Test
  void D2_aPercentileInsteadOfTheSlowest() {
    policy = TimeoutPolicy.adaptive(settings().window(4).percentile(0.5).floor(Duration.ofSeconds(1)).build());
    report(10, "q", SUCCESS, 10);
    report(30, "q", SUCCESS, 20);
    report(60, "q", SUCCESS, 30);
    report(100, "q", SUCCESS, 40);

    assertThat(ask(100, "q")).as("the median of 10, 20, 30 and 40 s, times 2").isEqualTo("send 40 s (learned)");
  }

  @Test
  void D2_ourOwnTimeoutShrinksNothingAndSendsTheKindBackToTheFullBudget() {
    report(40, "q", SUCCESS, 40);
    assertThat(ask(40, "q")).isEqualTo("send 80 s (learned)");

    report(120, "q", TIMED_OUT, 80);
    assertThat(ask(120, "q")).as("longer than 80 s, and nothing more is known").isEqualTo("send 300 s (default)");

    report(240, "q", SUCCESS, 120);
    assertThat(ask(240, "q")).isEqualTo("send 240 s (learned)");
  }

  @Test
  void D2_theRetriesOfOneSlowQueryDoNotClampAnyOtherKind() {
    // Seed 003: datatypes is answered 504 at the server's 300 s limit, on every attempt.
    for (int attempt = 1; attempt <= 4; attempt++) {
      assertThat(ask(300 * attempt - 300, "datatypes")).isEqualTo("send 300 s (default)");
      report(300 * attempt, "datatypes", SERVER_TIMEOUT, 300);
    }

    assertThat(ask(1200, "triples")).isEqualTo("send 300 s (default)");
    assertThat(ask(1200, "class-partition")).isEqualTo("send 300 s (default)");
    assertThat(events).isEmpty();
  }

  @Test
  void D2_differentKindsSlowWithNoSuccessBetweenDegradeTheEndpointButNotTheKindsThatShowedWhatTheyNeed() {
    report(95, "subjects", SUCCESS, 95);
    report(395, "a", TIMED_OUT, 300);
    assertThat(ask(395, "c")).as("one slow kind is not evidence against the endpoint").isEqualTo("send 300 s (default)");
    report(695, "b", SERVER_TIMEOUT, 20); // a gateway's 504, not the server's limit

    assertThat(events).containsExactly("at 695 s e degraded");
    assertThat(ask(695, "c")).as("twice what the endpoint took lately (D7)").isEqualTo("send 190 s (degraded)");
    assertThat(ask(695, "subjects")).as("never below what it was seen to need").isEqualTo("send 190 s (learned)");
  }

  @Test
  void D2_aSuccessBetweenTheSlowKindsMeansTheyWereJustHeavy() {
    report(300, "a", TIMED_OUT, 300);
    report(309, "triples", SUCCESS, 9);
    report(609, "b", TIMED_OUT, 300);

    assertThat(ask(609, "c")).isEqualTo("send 300 s (default)");
    assertThat(events).isEmpty();
  }

  @Test
  void D2_aKindCutOffAtTheReducedBudgetGetsTheFullBudgetNext() {
    degradeAt(600);
    assertThat(ask(600, "c")).isEqualTo("send 30 s (degraded)");
    report(630, "c", TIMED_OUT, 30);

    assertThat(ask(630, "c")).isEqualTo("send 300 s (default)");
    assertThat(ask(630, "d")).isEqualTo("send 30 s (degraded)");
  }

  // ---------------------------------------------------------------- D3

  @Test
  void D3_threeRefusalsInARowFailFastAndEachFailedTrialDoublesTheCoolDown() {
    policy = TimeoutPolicy.adaptive(settings().coolDownRequests(1000, 1000).build());
    refusedThreeTimes("q");
    assertThat(events).containsExactly("at 3.015 s e down for 1 s");

    assertThat(ask(3.5, "q")).isEqualTo("fail fast (down; next trial in 515 ms)");
    assertThat(ask(3.5, "other")).as("down is the endpoint, not the kind").startsWith("fail fast");
    assertThat(ask(4.015, "q")).isEqualTo("send 300 s (trial)");
    assertThat(ask(4.016, "q")).as("one trial at a time").startsWith("fail fast");
    report(4.020, "q", UNREACHABLE, 0.005);

    long now = at(4.020);
    long coolDown = nanos(2);
    for (int trial = 2; trial <= 9; trial++) {
      now += coolDown;
      assertThat(policy.budget(now, "e", "q")).hasToString("send 300 s (trial)");
      now += nanos(0.005);
      policy.onOutcome(now, "e", "q", UNREACHABLE, nanos(0.005));
      coolDown = Math.min(nanos(60), 2 * coolDown);
    }
    assertThat(events).extracting(e -> e.substring(e.indexOf(" e ") + 3)).containsExactly(
        "down for 1 s", "down for 2 s", "down for 4 s", "down for 8 s", "down for 16 s", "down for 32 s",
        "down for 60 s", "down for 60 s", "down for 60 s", "down for 60 s");
  }

  @Test
  void D3_aTrialAlsoGoesAfterTwoFailedFastAttemptsThenFourThenEight() {
    refusedThreeTimes("q");

    assertThat(ask(3.015, "a")).startsWith("fail fast");
    assertThat(ask(3.015, "b")).startsWith("fail fast");
    assertThat(ask(3.015, "c")).isEqualTo("send 300 s (trial)");
    report(3.020, "c", UNREACHABLE, 0.005);
    for (String kind : List.of("d", "e", "f", "g")) {
      assertThat(ask(3.020, kind)).startsWith("fail fast");
    }
    assertThat(ask(3.020, "h")).isEqualTo("send 300 s (trial)");
  }

  @Test
  void D3_anAnswerOfAnyKindEndsDownAndTheCoolDownStartsOverAt1s() {
    refusedThreeTimes("q");
    assertThat(ask(4.015, "q")).isEqualTo("send 300 s (trial)");
    report(4.020, "q", UNREACHABLE, 0.005);
    assertThat(ask(6.020, "q")).isEqualTo("send 300 s (trial)");
    report(6.100, "q", REJECTED, 0.080);

    assertThat(ask(6.100, "q")).isEqualTo("send 300 s (default)");
    report(7, "q", UNREACHABLE, 0.005);
    report(8, "q", UNREACHABLE, 0.005);
    report(9, "q", UNREACHABLE, 0.005);
    assertThat(events).containsExactly(
        "at 3.015 s e down for 1 s", "at 4.02 s e down for 2 s", "at 6.1 s e up", "at 9 s e down for 1 s");
  }

  @Test
  void D3_aSlowQueryDoesNotMakeTheEndpointLookDead() {
    for (int i = 1; i <= 5; i++) {
      report(300 * i, "datatypes", TIMED_OUT, 300);
    }
    report(1501, "q", UNREACHABLE, 0.005);
    report(1502, "q", UNREACHABLE, 0.005);
    report(1802, "datatypes", TIMED_OUT, 300);
    report(1803, "q", UNREACHABLE, 0.005);

    assertThat(ask(1803, "q")).as("the timeout broke the row of refusals").isEqualTo("send 300 s (default)");
    assertThat(events).isEmpty();
  }

  // ---------------------------------------------------------------- D6

  String probe(double at, @Nullable String kind) {
    return String.valueOf(policy.probe(at(at), "e", kind));
  }

  @Test
  void D6_withAProbeADownEndpointGetsNoRealTrialOnlyProbesAtTheEndOfEachCoolDown() {
    policy = TimeoutPolicy.adaptive(settings().probe(Duration.ofSeconds(2)).build());
    refusedThreeTimes("q");

    assertThat(policy.probeIn(at(3.016), "e")).isEqualTo(nanos(0.999));
    assertThat(probe(3.016, null)).as("the timer's probe is not due yet").isEqualTo("null");
    assertThat(probe(4.015, null)).isEqualTo("probe 2 s");
    assertThat(probe(4.016, null)).as("one probe at a time").isEqualTo("null");
    assertThat(probe(4.016, "a")).as("one probe at a time, for requests too").isEqualTo("null");
    policy.onProbe(at(4.020), "e", UNREACHABLE, nanos(0.005));

    assertThat(policy.probeIn(at(4.020), "e")).as("the cool-down doubled").isEqualTo(nanos(2));
    assertThat(List.of(ask(4.5, "a"), ask(4.6, "b"), ask(4.7, "c"), ask(7, "d")))
        .as("no real request is the trial: not after two failed fast, nor after the cool-down")
        .containsExactly("fail fast (down; next trial in 1.52 s)", "fail fast (down; next trial in 1.42 s)",
            "fail fast (down; next trial in 1.32 s)", "fail fast (down; next trial in 0 s)");
    assertThat(events).containsExactly("at 3.015 s e down for 1 s", "at 4.02 s e down for 2 s");
  }

  @Test
  void D6_aRequestForADownEndpointMayAskForAProbeWithinTheCoolDownAndItsSuccessEndsTheState() {
    policy = TimeoutPolicy.adaptive(settings().probe(Duration.ofSeconds(2)).build());
    refusedThreeTimes("q");

    assertThat(probe(3.5, "a")).isEqualTo("probe 2 s");
    policy.onProbe(at(3.55), "e", SUCCESS, nanos(0.05));

    assertThat(ask(3.55, "a")).isEqualTo("send 300 s (default)");
    assertThat(policy.probeIn(at(3.55), "e")).as("healthy: no probe").isEqualTo(-1);
    assertThat(events).containsExactly("at 3.015 s e down for 1 s", "at 3.55 s e up");
  }

  @Test
  void D6_whileDegradedTheProbeIsDueAtTheDecayAndAFailedOneKeepsTheReducedBudget() {
    policy = TimeoutPolicy.adaptive(settings().probe(Duration.ofSeconds(2)).build());
    degradeAt(600);

    assertThat(policy.probeIn(at(600), "e")).as("the decay, 5 min").isEqualTo(nanos(300));
    assertThat(probe(600, "c")).as("a request that would get the reduced budget").isEqualTo("probe 2 s");
    policy.onProbe(at(602), "e", TIMED_OUT, nanos(2));
    assertThat(policy.probeIn(at(602), "e")).as("the decay, counted again").isEqualTo(nanos(300));

    assertThat(List.of(ask(602, "c1"), ask(632, "c2"), ask(662, "c3"), ask(692, "c4"), ask(722, "c5")))
        .as("no real request gets the full budget back by decay: the probe does")
        .containsExactly("send 30 s (degraded)", "send 30 s (degraded)", "send 30 s (degraded)",
            "send 30 s (degraded)", "send 30 s (degraded)");
    assertThat(policy.probeIn(at(722), "e")).as("four reduced budgets: due").isZero();
    assertThat(probe(722, null)).isEqualTo("probe 2 s");
    policy.onProbe(at(722.05), "e", SUCCESS, nanos(0.05));

    assertThat(ask(722.05, "c6")).isEqualTo("send 300 s (default)");
    assertThat(events).containsExactly("at 600 s e degraded", "at 722.05 s e recovered");
  }

  @Test
  void D6_aKindWithItsOwnBudgetDoesNotWaitForAProbeWhileDegraded() {
    policy = TimeoutPolicy.adaptive(settings().probe(Duration.ofSeconds(2)).build());
    report(95, "s", SUCCESS, 95);
    degradeAt(600);

    assertThat(probe(600, "s")).isEqualTo("null");
    assertThat(ask(600, "s")).isEqualTo("send 190 s (learned)");
  }

  @Test
  void D6_withoutAProbeBudgetThePolicyAsksForNoProbe() {
    refusedThreeTimes("q");

    assertThat(policy.probes()).isFalse();
    assertThat(policy.probeIn(at(3.016), "e")).isEqualTo(-1);
    assertThat(probe(5, "a")).isEqualTo("null");
    assertThat(ask(4.015, "a")).as("the trial, as D3 says").isEqualTo("send 300 s (trial)");
  }

  // ---------------------------------------------------------------- D4

  @Test
  void D4_aDegradedEndpointTriesTheFullBudgetAgainAfterFourReducedBudgets() {
    degradeAt(600);

    assertThat(List.of(ask(600, "c1"), ask(630, "c2"), ask(660, "c3"), ask(690, "c4"), ask(720, "c5"), ask(720, "c6")))
        .containsExactly("send 30 s (degraded)", "send 30 s (degraded)", "send 30 s (degraded)",
            "send 30 s (degraded)", "send 300 s (decay)", "send 30 s (degraded)");
  }

  @Test
  void D4_orAfterFiveMinutes() {
    degradeAt(600);

    assertThat(ask(650, "c1")).isEqualTo("send 30 s (degraded)");
    assertThat(ask(899, "c2")).isEqualTo("send 30 s (degraded)");
    assertThat(ask(900, "c3")).isEqualTo("send 300 s (decay)");
    assertThat(ask(901, "c4")).isEqualTo("send 30 s (degraded)");
  }

  @Test
  void D4_aDecayAttemptCutOffAtTheFullBudgetStartsTheDecayOver() {
    degradeAt(600);
    ask(600, "c1");
    ask(630, "c2");
    ask(660, "c3");
    ask(690, "c4");
    assertThat(ask(720, "c5")).isEqualTo("send 300 s (decay)");
    report(1020, "c5", TIMED_OUT, 300);

    assertThat(ask(1020, "c6")).isEqualTo("send 30 s (degraded)");
    assertThat(ask(1319, "c7")).isEqualTo("send 30 s (degraded)");
    assertThat(ask(1320, "c8")).isEqualTo("send 300 s (decay)");
  }

  @Test
  void D4_timeoutsAtTheReducedBudgetDoNotFeedTheDegradedState() {
    degradeAt(600);
    List<String> budgets = new ArrayList<>();
    double now = 600;
    for (int i = 1; i <= 10; i++) {
      budgets.add(ask(now, "c" + i));
      report(now + 30, "c" + i, TIMED_OUT, 30);
      now += 30;
    }

    assertThat(budgets).filteredOn(b -> b.endsWith("(decay)")).hasSize(2);
    assertThat(budgets.get(4)).isEqualTo("send 300 s (decay)");
  }

  @Test
  void D4_aSuccessOfAnyKindEndsTheDegradedState() {
    degradeAt(600);
    assertThat(ask(600, "licenses")).isEqualTo("send 30 s (degraded)");
    report(601.4, "shacl-sample", SUCCESS, 1.4);

    assertThat(ask(601.4, "iiif")).isEqualTo("send 300 s (default)");
    assertThat(events).containsExactly("at 600 s e degraded", "at 601.4 s e recovered");
  }

  // ---------------------------------------------------------------- D7

  @Test
  void D7_aDegradedBudgetIsNeverBelowTwiceWhatTheEndpointTookLately() {
    report(95, "subjects", SUCCESS, 95);
    degradeAt(695);

    assertThat(events).containsExactly("at 695 s e degraded");
    assertThat(ask(695, "c")).as("95 s x 2, not the 30 s floor").isEqualTo("send 190 s (degraded)");
    assertThat(ask(695, TimeoutPolicy.DEFAULT_KIND)).isEqualTo("send 190 s (degraded)");
  }

  @Test
  void D7_untaggedQueriesIncluded() {
    for (int i = 1; i <= 3; i++) {
      policy.onOutcome(at(60 * i), "e", SUCCESS, nanos(60));
    }
    degradeAt(780);

    assertThat(events).containsExactly("at 780 s e degraded");
    assertThat(policy.budget(at(780), "e")).hasToString("send 120 s (learned)");
    assertThat(ask(780, "c")).as("what the untagged queries took counts for the endpoint").isEqualTo("send 120 s (degraded)");
  }

  @Test
  void D7_theFloorIsOnlyForAnEndpointWithNoHistory() {
    degradeAt(600);
    assertThat(ask(600, "c")).isEqualTo("send 30 s (degraded)");

    report(609, "triples", SUCCESS, 9);
    degradeAt(1209);
    assertThat(ask(1209, "c")).as("9 s x 2 is below the floor").isEqualTo("send 30 s (degraded)");
  }

  @Test
  void D7_onlyTheEndpointsLastEightSuccessesCount() {
    report(100, "slow", SUCCESS, 100);
    for (int i = 1; i <= 8; i++) {
      report(100 + 20 * i, "q" + i, SUCCESS, 20);
    }
    degradeAt(860);

    assertThat(ask(860, "c")).as("100 s has dropped out: 20 s x 2").isEqualTo("send 40 s (degraded)");
  }

  // ---------------------------------------------------------------- D8

  @Test
  void D8_queriesThatReachTheServersLimitCostOnlyThemselves() {
    report(95, "subjects", SUCCESS, 95);
    report(395, "heavy-1", SERVER_TIMEOUT, 300);
    report(695, "heavy-2", SERVER_TIMEOUT, 301);

    assertThat(policy.reachedServerLimit("e", SERVER_TIMEOUT, nanos(300))).isTrue();
    assertThat(policy.reachedServerLimit("e", SERVER_TIMEOUT, nanos(301))).isTrue();
    assertThat(events).as("two heavy queries are not a slow endpoint").isEmpty();
    assertThat(ask(695, "ordinary")).isEqualTo("send 300 s (default)");
    assertThat(ask(695, "subjects")).isEqualTo("send 190 s (learned)");
  }

  @Test
  void D8_aQuick504IsAGatewaysNotTheLimitItIsRetriedAndCountsAsSlow() {
    report(20, "a", SERVER_TIMEOUT, 20);
    assertThat(policy.reachedServerLimit("e", SERVER_TIMEOUT, nanos(20))).as("below the 30 s floor").isFalse();

    report(320, "b", TIMED_OUT, 300);
    assertThat(events).containsExactly("at 320 s e degraded");
  }

  @Test
  void D8_theLimitIsTheLongestOfTheLastFour504sAfterTheFloor() {
    report(120, "a", SERVER_TIMEOUT, 120);
    assertThat(policy.reachedServerLimit("e", SERVER_TIMEOUT, nanos(120))).isTrue();
    report(420, "b", SERVER_TIMEOUT, 300);

    assertThat(policy.reachedServerLimit("e", SERVER_TIMEOUT, nanos(120))).as("well below 300 s").isFalse();
    assertThat(policy.reachedServerLimit("e", SERVER_TIMEOUT, nanos(270))).isTrue();
    assertThat(policy.reachedServerLimit("e", TIMED_OUT, nanos(330))).isTrue();
    assertThat(policy.reachedServerLimit("e", TIMED_OUT, nanos(331))).isFalse();
    assertThat(policy.reachedServerLimit("e", Outcome.SERVER_ERROR, nanos(300))).isFalse();
    for (int i = 1; i <= 4; i++) {
      report(420 + 60 * i, "c" + i, SERVER_TIMEOUT, 60);
    }
    assertThat(policy.reachedServerLimit("e", SERVER_TIMEOUT, nanos(60))).as("300 s has dropped out").isTrue();
  }

  @Test
  void D8_aConfiguredLimitStartsItAndOurOwnTimeoutAtItIsTheQuerysCostToo() {
    policy = TimeoutPolicy.adaptive(settings().serverLimit(Duration.ofSeconds(300)).build());
    assertThat(policy.reachedServerLimit("e", TIMED_OUT, nanos(300))).as("nothing reported yet").isFalse();
    report(300, "a", TIMED_OUT, 300);
    report(600, "b", TIMED_OUT, 300);

    assertThat(policy.reachedServerLimit("e", TIMED_OUT, nanos(300))).isTrue();
    assertThat(events).isEmpty();
    assertThat(ask(600, "c")).isEqualTo("send 300 s (default)");
  }

  @Test
  void D8_anAttemptWellPastTheKnownLimitWasNotEndedByIt() {
    report(60, "heavy", SERVER_TIMEOUT, 60);
    degradeAt(660);

    assertThat(events).as("a and b ran past the 60 s limit: slow").containsExactly("at 660 s e degraded");
  }

  // ---------------------------------------------------------------- D5

  @Test
  void D5_theRunOfSeed003GivesEveryStageAfterDatatypesTheBudgetItNeeds() {
    // The stages of the seed's table, with the time each needs on the healthy endpoint.
    Object[][] run = {
        {"subjects", 95.0}, {"properties", 11.9}, {"object-literals", 128.0}, {"object-uris", 126.0},
        {"datatypes", -1.0}, {"triples", 9.0}, {"class-partition", 64.0}, {"class-properties-CreativeWork", 118.0},
        {"class-properties-Person", 47.0}, {"class-properties-Place", 23.0}, {"class-properties-Organization", 35.0},
        {"class-properties-Event", 20.5}, {"class-properties-Book", 86.0}, {"licenses", 14.0},
        {"entity-properties", 52.0}, {"subject-uri-space", 33.0}, {"object-uri-space", 71.0},
        {"shacl-sample-CreativeWork", 1.4}, {"media", 27.0}, {"iiif", 239.0}};
    double now = 0;
    for (Object[] stage : run) {
      String kind = (String) stage[0];
      double needs = (Double) stage[1];
      if (needs < 0) { // answered 504 at the 300 s limit on each of 4 attempts, 1, 2 and 4 s apart
        for (int attempt = 0; attempt < 4; attempt++) {
          assertThat(ask(now, kind)).isEqualTo("send 300 s (default)");
          now += 300;
          report(now, kind, SERVER_TIMEOUT, 300);
          now += attempt < 3 ? Math.pow(2, attempt) : 0;
        }
        continue;
      }
      assertThat(policy.budget(at(now), "e", kind).nanos()).as(kind).isGreaterThanOrEqualTo(nanos(needs));
      now += needs;
      report(now, kind, SUCCESS, needs);
    }
    assertThat(events).isEmpty();
  }

  // ---------------------------------------------------------------- bounds, threads, settings

  @Test
  void atMostCapacityEndpointsAndKindsAreKeptTheLeastRecentlyUsedForgotten() {
    policy = TimeoutPolicy.adaptive(settings().capacity(2).build());
    policy.onOutcome(at(10), "e1", "q", SUCCESS, nanos(10));
    policy.onOutcome(at(20), "e2", "q", SUCCESS, nanos(20));
    assertThat(policy.budget(at(20), "e1", "q")).hasToString("send 30 s (learned)");
    policy.onOutcome(at(40), "e3", "q", SUCCESS, nanos(40));

    assertThat(policy.budget(at(40), "e2", "q")).as("forgotten").hasToString("send 300 s (default)");
    assertThat(policy.budget(at(40), "e1", "q")).hasToString("send 30 s (learned)");
    assertThat(policy.budget(at(40), "e3", "q")).hasToString("send 80 s (learned)");
  }

  @Test
  void manyThreadsAtOnce() throws InterruptedException {
    policy = TimeoutPolicy.adaptive(settings().probe(Duration.ofSeconds(2)).build());
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int id = t;
      threads.add(new Thread(() -> {
        for (int i = 0; i < 20_000; i++) {
          long now = at(i * 0.001);
          String endpoint = "e" + (i % 3);
          Budget budget = policy.budget(now, endpoint, "k" + id);
          Outcome outcome = Outcome.values()[(i + id) % Outcome.values().length];
          if (policy.probe(now, endpoint, i % 2 == 0 ? null : "k" + id) != null) {
            policy.onProbe(now, endpoint, outcome, nanos(0.001));
          }
          if (budget.isSend()) {
            policy.onOutcome(now, endpoint, "k" + id, outcome, Math.min(budget.nanos(), nanos(1)));
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }
    policy.onOutcome(at(100), "e0", "k0", SUCCESS, nanos(50));
    assertThat(policy.budget(at(100), "e0", "k0").isSend()).isTrue();
  }

  @Test
  void aListenerThatThrowsCannotBreakThePolicy() {
    policy = TimeoutPolicy.adaptive(settings().listener(event -> {
      throw new IllegalStateException("listener");
    }).build());
    refusedThreeTimes("q");

    assertThat(ask(3.5, "q")).startsWith("fail fast");
  }

  @Test
  void settingsThatMakeNoSenseAreRefusedWithAMessageThatNamesThem() {
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
            () -> settings().floor(Duration.ofSeconds(400)).build()))
        .hasMessage("adaptive timeouts: floor 400 s is above the default budget 300 s: "
            + "expected a floor at most the default budget");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> settings().margin(0.5).build()))
        .hasMessage("adaptive timeouts: margin 0.5 is not a factor of 1 or more: "
            + "a budget below what a kind took would cut it off");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> settings().percentile(95).build()))
        .hasMessageStartingWith("adaptive timeouts: percentile 95.0 is not in (0, 1]");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> settings().window(0).build()))
        .hasMessage("adaptive timeouts: window 0 is not a count: expected 1 or more");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
            () -> settings().coolDown(Duration.ofSeconds(10), Duration.ofSeconds(5)).build()))
        .hasMessage("adaptive timeouts: maxCoolDown 5 s is below coolDown 10 s: "
            + "expected the cool-down to grow, not shrink");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
            () -> settings().defaultBudget(Duration.ZERO).build()))
        .hasMessage("adaptive timeouts: defaultBudget PT0S is not positive: expected a duration above 0");
  }

  @Test
  void theDefaults() {
    AdaptiveTimeouts defaults = AdaptiveTimeouts.defaults();

    assertThat(defaults.defaultBudget()).hasSeconds(60);
    assertThat(defaults.floor()).hasSeconds(6);
    assertThat(defaults.degradedBudget()).hasSeconds(6);
    assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
    assertThat(TimeoutPolicy.adaptive()).hasToString("adaptive(default 60 s, floor 6 s, margin 2.0)");
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.KnownHosts;
import io.hostpace.testing.TokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SPEC P12, first contact, in virtual time: a host nothing is known of opens with one request in
 * flight, its first accepted answer lets one more start alone, and each later one lets two more
 * start up to four in flight, then it widens by one a round trip, up to its in-flight limit; a
 * refusal ends the widening at what was accepted (SPEC R12: a bare one leaves the host to its
 * bracket). Every answer comes 50 ms after its start.
 */
class FirstContactTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok().after(Duration.ofMillis(50)));

  Hostpace.Builder gentle() {
    return Hostpace.builder().time(time); // opens gently unless told otherwise
  }

  void submit(Hostpace engine, String host, int requests) {
    for (int i = 0; i < requests; i++) {
      engine.execute(server.get("http://" + host + "/" + i));
    }
  }

  /**
   * Scripts the server as a token bucket of one a second, burst 1, answering a bare 429 beyond it,
   * and returns the times it refused at, in seconds from now.
   */
  List<Double> oneASecond() {
    return bucketOf(1);
  }

  /** As {@link #oneASecond}, at {@code rate} a second. */
  List<Double> bucketOf(double rate) {
    return served(TokenBucket.of(rate, 1, time.nanoTime()));
  }

  /** Scripts the server as {@code bucket}, a bare 429 beyond it; the times it refused at, in seconds from now. */
  List<Double> served(TokenBucket bucket) {
    long from = time.nanoTime();
    List<Double> refused = new ArrayList<>();
    server.script(exchange -> {
      if (bucket.admit(time.nanoTime())) {
        return Reply.ok().after(Duration.ofMillis(50));
      }
      refused.add((time.nanoTime() - from) / 1e9);
      return Reply.status(429).after(Duration.ofMillis(50));
    });
    return refused;
  }

  /** {@code requests} calls to {@code host}, each its own path. */
  List<CompletableFuture<FakeServer.Response>> calls(Hostpace engine, String host, int requests) {
    List<CompletableFuture<FakeServer.Response>> calls = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      calls.add(engine.execute(server.get("http://" + host + "/" + i)));
    }
    return calls;
  }

  /** How many started at each of the given times, in seconds with three decimals. */
  long startedAt(String at) {
    return server.starts().stream().filter(start -> start.startsWith(at + " ")).count();
  }

  @Test
  void P12_aHostNothingIsKnownOfOpensWithOneRequestThenOneAloneThenTwoMoreAnAnswerUpToFourThenOneMoreARoundTrip() {
    Hostpace engine = gentle().build();
    submit(engine, "fresh.test", 32);
    time.advance(Duration.ofSeconds(1));

    // 1, then 1 alone at the first answer, then 2 and 4 at one round trip each (each accepted
    // answer lets two start), then one wider a round trip: 5, 6, 7, and the last 6 at 0.35 s.
    // Without the opening all 32 start at 0 s: the opening costs a fast host seven round trips here.
    assertThat(startedAt("0.000")).isEqualTo(1);
    assertThat(startedAt("0.050")).isEqualTo(1);
    assertThat(startedAt("0.100")).isEqualTo(2);
    assertThat(startedAt("0.150")).isEqualTo(4);
    assertThat(startedAt("0.200")).isEqualTo(5);
    assertThat(startedAt("0.250")).isEqualTo(6);
    assertThat(startedAt("0.300")).isEqualTo(7);
    assertThat(startedAt("0.350")).isEqualTo(6);
    // Nothing refused, no queue held; what the opening widened to is kept an hour, then forgotten.
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.queues()).isZero());
    time.advance(Duration.ofHours(1));
    assertThat(engine.snapshot()).isEmpty();
  }

  @Test
  void P12_theOpeningWidensUpToTheInFlightLimitAndEndsThere() {
    Hostpace engine = gentle().limitsForEveryHost(Limits.inFlight(4)).build();
    submit(engine, "fresh.test", 20);
    time.advance(Duration.ofMillis(120));
    assertThat(server.starts()).hasSize(1 + 1 + 2);
    time.advance(Duration.ofSeconds(1));

    // From 0.15 s on the limit for every host (4) holds, as without an opening.
    assertThat(startedAt("0.150")).isEqualTo(4);
    assertThat(startedAt("0.200")).isEqualTo(4);
    assertThat(startedAt("0.250")).isEqualTo(4);
    assertThat(server.starts()).hasSize(20);
  }

  @Test
  void P12_aRefusalThatAsksForAPauseEndsTheWideningAtWhatWasAcceptedWhichTheHostKeepsAsItsInFlightLimit() {
    AdmissionGate gate = new AdmissionGate(3); // a gate of three, refused beyond with Retry-After: 1
    server.script(exchange -> {
      if (!gate.admit(time.nanoTime())) {
        return Reply.refuse(429, "1").after(Duration.ofMillis(50));
      }
      time.schedule(() -> gate.end(time.nanoTime()), Duration.ofMillis(50).toNanos());
      return Reply.ok().after(Duration.ofMillis(50));
    });
    Hostpace engine = gentle().build();
    submit(engine, "gate.test", 30);
    time.advance(Duration.ofMillis(170));
    // 1, 1, 2, then 4 at 0.15 s: the fourth of them is refused, answered at 0.2 s.
    assertThat(server.starts()).hasSize(1 + 1 + 2 + 4);

    time.advance(Duration.ofSeconds(2));

    // The three accepted answers heard at 0.2 s before that refusal each let one more start (the
    // opening, four wide, widens only at a fourth); the refusal ended it and paused the host (the
    // refusals of those three until 1.25 s); the host keeps at most what was accepted at once as its
    // in-flight limit, and after the pause starts no more than it.
    int limit = engine.snapshot().get(0).inFlightLimit();
    assertThat(startedAt("0.200")).isEqualTo(3);
    assertThat(limit).isBetween(1, 3);
    assertThat(startedAt("1.250")).isEqualTo(limit); // the refusals of 0.25 s paused it until 1.25 s
  }

  @Test
  void P12_aBareRefusalEndsTheWideningAndLeavesTheHostToTheRulesIntervalNotToAnInFlightLimit() {
    AdmissionGate gate = new AdmissionGate(3); // a gate of three, refused beyond with a bare 429
    server.script(exchange -> {
      if (!gate.admit(time.nanoTime())) {
        return Reply.status(429).after(Duration.ofMillis(50));
      }
      time.schedule(() -> gate.end(time.nanoTime()), Duration.ofMillis(50).toNanos());
      return Reply.ok().after(Duration.ofMillis(50));
    });
    Hostpace engine = gentle().build();
    submit(engine, "gate.test", 30);
    time.advance(Duration.ofMillis(210));
    assertThat(startedAt("0.200")).isEqualTo(3);

    time.advance(Duration.ofSeconds(1));

    // A bare refusal is a rate's way (SPEC R9): the rule's interval spaces the starts from 0.2 s
    // on, one at a time, and no in-flight limit is learned from it.
    HostSnapshot host = engine.snapshot().get(0);
    assertThat(host.inFlightLimit()).isZero();
    assertThat(host.interval()).isPositive();
    // At 4 a second doubling each second, under a dozen starts in that second; the whole burst
    // the limit allows (24 more) would start at once without the interval.
    assertThat(server.starts().stream().filter(start -> start.compareTo("0.201") > 0 && start.compareTo("1.210") < 0))
        .hasSizeBetween(2, 12);
  }

  @Test
  void P12_aRefusalOfARequestTheOpeningStartedInTheMomentARefusalEndedItCutsNoFurther() {
    // A token bucket of 20 a second, burst 1: at 0.1 s two answers of one moment, accepted then
    // refused. The accepted one widens the opening (two more start at 0.1 s) before the refusal
    // ends it; one of those two is refused at 0.15 s. It went with the opening, not at the pace the
    // end set, so it does not cut that pace again: the rule climbs from its slow start, 4 a second
    // doubling each second, and reaches the bucket's rate within seconds.
    TokenBucket bucket = TokenBucket.of(20, 1, time.nanoTime());
    server.script(exchange -> (bucket.admit(time.nanoTime()) ? Reply.ok() : Reply.status(429))
        .after(Duration.ofMillis(50)));
    Hostpace engine = gentle().build();
    submit(engine, "rate.test", 200);
    time.advance(Duration.ofSeconds(5));
    long before = server.starts().size();
    time.advance(Duration.ofSeconds(1));

    // From 5 s to 6 s: the bucket's 20, give or take one (a cut there would leave four).
    assertThat(server.starts().size() - before).isBetween(18L, 21L);
  }

  @Test
  void P12_aRefusalBeforeAnythingWasAcceptedLeavesTheOpeningAtOne() {
    // The first request is refused with Retry-After: 1, everything after is accepted.
    int[] answered = {0};
    server.script(exchange -> answered[0]++ == 0
        ? Reply.refuse(503, "1").after(Duration.ofMillis(50))
        : Reply.ok().after(Duration.ofMillis(50)));
    Hostpace engine = gentle().build();
    submit(engine, "paused.test", 20);
    time.advance(Duration.ofMillis(1100));

    // Nothing was accepted to widen from: after the pause one request starts, not the burst, and
    // no in-flight limit is learned from nothing.
    assertThat(startedAt("1.050")).isEqualTo(1);
    assertThat(engine.snapshot().get(0).inFlightLimit()).isZero();
    time.advance(Duration.ofMillis(110));
    assertThat(startedAt("1.100")).isEqualTo(1); // then it widens as any opening does: one alone,
    assertThat(startedAt("1.150")).isEqualTo(2); // then two
  }

  @Test
  void P12_aHostToldLimitsByItsKeyOrAGroupOpensWithWhatItWasTold() {
    Hostpace byKey = gentle().addLimit("told.test", Limits.inFlight(8)).build();
    submit(byKey, "told.test", 8);
    Hostpace byGroup = gentle().addLimit("*.group.test", Limits.inFlight(6)).build();
    submit(byGroup, "a.group.test", 6);
    time.runDue();

    assertThat(startedAt("0.000")).isEqualTo(8 + 6);
  }

  @Test
  void P12_aHostWhoseStateWasKeptIsKnownAndOpensAtWhatWasKept() {
    HostStateStore kept = KnownHosts.holding(4); // as a state file keeps an in-flight limit of 4
    Hostpace engine = gentle().hostStateStore(kept).build();
    submit(engine, "kept.test", 10);
    time.runDue();

    assertThat(startedAt("0.000")).isEqualTo(4);
  }

  @Test
  void P12_switchedOffOrWithTheSeedsRuleTheWholeBurstStartsAtOnce() {
    submit(Hostpace.builder().time(time).widenFirstContact(false).build(), "off.test", 32);
    submit(gentle().learningRule(LearningRule.seed()).build(), "seed.test", 32);
    time.runDue();

    assertThat(startedAt("0.000")).isEqualTo(64);
  }

  @Test
  void P12_whatTheOpeningWidenedToIsKeptWhileTheHostIsIdleAndForgottenWithWhatItTaught() {
    Hostpace engine = gentle().forgetIdleAfter(Duration.ofMinutes(10)).build();
    // 1 at 0 s, 1 at 0.05 s, 2 at 0.1 s, the last 3 at 0.15 s: the opening widens to 4
    submit(engine, "fresh.test", 7);
    time.advance(Duration.ofSeconds(1));
    assertThat(startedAt("0.100")).isEqualTo(2);
    assertThat(startedAt("0.150")).isEqualTo(3);

    // Idle since 0.2 s, its queue let go; met again a minute later, the host is known: it opens
    // at the four its answers widened it to, not at one, and widens on from there (one more at
    // the fourth answer).
    time.advance(Duration.ofSeconds(59));
    submit(engine, "fresh.test", 10);
    time.advance(Duration.ofSeconds(1));
    assertThat(startedAt("60.000")).isEqualTo(4);
    assertThat(startedAt("60.050")).isEqualTo(5);
    assertThat(startedAt("60.100")).isEqualTo(1);

    // Idle for the forget time since its last start (60.1 s): what it taught is forgotten, and
    // met again it opens at one as on first contact.
    time.advance(Duration.ofMinutes(10));
    submit(engine, "fresh.test", 3);
    time.advance(Duration.ofSeconds(1));
    assertThat(startedAt("661.000")).isEqualTo(1);
    assertThat(startedAt("661.050")).isEqualTo(1);
    assertThat(startedAt("661.100")).isEqualTo(1);
  }

  @Test
  void P12_anIdleHostWhoseLessonsAreForgottenWhileSomethingElseHoldsItOpensAtOneAgain() {
    // Every answer announces 10 left until a reset a minute away: few enough that the host is held
    // while idle until that reset (SPEC R8), though what it taught is forgotten at once.
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(50))
        .header("X-RateLimit-Remaining", "10").header("X-RateLimit-Reset", "60"));
    Hostpace engine = gentle().forgetIdleAfter(Duration.ZERO).build();
    submit(engine, "quota.test", 3); // 1 at 0 s, 1 at 0.05 s, 1 at 0.1 s: the opening widens to 2
    time.advance(Duration.ofSeconds(10));
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.queues()).isZero());

    submit(engine, "quota.test", 4);
    time.advance(Duration.ofSeconds(1));

    // Known no more: one request, as on first contact, not the two it had been widened to.
    assertThat(startedAt("10.000")).isEqualTo(1);
    assertThat(startedAt("10.050")).isEqualTo(1);
    assertThat(startedAt("10.100")).isEqualTo(2);
  }

  @Test
  void P12_forgettingTheHostEndsItsOpening() {
    Hostpace engine = gentle().build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    submit(engine, "fresh.test", 10);
    time.runDue();
    assertThat(server.starts()).hasSize(1);

    engine.forget("fresh.test");
    time.runDue();

    // Forgetting looks at the host's queue again, held no more by an opening.
    assertThat(startedAt("0.000")).isEqualTo(10);
  }

  @Test
  void R12_twentyRequestsToAHostOfOneASecondMetForTheFirstTimeCostFourRefusalsAndNoneIsLost() {
    // A token bucket of one a second, burst 1, bare 429: the opening's second request is refused,
    // then the slow start's 4 a second and the bracket's next gap (SPEC R12), then the lower end
    // tried again alone (a bucket that counted refusals would have taken it); every gap after is
    // accepted.
    List<Double> refused = oneASecond();
    var calls = calls(gentle().build(), "one.test", 20);
    time.advance(Duration.ofSeconds(60));

    assertThat(refused).hasSize(4);
    assertThat(refused.get(3)).as("the try of the lower end, 0.9 s after the first gap accepted").isBetween(3.5, 3.8);
    assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
  }

  @Test
  void R12_aHostThatAcceptedThreeRequestsNothingPacedAndThenRefusedIsBracketedNotPacedAtTheirRoundTrip() {
    // A token bucket of 50 a second, burst 1: the opening's 1, 1 and 2 come a round trip (50 ms)
    // apart; the first three are accepted and the fourth, started with the third, is refused. Read
    // as a measured rate, those answers say 20 a second, where the host takes 50; bracketed, the
    // refused gap of nothing says a fast host, left to the slow start, which doubles to its rate.
    TokenBucket bucket = TokenBucket.of(50, 1, time.nanoTime());
    server.script(exchange -> bucket.admit(time.nanoTime())
        ? Reply.ok().after(Duration.ofMillis(50)) : Reply.status(429).after(Duration.ofMillis(50)));
    Hostpace engine = gentle().build();
    submit(engine, "fifty.test", 1000);
    time.advance(Duration.ofSeconds(10));

    assertThat(startedAt("0.100")).as("the opening's third round").isEqualTo(2);
    long from5To10 = server.starts().stream().filter(start -> start.compareTo("5") >= 0).count();
    // At 20 a second it would start under 100 in those five seconds; near the host's 50, over 200.
    assertThat(from5To10).isGreaterThan(200);
  }
  @Test
  void R12_aProbeBeyondThePlateauRefusedAtTheRateTheBracketFoundPutsTheNextProbeTwiceAsFarAsAfterAnyOther() {
    // The host of one a second again, 150 requests: four refusals as above, then the rule's
    // probes beyond its plateau. The first, refused at the rate the bracket narrowed to, confirms it:
    // the time to the plateau goes from 10 s to 40 s, not 20, so the second probe comes about a
    // minute after the first, not half a minute.
    List<Double> refused = oneASecond();
    var calls = calls(gentle().build(), "one.test", 150);
    time.advance(Duration.ofSeconds(170));

    assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    assertThat(refused).hasSizeGreaterThanOrEqualTo(6);
    assertThat(refused.subList(0, 3)).as("first contact's").allSatisfy(at -> assertThat(at).isLessThan(1.0));
    assertThat(refused.get(3)).as("the try of the lower end").isLessThan(5.0);
    assertThat(refused.get(4)).as("the first probe").isBetween(20.0, 35.0);
    // With the time to the plateau at 20 s the next probe came 31.5 s after the first.
    assertThat(refused.get(5) - refused.get(4)).as("from the first probe to the second").isGreaterThan(50.0);
  }

  @Test
  void R12_aBucketThatCountsRefusalsAgainstTheClientIsPacedAtItsRateNotAtTheOneItsDebtMadeTheGapsRead() {
    // Five a second, burst 1, and each refused request takes a token too: the opening's second and
    // the slow start's refusals put it in debt, so the bracket's lower end (0.30 s) is the debt's.
    // Tried again alone, it is accepted, and the gaps are read as a counting bucket's: paced near
    // its rate within seconds, where reading the debt as its interval held it under three a second.
    List<Double> refused = served(TokenBucket.countingRefusals(5, 1, time.nanoTime()));
    Hostpace engine = gentle().build();
    submit(engine, "counting.test", 400);
    time.advance(Duration.ofSeconds(10));
    long before = server.starts().size();
    time.advance(Duration.ofSeconds(10));

    assertThat(refused.subList(0, 2)).as("first contact's").allSatisfy(at -> assertThat(at).isLessThan(1.0));
    assertThat(refused).as("first contact's, the bracket's one refusal beyond the rate, no more").hasSizeLessThanOrEqualTo(4);
    // From 10 s to 20 s near the host's five a second: read as a plain bucket, under three.
    assertThat(server.starts().size() - before).isGreaterThan(45);
  }

  @Test
  void R12_aBracketThatNarrowedOnARefusalReadAloneIsConfirmedByItAndTheFirstProbeComesAsAfterAConfirmingOne() {
    // A token bucket of one in 1.05 s: first contact's three refusals and the try of the lower
    // end, then the bracket's gaps
    // come down to 1.095 s, accepted, and 1.022 s, refused with nothing refused since the start it
    // is read from: no refusal counted against the client can have refused it, and it is within
    // 1.1 times the gap accepted, as the first probe beyond the plateau would be. So that probe is
    // not sent: the time to the plateau is 40 s at once, and the first probe comes about a minute
    // after the bracket, not twenty seconds.
    List<Double> refused = bucketOf(1 / 1.05);
    var calls = calls(gentle().build(), "slow.test", 120);
    time.advance(Duration.ofSeconds(150));

    assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    assertThat(refused.subList(0, 3)).as("first contact's").allSatisfy(at -> assertThat(at).isLessThan(1.0));
    assertThat(refused.get(3)).as("the try of the lower end").isLessThan(5.0);
    assertThat(refused.get(4)).as("the bracket's refusal read alone").isBetween(5.0, 15.0);
    assertThat(refused.get(5) - refused.get(4)).as("from the bracket's refusal to the first probe").isGreaterThan(50.0);
  }
}

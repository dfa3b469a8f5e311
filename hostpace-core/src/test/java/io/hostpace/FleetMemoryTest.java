package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Fleet;
import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.TokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SPEC S3: what hosts taught lives in the fleet, so a worker that joins late, or restarts, starts
 * from it (one read before its first start, no opening), and it lasts while the host is in use.
 */
class FleetMemoryTest {

  static final Duration SECOND = Duration.ofSeconds(1);

  final VirtualTime time = VirtualTime.create();
  /** One start a second, burst 1, refused with a bare 429: QLever's Wikidata endpoint. */
  final TokenBucket bucket = TokenBucket.of(1, 1, time.nanoTime());
  final List<Double> refusedAt = new ArrayList<>();
  final List<Double> acceptedAt = new ArrayList<>();
  final FakeServer server = new FakeServer(time, exchange -> {
    long now = time.nanoTime();
    if (bucket.admit(now)) {
      acceptedAt.add((now - origin()) / 1e9);
      return Reply.ok().after(Duration.ofMillis(50));
    }
    refusedAt.add((now - origin()) / 1e9);
    return Reply.status(429).after(Duration.ofMillis(50));
  });
  final LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(1));

  long origin() {
    return server.origin();
  }

  Hostpace worker(Fleet member) {
    return Hostpace.builder().time(time).fleet(member).build();
  }

  List<CompletableFuture<Response>> fetch(Hostpace engine, String prefix, int count) {
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      calls.add(engine.execute(server.get("http://qlever.test/" + prefix + i)));
    }
    return calls;
  }

  /**
   * A worker that joins the fleet now sends {@code count} requests of {@code prefix} at once;
   * after {@code waiting}, the times the server saw them start.
   */
  List<String> newcomersStarts(String prefix, int count, Duration waiting) {
    fetch(worker(fleet.join()), prefix, count);
    time.advance(waiting);
    return server.startTimes("/" + prefix);
  }

  /** How many refusals the server gave from {@code fromSeconds} on. */
  long refusalsFrom(double fromSeconds) {
    return refusedAt.stream().filter(t -> t >= fromSeconds).count();
  }

  /** Four workers start 30 s apart with 20 requests each on a host of one a second; returns the refusals after the first's 30 s. */
  long lateJoinersRefusals(Consumer<List<Hostpace>> joining, java.util.function.Supplier<Fleet> member) {
    List<Hostpace> workers = new ArrayList<>();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    workers.add(worker(member.get()));
    calls.addAll(fetch(workers.get(0), "w0-", 60));
    for (int w = 1; w < 4; w++) {
      time.advance(Duration.ofSeconds(30));
      Hostpace late = worker(member.get());
      workers.add(late);
      calls.addAll(fetch(late, "w" + w + "-", 20));
    }
    joining.accept(workers);
    time.runUntilIdle(Duration.ofMinutes(30));
    calls.forEach(call -> assertThat(call.join().status()).isEqualTo(200));
    return refusalsFrom(30);
  }

  @Test
  void S3_workersThatJoinLateStartFromThePaceTheFleetLearnedWithNoOpeningBurst() {
    // The first worker has learned the host's second by 30 s; the three that join 30 s apart
    // read it before their first start and go at it: at most one refusal each, the target.
    long refused = lateJoinersRefusals(workers -> {}, fleet::join);

    assertThat(refused).as("refused at %s", refusedAt).isLessThanOrEqualTo(3);
    assertThat(fleet.kept("qlever.test")).isNotNull();
    assertThat(fleet.kept("qlever.test").intervalNanos()).isBetween(SECOND.toNanos(), SECOND.toNanos() * 2);
  }

  @Test
  void S3_R14_whileARunOfRefusalsHoldsAStartBackTheFleetKeepsTheHostsPaceNotTheWait() {
    Fleet first = fleet.join();
    first.keep(RunOfRefusals.HOST, new Fleet.Kept(SECOND.toNanos(), 0, 0, 0, 0, 0), Duration.ofHours(1).toNanos());

    long waiting = new RunOfRefusals(time, Hostpace.builder().fleet(first)).untilTheRunWaits();

    long pace = fleet.kept(RunOfRefusals.HOST).intervalNanos();
    assertThat(pace).isPositive();
    assertThat(waiting).isEqualTo(2 * pace);
  }

  @Test
  void S3_workersThatJoinLateLeaveTheProbingToTheFleetSoItHoldsTheHostsRate() {
    // Four workers 30 s apart with 75 requests each, as each joins, on a host of one a second: from
    // the second's joining on, the fleet holds within 3 % of the host's rate. Each newcomer goes on
    // at the pace it read (SPEC S3) and drops with the fleet at a refusal another met; probing
    // beyond that pace soon after it joined, each was refused its own probe, and the fleet's pace
    // dropped with it.
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      calls.addAll(fetch(worker(fleet.join()), "w" + w + "-", 75));
      time.advance(Duration.ofSeconds(30));
    }
    time.runUntilIdle(Duration.ofMinutes(30));

    calls.forEach(call -> assertThat(call.join().status()).isEqualTo(200));
    // from the second worker's joining to 270 s, more than one at work: 240 s of the host's, of
    // which the fleet is to hold 97 % (233 starts)
    long held = acceptedAt.stream().filter(t -> t >= 30 && t < 270).count();
    long refused = refusedAt.stream().filter(t -> t >= 30 && t < 270).count();
    assertThat(held).as("accepted from 30 s to 270 s, refused at %s", refusedAt).isGreaterThanOrEqualTo(233);
    // the fleet's probes alone, one a plateau or more apart, none a newcomer's own soon after it joined
    assertThat(refused).as("refused at %s", refusedAt).isLessThanOrEqualTo(3);
  }

  @Test
  void S3_withoutWhatTheFleetKeepsTheLateWorkersEachOpenAsOnFirstContact() {
    // The same run through a fleet that keeps nothing (SPEC S2 alone): each late worker knows the
    // host only once its own first answers and the others' lessons teach it.
    long refused = lateJoinersRefusals(workers -> {}, () -> new MessagesOnly(fleet.join()));

    assertThat(refused).as("refused at %s", refusedAt).isGreaterThan(3);
  }

  @Test
  void S3_aWorkerMeetingAHostWaitsOneReadOfTheFleetBeforeItsFirstStart() {
    Hostpace engine = worker(fleet.join());
    CompletableFuture<Response> call = engine.execute(server.get("http://qlever.test/first"));
    time.advance(Duration.ofSeconds(1));

    assertThat(call.join().status()).isEqualTo(200);
    assertThat(server.startTimes("/first")).containsExactly("0.002"); // the read's round trip, 1 ms each way
  }

  @Test
  void S3_aHostTheFleetKnowsNothingOfOpensWithOneInFlightAsOnFirstContact() {
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(100)));
    List<String> starts = newcomersStarts("r", 4, Duration.ofSeconds(1));

    // one, then one alone on its answer, then the last two on that one's (SPEC P12)
    assertThat(starts).containsExactly("0.002", "0.102", "0.202", "0.202");
  }

  @Test
  void S3_aHostTheFleetKnowsOpensWithWhatItWasToldNotOneAtATime() {
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(100)));
    fleet.join().keep("qlever.test", new Fleet.Kept(0, 4, 0, 0, 0, 0), Duration.ofHours(1).toNanos());
    time.advance(Duration.ofMillis(10));
    List<String> starts = newcomersStarts("r", 6, Duration.ofSeconds(1));

    // the in-flight limit of four the fleet keeps, from the first start: known, no opening; each
    // start claims one of the fleet's places of it (SPEC S2), a round trip each, one at a time
    assertThat(starts).containsExactly("0.014", "0.016", "0.018", "0.020", "0.116", "0.118");
  }

  @Test
  void S3_aKeptPauseIsHeldToThisEnginesRetryDelayLimit() {
    server.script(exchange -> Reply.ok());
    fleet.join().keep("qlever.test", new Fleet.Kept(0, 0, 0, 0, 0, Duration.ofHours(24).toNanos()),
        Duration.ofHours(25).toNanos());
    time.advance(Duration.ofMillis(10));
    Hostpace engine = Hostpace.builder().time(time).retryDelayLimit(Duration.ofSeconds(5)).fleet(fleet.join()).build();
    CompletableFuture<Response> call = engine.execute(server.get("http://qlever.test/after"));
    time.advance(Duration.ofSeconds(10));

    assertThat(call.join().status()).isEqualTo(200);
    // read at 0.012 with a day of pause left, held to 5 s: a day would still be waited out
    assertThat(server.startTimes("/after")).containsExactly("5.012");
  }

  @Test
  void S3_aKeptQuotaWhoseWindowIsFullHoldsTheNewcomerUntilTheWindowEnds() {
    server.script(exchange -> Reply.ok());
    long minute = Duration.ofMinutes(1).toNanos();
    fleet.join().keep("qlever.test", new Fleet.Kept(0, 0, 3, minute, Duration.ofSeconds(40).toNanos(), 0),
        Duration.ofHours(1).toNanos());
    time.advance(Duration.ofMillis(10));
    List<String> starts = newcomersStarts("q", 4, Duration.ofMinutes(3));

    // the window the fleet kept as full (at 0.001) ends at 40.001, as read at 0.011 and answered
    // at 0.012: 40.002; each start claims one of the fleet's places of the quota first, and a
    // window's probe the fleet's one place of the host's probe before it (SPEC S2): the probe at
    // 40.006, the two more once it was accepted (100 ms), the fourth a window after the probe
    assertThat(starts).containsExactly("40.006", "40.108", "40.110", "100.010");
  }

  @Test
  void S3_aRateTheEngineLearnedLastsInTheFleetWhileTheHostAnswersAndGoesAfterForgetIdleAfter() {
    // Learned at one a second; then a request every minute for half an hour, each unchanged: kept
    // again each quarter of forgetIdleAfter (10 minutes), so it lasts; then idle, gone.
    Hostpace engine = Hostpace.builder().time(time).forgetIdleAfter(Duration.ofMinutes(10))
        .learningRule(FleetTest.ONE_A_SECOND_ONCE_REFUSED).fleet(fleet.join()).build();
    fetch(engine, "learn", 20);
    time.advance(Duration.ofSeconds(60));
    assertThat(fleet.kept("qlever.test")).isNotNull();
    for (int m = 0; m < 30; m++) {
      engine.execute(server.get("http://qlever.test/m" + m));
      time.advance(Duration.ofMinutes(1));
    }
    assertThat(fleet.kept("qlever.test")).as("in use for half an hour").isNotNull();
    time.advance(Duration.ofMinutes(11));
    assertThat(fleet.kept("qlever.test")).as("idle for longer than forgetIdleAfter").isNull();
  }

  @Test
  void S3_whatIsKeptIsWrittenWhenItChangesNotOnEveryAnswer() {
    server.script(exchange -> Reply.ok());
    CountingKeeps member = new CountingKeeps(fleet.join());
    Hostpace engine = Hostpace.builder().time(time).addLimit("qlever.test", Limits.inFlight(1)).fleet(member).build();
    List<CompletableFuture<Response>> calls = fetch(engine, "r", 50);
    time.advance(Duration.ofSeconds(10));

    calls.forEach(call -> assertThat(call.join().status()).isEqualTo(200));
    assertThat(member.keeps.get()).as("nothing taught, nothing kept").isZero();

    server.script(exchange -> Reply.refuse(429, "1"));
    engine.execute(server.get("http://qlever.test/paused"));
    time.advance(Duration.ofMillis(200));
    assertThat(member.keeps.get()).as("the pause, once").isEqualTo(1);
  }

  /**
   * Eight requests at once to a host that pauses them: the first answered at 50 ms with a 429 and
   * a {@code Retry-After} of 5 s; the others answered later, during the pause, ok, or, the one
   * numbered {@code refusedAgain} (0 for none), with a 429 and a {@code Retry-After} of 10 s.
   * Returns the keeps counted at 0.5 s, 1 s, 20 s.
   */
  List<Integer> keepsOfAPausedHostWhoseAnswersKeepArriving(int refusedAgain) {
    AtomicInteger served = new AtomicInteger();
    server.script(exchange -> {
      int n = served.getAndIncrement();
      if (n == 0) {
        return Reply.refuse(429, "5").after(Duration.ofMillis(50));
      }
      if (n == refusedAgain) {
        return Reply.refuse(429, "10").after(Duration.ofMillis(600));
      }
      return Reply.ok().after(Duration.ofMillis(100 + 50 * n));
    });
    CountingKeeps member = new CountingKeeps(fleet.join());
    Hostpace engine = Hostpace.builder().time(time).addLimit("qlever.test", Limits.inFlight(8)).fleet(member).build();
    List<CompletableFuture<Response>> calls = fetch(engine, "p", 8);
    List<Integer> keeps = new ArrayList<>();
    for (Duration at : List.of(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(19))) {
      time.advance(at);
      keeps.add(member.keeps.get());
    }
    calls.forEach(call -> assertThat(call.join().status()).isEqualTo(200));
    return keeps;
  }

  @Test
  void S3_aPausedHostWhoseAnswersKeepArrivingIsKeptOnceNotOnEachAnswer() {
    // Six answers arrive during the pause, each with less of it left but the same end: the pause
    // is kept once, at 50 ms; and once more when it is over (none left), by the retry's answer.
    assertThat(keepsOfAPausedHostWhoseAnswersKeepArriving(0)).containsExactly(1, 1, 2);
  }

  @Test
  void S3_aNewPauseIsKeptAtOnceThoughTheAnswersAroundItAreNot() {
    // The answer at 0.6 s (the second request's) pauses the host anew, to 10.6 s: kept at once,
    // the ok answers before and after it not; and once more when the pause is over.
    assertThat(keepsOfAPausedHostWhoseAnswersKeepArriving(1)).containsExactly(1, 2, 3);
  }

  /** Cases of {@link FleetMemory#movedBeyondNoise}: what was kept at 10 s, what a host holds later, and whether it moved. */
  static Stream<Arguments> keptAndHeld() {
    long ms = 1_000_000L;
    long at = 10_000 * ms;
    Fleet.Kept paced = new Fleet.Kept(250 * ms, 0, 0, 0, 0, 0);
    Fleet.Kept paused = new Fleet.Kept(250 * ms, 0, 0, 0, 0, 5_000 * ms);
    Fleet.Kept quota = new Fleet.Kept(0, 2, 10, 60_000 * ms, 0, 0);
    return Stream.of(
        Arguments.of("the same, a second later", paced, new Fleet.Kept(250 * ms, 0, 0, 0, 0, 0), at + 1_000 * ms, false),
        Arguments.of("a 1 ms wobble of a 250 ms interval", paced, new Fleet.Kept(251 * ms, 0, 0, 0, 0, 0), at, false),
        Arguments.of("a 1 ms wobble down", paced, new Fleet.Kept(249 * ms, 0, 0, 0, 0, 0), at, false),
        Arguments.of("30 % longer", paced, new Fleet.Kept(325 * ms, 0, 0, 0, 0, 0), at, true),
        Arguments.of("30 % shorter", paced, new Fleet.Kept(175 * ms, 0, 0, 0, 0, 0), at, true),
        Arguments.of("an interval from 0 to 100 ms", Fleet.Kept.NOTHING, new Fleet.Kept(100 * ms, 0, 0, 0, 0, 0), at, true),
        Arguments.of("an interval from 100 ms to 0", new Fleet.Kept(100 * ms, 0, 0, 0, 0, 0), Fleet.Kept.NOTHING, at, true),
        Arguments.of("a pause asked 100 ms later, the same end", paused,
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 4_900 * ms), at + 100 * ms, false),
        Arguments.of("a pause asked 100 ms later, its end 0.5 ms off", paused,
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 4_900 * ms + ms / 2), at + 100 * ms, false),
        Arguments.of("a pause asked 100 ms later, ending 2 ms later", paused,
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 4_902 * ms), at + 100 * ms, true),
        Arguments.of("a new pause", paced, new Fleet.Kept(250 * ms, 0, 0, 0, 0, 5_000 * ms), at + 100 * ms, true),
        Arguments.of("a pause over", paused, paced, at + 5_000 * ms, true),
        Arguments.of("the in-flight limit changed", quota, new Fleet.Kept(0, 3, 10, 60_000 * ms, 0, 0), at, true),
        Arguments.of("the quota's permits changed", quota, new Fleet.Kept(0, 2, 11, 60_000 * ms, 0, 0), at, true),
        Arguments.of("the quota's window changed", quota, new Fleet.Kept(0, 2, 10, 30_000 * ms, 0, 0), at, true),
        Arguments.of("the quota's window full, none before", quota,
            new Fleet.Kept(0, 2, 10, 60_000 * ms, 40_000 * ms, 0), at, true),
        Arguments.of("the quota's window full, asked 100 ms later, the same end",
            new Fleet.Kept(0, 2, 10, 60_000 * ms, 40_000 * ms, 0),
            new Fleet.Kept(0, 2, 10, 60_000 * ms, 39_900 * ms, 0), at + 100 * ms, false),
        Arguments.of("an announced quota's starts a window, none before", paced,
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 0, 10, 5_000 * ms, 3_000 * ms), at, true),
        Arguments.of("an announced quota's reset a second on, the same window",
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 0, 10, 5_000 * ms, 3_000 * ms),
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 0, 10, 5_000 * ms, 2_000 * ms), at + 1_000 * ms, false),
        Arguments.of("an announced quota's window longer by a second",
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 0, 10, 4_000 * ms, 3_000 * ms),
            new Fleet.Kept(250 * ms, 0, 0, 0, 0, 0, 10, 5_000 * ms, 3_000 * ms), at, true),
        Arguments.of("the quota's next window full",
            new Fleet.Kept(0, 2, 10, 60_000 * ms, 40_000 * ms, 0),
            new Fleet.Kept(0, 2, 10, 60_000 * ms, 59_000 * ms, 0), at + 41_000 * ms, true));
  }

  @ParameterizedTest(name = "{0}: moved {4}")
  @MethodSource("keptAndHeld")
  void S3_whatIsKeptMovesOnlyBeyondItsNoise(String what, Fleet.Kept last, Fleet.Kept held, long at, boolean moved) {
    assertThat(FleetMemory.movedBeyondNoise(last, 10_000_000_000L, held, at)).as(what).isEqualTo(moved);
  }

  @Test
  void S3_R7_forgettingAHostForgetsWhatTheFleetKeepsOfItSoThatItIsNotReadBack() {
    server.script(exchange -> Reply.ok());
    Hostpace engine = worker(fleet.join());
    fleet.join().keep("qlever.test", new Fleet.Kept(SECOND.toNanos(), 0, 0, 0, 0, 0), Duration.ofHours(1).toNanos());
    time.advance(Duration.ofMillis(10));
    engine.execute(server.get("http://qlever.test/one"));
    time.advance(Duration.ofSeconds(1));
    assertThat(engine.snapshot()).anySatisfy(host -> assertThat(host.interval()).isEqualTo(SECOND));

    engine.forget("qlever.test");
    time.advance(Duration.ofMillis(10));
    assertThat(fleet.kept("qlever.test")).isNull();
    Hostpace other = worker(fleet.join());
    other.forget("never-met.test"); // a host this engine holds nothing of: the fleet forgets it too
    fleet.join().keep("never-met.test", new Fleet.Kept(SECOND.toNanos(), 0, 0, 0, 0, 0), Duration.ofHours(1).toNanos());
    time.advance(Duration.ofMillis(10));
    other.forget("never-met.test");
    time.advance(Duration.ofMillis(10));
    assertThat(fleet.kept("never-met.test")).isNull();
  }

  /**
   * Two processes each send 30 requests at 0 s, one at a time, to a host that counts 10 a minute
   * in fixed windows from 0 s and announces what remains of each ({@code RateLimit-Remaining},
   * {@code RateLimit-Reset}); beyond them, a bare 429 with the same headers. Returns the refusals.
   */
  int announcedQuotaRefusals(java.util.function.Supplier<Fleet> member) {
    int[] taken = new int[16];
    AtomicInteger refused = new AtomicInteger();
    long origin = time.nanoTime();
    server.script(exchange -> {
      long at = time.nanoTime() - origin;
      int minute = (int) (at / 60_000_000_000L);
      boolean accepted = ++taken[minute] <= 10;
      if (!accepted) {
        refused.incrementAndGet();
      }
      long reset = (minute + 1) * 60_000_000_000L - at;
      return (accepted ? Reply.ok() : Reply.status(429)).after(Duration.ofMillis(50))
          .header("RateLimit-Remaining", Integer.toString(Math.max(0, 10 - taken[minute])))
          .header("RateLimit-Reset", Long.toString((reset + 999_999_999L) / 1_000_000_000L));
    });
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      Hostpace engine = Hostpace.builder().time(time).addLimit("qlever.test", Limits.inFlight(1)).fleet(member.get()).build();
      calls.addAll(fetch(engine, "p" + p + "-", 30));
    }
    time.runUntilIdle(Duration.ofMinutes(10));
    calls.forEach(call -> assertThat(call.join().status()).isEqualTo(200));
    return refused.get();
  }

  @Test
  void S3_R8_theStartsAHostAnnouncesAreSpentByTheFleetTogetherNotOncePerProcess() {
    // Each process counts only its own starts against what the host announced: alone, both
    // spend the same "remaining", and in each window where both start the second is refused at
    // its end. This fleet keeps no waiters for the host's one place, so the process that lets it
    // go claims it again at once and keeps it: both start in four windows of five.
    int shared = announcedQuotaRefusals(fleet::join);
    int alone = announcedQuotaRefusals(() -> new MessagesOnly(fleet.join()));

    assertThat(alone).as("each process spending the same announcement").isEqualTo(4); // one a window both start in
    assertThat(shared).as("spent together").isZero();
  }

  /** A member of a fleet that keeps nothing: messages and claims alone (SPEC S2). */
  static final class MessagesOnly extends ForwardingFleet {
    MessagesOnly(Fleet member) {
      super(member);
    }

    @Override
    public boolean keeps() {
      return false;
    }
  }

  /** A member of a fleet that counts what it is asked to keep. */
  static final class CountingKeeps extends ForwardingFleet {
    final AtomicInteger keeps = new AtomicInteger();

    CountingKeeps(Fleet member) {
      super(member);
    }

    @Override
    public void keep(String key, Kept kept, long keepForNanos) {
      keeps.incrementAndGet();
      super.keep(key, kept, keepForNanos);
    }
  }
}

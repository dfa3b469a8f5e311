package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.KnownHosts;
import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.OnceRefused;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/** SPEC S2: engines of a fleet learn from each other's answers and space a paced host's starts together. */
class FleetTest {

  final VirtualTime time = VirtualTime.create();
  /** {@code /refuse} is refused once, bare; {@code /hold} answers after a minute; the rest at once. */
  final AtomicInteger refusals = new AtomicInteger();
  final FakeServer server = new FakeServer(time, exchange -> {
    String path = exchange.uri().getPath();
    if (path.startsWith("/refuse") && refusals.getAndIncrement() == 0) {
      return Reply.status(429);
    }
    if (path.startsWith("/wait") && refusals.getAndIncrement() == 0) {
      return Reply.refuse(429, "5");
    }
    return path.startsWith("/hold") ? Reply.ok().after(Duration.ofMinutes(1)) : Reply.ok();
  });
  final LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(1));

  /** A rule that paces a host at one a second once it refused, and keeps that pace. */
  static final LearningRule ONE_A_SECOND_ONCE_REFUSED = OnceRefused.paceEvery(Duration.ofSeconds(1));

  Hostpace process(LearningRule rule) {
    return Hostpace.builder().widenFirstContact(false).time(time).learningRule(rule).fleet(fleet.join()).build();
  }

  CompletableFuture<Response> get(Hostpace engine, String path) {
    return engine.execute(server.get("http://shared.test" + path));
  }

  /** The response of a call that must have ended by now (virtual time never waits). */
  static Response done(CompletableFuture<Response> call) {
    assertThat(call).as("the call has ended").isDone();
    return call.join();
  }

  static Duration interval(Hostpace engine, String key) {
    return engine.snapshot().stream().filter(h -> h.key().equals(key)).findFirst()
        .map(HostSnapshot::interval).orElse(Duration.ZERO);
  }

  /**
   * {@code processes} engines, a fleet's or each alone, that send 60 requests in all at once to
   * {@code host}, which takes 20 a minute from now and answers 50 ms later: the refusals it gives in
   * its first two seconds, those in flight as the window's 20 were spent.
   */
  long refusedAtTheWall(String host, int processes, boolean asAFleet) {
    FixedWindow window = FixedWindow.of(20, Duration.ofMinutes(1), time.nanoTime());
    long from = time.nanoTime();
    AtomicInteger refused = new AtomicInteger();
    FakeServer server = new FakeServer(time, exchange -> {
      if (window.admit(time.nanoTime())) {
        return Reply.ok().after(Duration.ofMillis(50));
      }
      if (time.nanoTime() - from < 2_000_000_000L) {
        refused.incrementAndGet();
      }
      return Reply.status(429).after(Duration.ofMillis(50));
    });
    for (int p = 0; p < processes; p++) {
      Hostpace.Builder builder = Hostpace.builder().time(time);
      Hostpace engine = (asAFleet ? builder.fleet(fleet.join()) : builder).build();
      for (int i = 0; i < 60 / processes; i++) {
        engine.execute(server.get("http://" + host + "/" + p + "/" + i));
      }
    }
    time.advance(Duration.ofSeconds(2));
    return refused.get();
  }

  @Test
  void P12_S2_aFleetOpensAHostAsOneEngineSoAWindowsWallMeetsNoMoreInFlightThanOneEngines() {
    long alone = refusedAtTheWall("alone.test", 1, false);
    long fleetOfThree = refusedAtTheWall("fleet.test", 3, true);

    // The opening widened by every process's answers, each process holding its third of it (rounded
    // up): as many in flight at the wall as one engine, where three opening alone had three times.
    assertThat(alone).isPositive();
    assertThat(fleetOfThree).isBetween(1L, alone + 2);
  }

  @Test
  void P12_S2_aGatesPauseEndsAFleetsOpeningAtTheFleetsWidthNotOneProcesssShareOfIt() {
    // A gate of four, each request held 0.5 s, refusing with Retry-After: 1; three processes of a
    // fleet send 20 requests each: 60 of 0.5 s, which the gate serves in 7.5 s at the least.
    AdmissionGate gate = new AdmissionGate(4);
    FakeServer server = new FakeServer(time, exchange -> {
      long now = time.nanoTime();
      return gate.admit(now, now + 500_000_000L) ? Reply.ok().after(Duration.ofMillis(500))
          : Reply.refuse(429, "1").after(Duration.ofMillis(500));
    });
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      Hostpace engine = Hostpace.builder().time(time).fleet(fleet.join()).build();
      for (int i = 0; i < 20; i++) {
        calls.add(engine.execute(server.get("http://gate.test/" + p + "/" + i)));
      }
    }
    time.advance(Duration.ofSeconds(11));

    // The gate's pause ended the opening while each process held its share of the width: the fleet
    // learns the width less the refused one and keeps the gate full. Learned as a process's own
    // count at once, its share, the fleet would keep the gate part empty and take longer.
    assertThat(calls).allSatisfy(call -> assertThat(done(call).status()).isEqualTo(200));
  }

  @Test
  void S2_aRefusalOneProcessMeetsSlowsTheOthers() {
    Hostpace a = process(LearningRule.seed());
    Hostpace b = process(LearningRule.seed());
    get(b, "/hold"); // b holds the host
    CompletableFuture<Response> refused = get(a, "/refuse");
    time.advance(Duration.ofMillis(200));

    assertThat(interval(a, "shared.test")).isEqualTo(Duration.ofMillis(250)); // SPEC R4's first doubling
    assertThat(interval(b, "shared.test")).isEqualTo(Duration.ofMillis(250));
    time.advance(Duration.ofSeconds(5));
    assertThat(done(refused).status()).isEqualTo(200);
  }

  @Test
  void S3_anAnswerAnotherProcessMetIsToldTheRuleAsHeardWhenItIsHeard() {
    long origin = time.nanoTime();
    List<String> told = new ArrayList<>();
    LearningRule recording = new LearningRule() {
      @Override
      public long onRefusal(long now, long startedAt, long interval, long changedAt) {
        return interval;
      }

      @Override
      public long onAnswer(long now, long startedAt, long interval, long changedAt) {
        told.add("own at " + Duration.ofNanos(now - origin).toMillis() + " ms");
        return interval;
      }

      @Override
      public long onAnswerHeard(long now, long startedAt, HostState host) {
        told.add("heard at " + Duration.ofNanos(now - origin).toMillis() + " ms");
        return host.interval();
      }
    };
    Hostpace a = process(LearningRule.seed());
    Hostpace b = process(recording);
    CompletableFuture<Response> held = get(b, "/hold"); // b holds the host, so it hears of it
    time.advance(Duration.ofMillis(10));
    CompletableFuture<Response> first = get(a, "/a");
    time.advance(Duration.ofMillis(200));
    // Started at 12 ms, after the fleet's answer of what it keeps (SPEC S3), answered 100 ms later
    // and heard 1 ms after that.
    assertThat(server.startTimes("/a")).containsExactly("0.012");
    assertThat(told).containsExactly("heard at 113 ms");
    time.advance(Duration.ofMinutes(1));
    assertThat(told).containsExactly("heard at 113 ms", "own at 60002 ms");
    assertThat(done(first).status()).isEqualTo(200);
    assertThat(done(held).status()).isEqualTo(200);
  }

  @Test
  void S2_aRetryAfterOneProcessMeetsPausesTheOthers() {
    Hostpace a = process(LearningRule.seed());
    Hostpace b = process(LearningRule.seed());
    get(b, "/hold");
    get(a, "/wait");
    time.advance(Duration.ofMillis(200));
    CompletableFuture<Response> next = get(b, "/next");
    time.advance(Duration.ofSeconds(10));

    assertThat(done(next).status()).isEqualTo(200);
    // Each first start waits for the fleet's answer of what it keeps of the host (SPEC S3): 2 ms.
    assertThat(server.startTimes("/next")).containsExactly("5.103"); // the pause, heard 1 ms after it was told
    assertThat(server.startTimes("/wait")).containsExactly("0.002", "5.102");
  }

  @Test
  void S2_theFleetSpacesAPacedHostsStartsAcrossItsProcesses() {
    Hostpace a = process(ONE_A_SECOND_ONCE_REFUSED);
    Hostpace b = process(ONE_A_SECOND_ONCE_REFUSED);
    get(b, "/hold");
    get(a, "/refuse");
    time.advance(Duration.ofMillis(200));
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(get(a, "/a" + i));
      calls.add(get(b, "/b" + i));
    }
    time.advance(Duration.ofSeconds(20));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    List<Double> starts = new ArrayList<>();
    for (String path : List.of("/refuse", "/a", "/b")) {
      server.startTimes(path).forEach(t -> starts.add(Double.parseDouble(t)));
    }
    starts.sort(null);
    assertThat(starts).hasSize(8); // the refused one twice, and six
    for (int i = 2; i < starts.size(); i++) { // after the refusal, one start a second for the fleet
      assertThat(starts.get(i) - starts.get(i - 1)).as("gap before start %d of %s", i, starts).isGreaterThanOrEqualTo(0.999);
    }
  }

  @Test
  void S2_aProcessThatHasTheHostsBacklogAloneAsksTheFleetAheadSoItsStartsComeAtTheIntervalNotARoundTripLater() {
    // 20 ms one way: a claim asked only as the process's own interval ended would start each 1.04 s.
    LocalFleet far = new LocalFleet(time, time, Duration.ofMillis(20));
    Hostpace alone = Hostpace.builder().widenFirstContact(false).time(time).learningRule(ONE_A_SECOND_ONCE_REFUSED)
        .fleet(far.join()).build();
    get(alone, "/refuse");
    time.advance(Duration.ofMillis(200));
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      calls.add(get(alone, "/n" + i));
    }
    time.advance(Duration.ofSeconds(20));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    List<String> starts = server.startTimes("/n");
    assertThat(starts).hasSize(8);
    for (int i = 2; i < starts.size(); i++) { // from the second grant on, each asked ahead
      double gap = Double.parseDouble(starts.get(i)) - Double.parseDouble(starts.get(i - 1));
      assertThat(gap).as("gap before start %d of %s", i, starts).isBetween(0.999, 1.006); // an eighth of the round trip late at most
    }
  }

  @Test
  void S2_aConfiguredRateIsTheFleetsNotEachProcesss() {
    List<Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      processes.add(Hostpace.builder().widenFirstContact(false).time(time).addLimit("shared.test", Limits.rate(Rate.of(2, Duration.ofSeconds(1))))
          .fleet(fleet.join()).build());
    }
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      for (Hostpace process : processes) {
        calls.add(get(process, "/r" + i));
      }
    }
    time.advance(Duration.ofSeconds(20));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    List<String> starts = server.startTimes("/r");
    assertThat(starts).hasSize(12);
    // two a second for the fleet, one each 500 ms; the first after the claim's round trip
    assertThat(starts.get(0)).isEqualTo("0.004"); // and after the read of what the fleet keeps (SPEC S3)
    for (int i = 1; i < starts.size(); i++) {
      double gap = Double.parseDouble(starts.get(i)) - Double.parseDouble(starts.get(i - 1));
      assertThat(gap).as("gap before start %d of %s", i, starts).isGreaterThanOrEqualTo(0.499);
    }
    assertThat(Double.parseDouble(starts.get(11))).isLessThan(6.0);
  }

  @Test
  void S2_twoProcessesAtTheSamePaceShareTheFleetsStartsRatherThanOneTakingThemAll() {
    // Both at one a second for the fleet, each with a backlog: each one's own pace ends as the
    // fleet's next start frees, so whichever asks first would win every time; the process the
    // fleet told to wait asks a round trip early instead, and the two take turns.
    List<Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      processes.add(Hostpace.builder().widenFirstContact(false).time(time).addLimit("shared.test", Limits.rate(Rate.of(1, Duration.ofSeconds(1))))
          .fleet(fleet.join()).build());
    }
    for (int i = 0; i < 20; i++) {
      get(processes.get(0), "/a" + i);
      get(processes.get(1), "/b" + i);
    }
    time.advance(Duration.ofSeconds(20));

    int a = server.startTimes("/a").size();
    int b = server.startTimes("/b").size();
    assertThat(a + b).as("one a second for the fleet").isBetween(19, 21);
    assertThat(Math.min(a, b)).as("%d and %d starts", a, b).isGreaterThanOrEqualTo(8);
  }

  @Test
  void S2_aProcessPacedALittleSlowerThanTheOthersStillGetsItsShareOfTheFleetsStarts() {
    // Three processes with a backlog each, paced at 250, 250 and 251.5 ms: the fleet grants a
    // start once the shortest interval claimed lately has passed since the last, and tells each
    // claim that waits that same time, so the slower process asks with the others and wins its
    // turns; were it held to its own interval, the others' starts would leave it no gap ever.
    long[] paces = {250_000_000, 250_000_000, 251_500_000};
    List<String> paths = List.of("/a", "/b", "/c");
    for (int p = 0; p < paces.length; p++) {
      Hostpace process = Hostpace.builder().widenFirstContact(false).time(time)
          .addLimit("shared.test", Limits.rate(Rate.of(1, Duration.ofNanos(paces[p])))).fleet(fleet.join()).build();
      for (int i = 0; i < 400; i++) {
        get(process, paths.get(p) + i);
      }
    }
    time.advance(Duration.ofSeconds(60));

    int fair = (int) (Duration.ofSeconds(60).toNanos() / paces[0] / paces.length); // an equal share at the fastest pace
    List<Double> starts = new ArrayList<>();
    for (String path : paths) {
      List<String> own = server.startTimes(path);
      assertThat(own.size()).as("starts of %s, of an equal share of %d", path, fair).isGreaterThanOrEqualTo(fair / 2);
      own.forEach(t -> starts.add(Double.parseDouble(t)));
    }
    starts.sort(null);
    for (int i = 1; i < starts.size(); i++) { // never two within the shortest interval: the fleet no faster than its fastest pace
      assertThat(starts.get(i) - starts.get(i - 1)).as("gap before start %d of %s", i, starts).isGreaterThanOrEqualTo(0.2495);
    }
  }

  /** A store whose every host has learned that it holds {@code limit} requests at once. */
  HostStateStore holding(int limit) {
    return KnownHosts.holding(limit);
  }

  /** A store whose every host has learned that it holds {@code limit} at once and takes one each {@code interval}. */
  HostStateStore holding(int limit, Duration interval) {
    return KnownHosts.holding(limit, interval, time);
  }

  @Test
  void S2_aLearnedInFlightLimitHoldsForTheFleetNotForEachProcess() {
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    List<Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      processes.add(Hostpace.builder().widenFirstContact(false).time(time).learningRule(LearningRule.seed())
          .hostStateStore(holding(2)).fleet(fleet.join()).build());
    }
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      for (Hostpace process : processes) {
        calls.add(process.execute(server.get("http://gate.test/" + i)));
      }
    }
    time.advance(Duration.ofSeconds(10));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    assertThat(server.maxInFlight.get("gate.test")).isEqualTo(2); // each alone would send 2: 4 at once
    assertThat(fleet.placesHeld("gate.test")).isZero();
    // four rounds, each starting 2 ms after the last was answered: the places let go, and claimed again
    assertThat(server.startTimes("gate.test")).hasSize(8).last().isEqualTo("3.010");
  }

  @Test
  void S2_aLearnedQuotaHoldsForTheFleetNotForEachProcess() {
    // The host takes 3 a minute, counted from 0 s; beyond them, a bare 429.
    int[] taken = new int[16];
    long origin = time.nanoTime();
    server.script(exchange -> {
      int minute = (int) ((time.nanoTime() - origin) / 60_000_000_000L);
      return ++taken[minute] <= 3 ? Reply.ok().after(Duration.ofMillis(50)) : Reply.status(429).after(Duration.ofMillis(50));
    });
    LearningRule threeAMinuteOnceRefused = OnceRefused.quota(3, Duration.ofMinutes(1));
    Hostpace a = Hostpace.builder().widenFirstContact(false).time(time).learningRule(threeAMinuteOnceRefused).fleet(fleet.join()).build();
    Hostpace b = Hostpace.builder().widenFirstContact(false).time(time).learningRule(threeAMinuteOnceRefused).fleet(fleet.join()).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(get(a, "/a" + i)); // accepted
      calls.add(get(b, "/b" + i)); // refused: both learn 3 a minute
    }
    time.advance(Duration.ofSeconds(1));
    for (int i = 3; i < 6; i++) {
      calls.add(get(a, "/a" + i));
      calls.add(get(b, "/b" + i));
    }
    time.advance(Duration.ofMinutes(5));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    int[] startsPerMinute = new int[6];
    server.startTimes("shared.test").forEach(t -> startsPerMinute[(int) (Double.parseDouble(t) / 60)]++);
    // Each process alone would start 3 in each minute: 6, and 3 of them refused. The fleet: 3.
    assertThat(startsPerMinute).containsExactly(6, 3, 3, 3, 0, 0); // the first minute: 3 accepted, 3 refused
    assertThat(fleet.placesHeld("shared.test/quota")).isZero(); // each held for a minute after its grant
  }

  /** A fleet member that keeps nothing, as a fleet of messages alone, and records the key of each place claimed through it. */
  Fleet recordingPlaces(List<String> placeClaims) {
    return new ForwardingFleet(fleet.join()) {
      @Override
      public boolean keeps() {
        return false;
      }

      @Override
      public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
        placeClaims.add(key);
        super.claimPlace(key, place, limit, leaseNanos, then);
      }
    };
  }

  @Test
  void S2_anInFlightLimitGivenAHostByKeyIsTheFleetsAndOneForEveryHostEachProcesss() {
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    List<String> placeClaims = new ArrayList<>();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      Hostpace process = Hostpace.builder().widenFirstContact(false).time(time).limitsForEveryHost(Limits.inFlight(3))
          .addLimit("gate.test", Limits.inFlight(2)).fleet(recordingPlaces(placeClaims)).build();
      for (int i = 0; i < 4; i++) {
        calls.add(process.execute(server.get("http://gate.test/" + p + "-" + i)));
        calls.add(process.execute(server.get("http://other.test/" + p + "-" + i)));
      }
    }
    time.advance(Duration.ofSeconds(10));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    assertThat(server.maxInFlight.get("gate.test")).as("2 for the fleet; each alone would send 2: 4").isEqualTo(2);
    assertThat(server.maxInFlight.get("other.test")).as("3 for every host: each process's own").isEqualTo(6);
    assertThat(placeClaims).as("places of gate.test only (some claimed again after the fleet said all were held)")
        .containsOnly("gate.test").hasSizeGreaterThanOrEqualTo(8);
    assertThat(fleet.placesHeld("gate.test")).isZero();
  }

  /**
   * A member of the fleet that counts the claims of places made through it; one that {@code waits}
   * waits in the fleet for a place when all are held, else it claims as a fleet that keeps no
   * waiters does (the default of {@link Fleet}).
   */
  Fleet countingPlaces(AtomicInteger claims, boolean waits) {
    return new ForwardingFleet(fleet.join()) {
      @Override
      public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
        claims.incrementAndGet();
        super.claimPlace(key, place, limit, leaseNanos, then);
      }

      @Override
      public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
        if (waits) {
          claims.incrementAndGet();
          member.claimPlace(key, place, limit, then, granted);
        } else {
          super.claimPlace(key, place, limit, then, granted);
        }
      }
    };
  }

  /** Three processes that each send 4 calls of 500 ms to a host of 2 places for the fleet: the claims of places they made. */
  int claimsOfThreeProcessesAtTwoPlaces(boolean waits) {
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(500)));
    AtomicInteger claims = new AtomicInteger();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      Hostpace process = Hostpace.builder().widenFirstContact(false).time(time)
          .addLimit("gate.test", Limits.inFlight(2)).fleet(countingPlaces(claims, waits)).build();
      for (int i = 0; i < 4; i++) {
        calls.add(process.execute(server.get("http://gate.test/" + p + "-" + i)));
      }
    }
    time.advance(Duration.ofSeconds(30));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    assertThat(server.maxInFlight.get("gate.test")).isEqualTo(2);
    assertThat(fleet.placesHeld("gate.test")).isZero();
    return claims.get();
  }

  @Test
  void S2_aClaimThatFindsThePlacesAllHeldWaitsInTheFleetForItsTurnAndAsksNoMore() {
    int claims = claimsOfThreeProcessesAtTwoPlaces(true);

    assertThat(claims).as("one claim a start: each that found the places held waited for its grant").isEqualTo(12);
    // At 0.004 s processes 0 and 1 hold the two places; 2 waits, then 0's and 1's next calls behind it.
    // Each answer's release grants the claim that waited longest, which starts 2 ms later (the
    // release's way to the fleet, the grant's back): the processes take turns.
    assertThat(server.starts()).containsExactly(
        "0.004 /0-0", "0.004 /1-0",
        "0.506 /2-0", "0.506 /0-1",
        "1.008 /1-1", "1.008 /2-1",
        "1.510 /0-2", "1.510 /1-2",
        "2.012 /2-2", "2.012 /0-3",
        "2.514 /1-3", "2.514 /2-3");
  }

  @Test
  void S2_aPlaceGrantedToAClaimWhoseCallWasCancelledGoesOnToTheNextThatWaits() {
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    Hostpace a = Hostpace.builder().widenFirstContact(false).time(time).addLimit("gate.test", Limits.inFlight(1)).fleet(fleet.join()).build();
    Hostpace b = Hostpace.builder().widenFirstContact(false).time(time).addLimit("gate.test", Limits.inFlight(1)).fleet(fleet.join()).build();
    Hostpace c = Hostpace.builder().widenFirstContact(false).time(time).addLimit("gate.test", Limits.inFlight(1)).fleet(fleet.join()).build();
    CompletableFuture<Response> holding = a.execute(server.get("http://gate.test/a"));
    time.advance(Duration.ofMillis(100));
    CompletableFuture<Response> cancelled = b.execute(server.get("http://gate.test/b"));
    time.advance(Duration.ofMillis(100));
    CompletableFuture<Response> waiting = c.execute(server.get("http://gate.test/c"));
    time.advance(Duration.ofMillis(100));
    cancelled.cancel(true); // its claim still waits in the fleet, first
    time.advance(Duration.ofSeconds(3));

    assertThat(done(holding).status()).isEqualTo(200);
    assertThat(done(waiting).status()).isEqualTo(200);
    // a's answer at 1.004 s, its release granted b's claim at 1.005 s, b let it go at 1.006 s,
    // and the fleet granted c's at 1.007 s.
    assertThat(server.starts()).containsExactly("0.004 /a", "1.008 /c");
    assertThat(fleet.placesHeld("gate.test")).isZero();
  }

  @Test
  void S2_aClaimThatWaitsAndNeverHearsItsGrantAsksAgainAWhileLaterAndHoldsWhatWasGranted() {
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    AtomicInteger claims = new AtomicInteger();
    Fleet deaf = new ForwardingFleet(fleet.join()) { // the fleet's notices of grants are lost
      @Override
      public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
        claims.incrementAndGet();
        member.claimPlace(key, place, limit, then, held -> {});
      }
    };
    Hostpace a = Hostpace.builder().widenFirstContact(false).time(time).addLimit("gate.test", Limits.inFlight(1)).fleet(fleet.join()).build();
    Hostpace b = Hostpace.builder().widenFirstContact(false).time(time).addLimit("gate.test", Limits.inFlight(1)).fleet(deaf).build();
    CompletableFuture<Response> holding = a.execute(server.get("http://gate.test/a"));
    time.advance(Duration.ofMillis(100));
    CompletableFuture<Response> waiting = b.execute(server.get("http://gate.test/b"));
    time.advance(Duration.ofSeconds(10));

    assertThat(done(holding).status()).isEqualTo(200);
    assertThat(done(waiting).status()).isEqualTo(200);
    // b's claim waited from 0.104 s; the fleet granted it at 1.005 s, unheard; b asked again 5 s
    // after its claim was answered, and was answered the place it held.
    assertThat(server.starts()).containsExactly("0.004 /a", "5.106 /b");
    assertThat(claims.get()).isEqualTo(2);
    assertThat(fleet.placesHeld("gate.test")).isZero();
  }

  @Test
  void S2_aFleetThatKeepsNoWaitersIsAskedAgainAfterEachLessonAndRelease() {
    int claims = claimsOfThreeProcessesAtTwoPlaces(false);

    assertThat(claims).as("claims of the 12 starts, each process asking again at each lesson or release").isGreaterThan(2 * 12);
  }

  @Test
  void S2_aGroupsInFlightLimitIsTheFleetsAcrossItsHosts() {
    int[] inFlight = new int[1];
    int[] most = new int[1];
    server.script(exchange -> {
      most[0] = Math.max(most[0], ++inFlight[0]);
      time.schedule(() -> inFlight[0]--, Duration.ofSeconds(1).toNanos());
      return Reply.ok().after(Duration.ofSeconds(1));
    });
    List<Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      processes.add(Hostpace.builder().widenFirstContact(false).time(time).addLimit("*.gate.test", Limits.inFlight(3)).fleet(fleet.join()).build());
    }
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      for (Hostpace process : processes) {
        String host = i % 2 == 0 ? "a.gate.test" : "b.gate.test";
        calls.add(process.execute(server.get("http://" + host + "/" + calls.size())));
      }
    }
    time.advance(Duration.ofSeconds(10));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    assertThat(most[0]).as("3 at once in the group for the fleet; each alone would send 3: 6").isEqualTo(3);
    assertThat(fleet.placesHeld("*.gate.test")).isZero();
    assertThat(server.startTimes("gate.test")).hasSize(12);
  }

  @Test
  void S2_aHostPacedFasterThanTheFleetsRoundTripStillGetsItsGroupsPlaces() {
    // One a millisecond: shorter than the fleet's round trip of 2 ms.
    LearningRule everyMillisecondOnceRefused = OnceRefused.paceEvery(Duration.ofMillis(1));
    List<Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      processes.add(Hostpace.builder().widenFirstContact(false).time(time).learningRule(everyMillisecondOnceRefused)
          .addLimit("*.shared.test", Limits.inFlight(3)).fleet(fleet.join()).build());
    }
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    calls.add(processes.get(0).execute(server.get("http://api.shared.test/refuse"))); // paces the host and the group
    for (int i = 0; i < 10; i++) {
      calls.add(processes.get(i % 2).execute(server.get("http://api.shared.test/" + i)));
    }
    time.advance(Duration.ofSeconds(10));

    // Each start claims the host's and the group's start, then a place of the group: a start
    // granted for a quarter of 1 ms would be let go before the place came back, for ever.
    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    assertThat(fleet.placesHeld("*.shared.test")).isZero();
  }

  @Test
  void S2_aHostAndItsGroupPacedTogetherAreClaimedAtOnceSoNoTwoProcessesHoldOneEach() {
    // 30 ms one way: claimed one after the other, each process could hold the group's start and
    // wait for the host's, or the host's and wait for the group's, for ever.
    LocalFleet far = new LocalFleet(time, time, Duration.ofMillis(30));
    List<Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      processes.add(Hostpace.builder().widenFirstContact(false).time(time).learningRule(ONE_A_SECOND_ONCE_REFUSED)
          .addLimit("*.shared.test", Limits.inFlight(3)).fleet(far.join()).build());
    }
    processes.get(1).execute(server.get("http://api.shared.test/hold")); // the others hold the host:
    processes.get(2).execute(server.get("http://api.shared.test/hold")); // they learn from the refusal
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    calls.add(processes.get(0).execute(server.get("http://api.shared.test/refuse"))); // paces the host and the group
    time.advance(Duration.ofMillis(500));
    for (int i = 0; i < 9; i++) {
      calls.add(processes.get(i % 3).execute(server.get("http://api.shared.test/r" + i)));
    }
    time.advance(Duration.ofSeconds(30));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    List<Double> starts = new ArrayList<>();
    server.startTimes("/r").forEach(t -> starts.add(Double.parseDouble(t)));
    starts.sort(null);
    for (int i = 2; i < starts.size(); i++) { // after the refusal, one start a second for the fleet
      assertThat(starts.get(i) - starts.get(i - 1)).as("gap before start %d of %s", i, starts).isGreaterThanOrEqualTo(0.999);
    }
  }

  @Test
  void S2_aPacedHostWithALearnedLimitClaimsAPlaceOncePerStart() {
    List<String> placeClaims = new ArrayList<>();
    Fleet counting = recordingPlaces(placeClaims);
    Hostpace a = Hostpace.builder().widenFirstContact(false).time(time).learningRule(ONE_A_SECOND_ONCE_REFUSED)
        .hostStateStore(holding(1, Duration.ofSeconds(1))).fleet(counting).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(get(a, "/p" + i));
    }
    time.advance(Duration.ofSeconds(10));

    calls.forEach(call -> assertThat(done(call).status()).isEqualTo(200));
    // each start claims its place once its start was granted: no place is held waiting, given back, claimed again
    assertThat(placeClaims).hasSize(5);
  }

  @Test
  void S2_aRefusalTellsTheFleetsCountAndAnAnswerItsOwnProcesss() {
    server.script(exchange -> exchange.uri().getPath().equals("/refused") && refusals.getAndIncrement() == 0
        ? Reply.status(429) : Reply.ok().after(Duration.ofSeconds(1)));
    List<Fleet.Lesson> told = new ArrayList<>();
    Fleet b = fleet.join();
    b.listen(told::add); // b hears what a and c tell
    Hostpace a = Hostpace.builder().widenFirstContact(false).time(time).learningRule(LearningRule.seed())
        .hostStateStore(holding(3)).fleet(fleet.join()).build();
    Hostpace c = Hostpace.builder().widenFirstContact(false).time(time).learningRule(LearningRule.seed())
        .hostStateStore(holding(3)).fleet(fleet.join()).build();
    a.execute(server.get("http://gate.test/accepted"));
    time.advance(Duration.ofMillis(100));
    c.execute(server.get("http://gate.test/refused")); // the fleet's second place, c's first request
    time.advance(Duration.ofMillis(200));
    c.execute(server.get("http://gate.test/accepted-too")); // after c's retry, beside it and a's
    time.advance(Duration.ofSeconds(3));

    assertThat(server.startTimes("/accepted-too")).hasSize(1);
    assertThat(told).filteredOn(Fleet.Lesson::refused).singleElement()
        .satisfies(lesson -> assertThat(lesson.inFlightAtStart()).isEqualTo(2)); // a ceiling: the fleet's count
    // a's, c's retry (the fleet's 2nd, c's 1st) and c's next (the fleet's 3rd, c's 2nd): a floor, each one's own
    assertThat(told).filteredOn(lesson -> !lesson.refused()).extracting(Fleet.Lesson::inFlightAtStart)
        .containsExactly(1, 1, 2);
  }

  @Test
  void S2_aCallLetsItsPlaceGoWhenItEndsOrIsCancelled() {
    server.script(exchange -> Reply.ok().after(Duration.ofMinutes(1)));
    Hostpace a = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(holding(1)).fleet(fleet.join()).build();
    CompletableFuture<Response> first = a.execute(server.get("http://gate.test/first"));
    CompletableFuture<Response> second = a.execute(server.get("http://gate.test/second"));
    time.advance(Duration.ofMillis(100));
    assertThat(fleet.placesHeld("gate.test")).isEqualTo(1);
    assertThat(server.startTimes("gate.test")).hasSize(1);

    first.cancel(true); // in flight: its place goes, and the second claims it
    time.advance(Duration.ofMillis(100));
    assertThat(server.startTimes("/second")).hasSize(1);
    assertThat(fleet.placesHeld("gate.test")).isEqualTo(1);

    second.cancel(true);
    time.advance(Duration.ofMillis(100));
    assertThat(fleet.placesHeld("gate.test")).isZero();
  }

  @Test
  void S2_aRetryAfterAnotherProcessMetHoldsForAHostThisOneHasNotAskedYet() {
    Hostpace a = process(LearningRule.seed());
    Hostpace b = process(LearningRule.seed());
    get(a, "/wait"); // refused at 0.1 s with Retry-After: 5
    time.advance(Duration.ofMillis(200));
    CompletableFuture<Response> next = get(b, "/next"); // b had never asked the host
    time.advance(Duration.ofSeconds(10));

    assertThat(done(next).status()).isEqualTo(200);
    // a's first start waited 2 ms for the read of what the fleet keeps (SPEC S3), so its pause ends
    // at 5.102, heard by b at 5.103; b's read of what the fleet keeps finds it counted from its
    // arrival there, a millisecond later: 5.104, a half round trip longer, never shorter
    assertThat(server.startTimes("/next")).containsExactly("5.104");
    time.advance(Duration.ofHours(2));
    assertThat(b.snapshot()).isEmpty(); // and once the pause is over, let go
  }

  @Test
  void S2_aHostThisProcessOnlyHeardOfIsLetGoOnceItsPauseEndsThoughLaterLessonsTaughtItALimit() {
    LearningRule limitOfOne = new LearningRule() { // the seed's, and every answer teaches "one at once"
      @Override
      public long onRefusal(long now, long startedAt, long interval, long changedAt) {
        return LearningRule.seed().onRefusal(now, startedAt, interval, changedAt);
      }

      @Override
      public long onAnswer(long now, long startedAt, long interval, long changedAt) {
        return LearningRule.seed().onAnswer(now, startedAt, interval, changedAt);
      }

      @Override
      public int inFlightAfterAnswer(long now, long startedAt, int inFlightAtStart, HostState host) {
        return 1;
      }
    };
    server.script(exchange -> exchange.uri().getPath().equals("/wait")
        ? Reply.refuse(429, "30") : Reply.ok().after(Duration.ofSeconds(10)));
    Hostpace a = process(limitOfOne);
    Hostpace b = process(limitOfOne);
    get(a, "/slow"); // answered at 10 s
    get(a, "/wait"); // refused at once with Retry-After: 30: b holds the host, paused
    time.advance(Duration.ofSeconds(20)); // a's /slow answered: b hears it, and learns a limit
    assertThat(b.snapshot()).singleElement().satisfies(host -> assertThat(host.inFlightLimit()).isEqualTo(1));

    time.advance(Duration.ofHours(3));
    assertThat(b.snapshot()).as("b never started a request to it").isEmpty();
  }

  @Test
  void S2_aProcessThatHoldsNothingOfAHostLetsItsLessonsGo() {
    Hostpace a = process(ONE_A_SECOND_ONCE_REFUSED);
    Hostpace b = process(ONE_A_SECOND_ONCE_REFUSED);
    get(a, "/refuse");
    time.advance(Duration.ofMillis(200));

    assertThat(interval(a, "shared.test")).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.snapshot()).isEmpty();
  }

  @Test
  void S2_aClaimTheFleetCannotMakeLeavesTheStartsToTheProcessAlone() {
    AtomicInteger claims = new AtomicInteger();
    Fleet unreachable = new Fleet() {
      @Override
      public void tell(Lesson lesson) {}

      @Override
      public Listening listen(Consumer<Lesson> listener) {
        return () -> {};
      }

      @Override
      public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
        claims.incrementAndGet();
        time.schedule(() -> then.accept(Fleet.UNCLAIMED), Duration.ofSeconds(1).toNanos());
      }

      @Override
      public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
        time.schedule(() -> then.accept(Fleet.UNCLAIMED), Duration.ofSeconds(1).toNanos());
      }

      @Override
      public void releasePlace(String key, long place) {}
    };
    Hostpace a = Hostpace.builder().widenFirstContact(false).time(time).learningRule(ONE_A_SECOND_ONCE_REFUSED).fleet(unreachable).build();
    get(a, "/refuse");
    time.advance(Duration.ofMillis(200));
    CompletableFuture<Response> second = get(a, "/second");
    time.advance(Duration.ofSeconds(10));

    assertThat(done(second).status()).isEqualTo(200);
    assertThat(claims.get()).isEqualTo(2); // the refused one's retry and the second
    // each went when its own interval had passed and its claim had failed, a second later
    assertThat(server.startTimes("/refuse")).containsExactly("0.000", "2.000");
    assertThat(server.startTimes("/second")).containsExactly("4.000");
  }

  @Test
  void S2_aCallCancelledWhileItsClaimIsAskedLeavesNothingBehind() {
    Hostpace a = process(ONE_A_SECOND_ONCE_REFUSED);
    CompletableFuture<Response> refused = get(a, "/refuse");
    time.advance(Duration.ofMillis(100)); // refused: its retry claims the fleet's next start
    refused.cancel(true);
    time.advance(Duration.ofSeconds(5));

    assertThat(server.startTimes("/refuse")).containsExactly("0.002"); // after the read of what the fleet keeps
    CompletableFuture<Response> later = get(a, "/later");
    time.advance(Duration.ofSeconds(5));
    assertThat(done(later).status()).isEqualTo(200);
  }
}

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
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SPEC S4: while the fleet cannot be asked, a process paces a host at its share of what the fleet
 * held (the fleet's spacing times the processes it last counted), and when the fleet answers again
 * it goes on from the pace the fleet keeps. In virtual time, each process's member an
 * {@link UnreachableFleet} that the test takes down and brings back.
 */
class FleetOutageTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok());
  final LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(1));
  /** 0 s of the tests' traces (the virtual clock starts at a random origin). */
  final long origin = time.nanoTime();

  /** A process of {@link #fleet} that cannot reach it while down, and counts {@code processes} processes. */
  UnreachableFleet unreachable(int processes) {
    return new UnreachableFleet(fleet.join(), time, processes);
  }

  CompletableFuture<Response> get(Hostpace engine, String path) {
    return engine.execute(server.get("http://shared.test" + path));
  }

  /** The gaps between the starts from {@code from} to {@code to} seconds, in ms, rounded. */
  List<Long> gapsBetween(double from, double to) {
    List<Double> starts = server.startTimes("/r").stream().map(Double::parseDouble)
        .filter(t -> t >= from && t < to).toList();
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < starts.size(); i++) {
      gaps.add(Math.round((starts.get(i) - starts.get(i - 1)) * 1000));
    }
    return gaps;
  }

  @Test
  void S4_whileTheFleetCannotBeAskedAProcessStartsAPacedHostAtItsShareThenAtTheFleetsGrantsAgain() {
    UnreachableFleet member = unreachable(3);
    // the host's rate for the fleet: 2 a second, one start each 500 ms, claimed of the fleet
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .addLimit("shared.test", Limits.rate(Rate.of(2, Duration.ofSeconds(1)))).fleet(member).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      calls.add(get(engine, "/r" + i));
    }

    time.advance(Duration.ofSeconds(3)); // at 0 s to 3 s the fleet grants a start each 500 ms
    member.down = true; // at 3 s the fleet goes: claims come back unclaimed
    time.advance(Duration.ofSeconds(9));
    member.down = false; // at 12 s it answers again
    time.advance(Duration.ofSeconds(4));

    // Granted by the fleet: at least 500 ms apart. Alone, among the 3 processes the fleet last
    // counted: one start each 1.5 s (and this engine's own fiftieth of its interval, P1), not each
    // 500 ms. Granted again once the fleet answers, with no two starts together as it comes back.
    assertThat(gapsBetween(0, 3)).isNotEmpty().allSatisfy(gap -> assertThat(gap).isBetween(500L, 700L));
    assertThat(gapsBetween(3.1, 12)).hasSize(5).allSatisfy(gap -> assertThat(gap).isBetween(1500L, 1540L));
    assertThat(gapsBetween(13.5, 16)).hasSizeGreaterThanOrEqualTo(3).allSatisfy(gap -> assertThat(gap).isBetween(500L, 700L));
    assertThat(gapsBetween(0, 16)).as("every gap, the rejoin's too").allSatisfy(gap -> assertThat(gap).isGreaterThanOrEqualTo(500L));
    calls.stream().filter(CompletableFuture::isDone).forEach(call -> assertThat(call.join().status()).isEqualTo(200));
  }

  /**
   * {@code processes} engines, each an {@link UnreachableFleet} of the fleet counting {@code counted}
   * processes whose claims of places wait there, with {@code calls} calls each to
   * {@code shared.test}, whose 6 places in flight are the fleet's; the host holds every answer open
   * 2 s. The server writes, as each request starts, how many are in flight there then, of all and
   * of each process ({@code [ns since 0 s, all, process 0, process 1, ...]}).
   */
  List<long[]> heldOpenAtSixPlaces(int processes, int counted, int calls, List<UnreachableFleet> members) {
    List<long[]> inFlightAtStarts = new ArrayList<>();
    int[] inFlight = new int[processes + 1];
    server.script(exchange -> {
      int w = Integer.parseInt(exchange.uri.getPath().split("/")[2]);
      inFlight[0]++;
      inFlight[w + 1]++;
      long[] sample = new long[processes + 2];
      sample[0] = time.nanoTime() - origin;
      for (int i = 0; i <= processes; i++) {
        sample[i + 1] = inFlight[i];
      }
      inFlightAtStarts.add(sample);
      time.schedule(() -> {
        inFlight[0]--;
        inFlight[w + 1]--;
      }, Duration.ofSeconds(2).toNanos());
      return Reply.ok().after(Duration.ofSeconds(2));
    });
    for (int w = 0; w < processes; w++) {
      UnreachableFleet member = unreachable(counted);
      member.placesWait = true;
      members.add(member);
      Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
          .addLimit("shared.test", Limits.inFlight(6)).fleet(member).build();
      for (int i = 0; i < calls; i++) {
        calls(engine, "/r/" + w + "/" + i);
      }
    }
    return inFlightAtStarts;
  }

  final List<CompletableFuture<Response>> calls = new ArrayList<>();

  void calls(Hostpace engine, String path) {
    calls.add(get(engine, path));
  }

  /**
   * The most in flight at once at the server from {@code from} to {@code to} seconds, of all
   * ({@code column} 1) or of one process (2 and on): the most of its counts as each request started
   * then, as the count rises only at a start.
   */
  static long mostInFlight(List<long[]> inFlightAtStarts, double from, double to, int column) {
    return inFlightAtStarts.stream().filter(sample -> sample[0] >= from * 1e9 && sample[0] < to * 1e9)
        .mapToLong(sample -> sample[column]).max().orElse(0);
  }

  @Test
  void S4_whileTheFleetCannotBeAskedEachProcessHoldsItsShareOfAHostsPlacesInFlightThenTheFleetsWholeLimitAgain() {
    List<UnreachableFleet> members = new ArrayList<>();
    List<long[]> starts = heldOpenAtSixPlaces(3, 3, 30, members);

    time.advance(Duration.ofSeconds(6)); // at 0 s to 6 s the fleet holds the host's 6 places
    members.forEach(member -> member.down = true); // at 6 s it goes: claims of places come back unclaimed
    time.advance(Duration.ofSeconds(14));
    members.forEach(member -> member.down = false); // at 20 s it answers again
    time.advance(Duration.ofSeconds(20));

    // Up, the fleet holds the host to 6 at once. Down, each of the 3 processes it last counted holds
    // its share, 2 (each alone would hold the whole 6: 18 at the host). Once the ones started alone
    // have ended (2 s after the fleet came back), the fleet's whole 6 again. Every call is answered.
    assertThat(mostInFlight(starts, 0, 6, 1)).as("the most in flight at once, 0 s to 6 s").isEqualTo(6);
    assertThat(mostInFlight(starts, 6, 20, 1)).as("the most in flight at once, 6 s to 20 s").isEqualTo(6);
    for (int w = 0; w < 3; w++) {
      assertThat(mostInFlight(starts, 8, 20, w + 2)).as("the most process %d held at once, 8 s to 20 s", w).isEqualTo(2);
    }
    assertThat(mostInFlight(starts, 22, 40, 1)).as("the most in flight at once, 22 s to 40 s").isEqualTo(6);
    assertThat(calls).hasSize(90).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
  }

  @Test
  void S4_whileTheFleetCannotBeAskedAProcessThatKnowsOfNoOtherHoldsAllOfAHostsPlacesInFlight() {
    List<UnreachableFleet> members = new ArrayList<>();
    List<long[]> starts = heldOpenAtSixPlaces(1, 1, 30, members);

    time.advance(Duration.ofSeconds(3));
    members.get(0).down = true; // at 3 s the fleet goes
    time.advance(Duration.ofSeconds(10));

    // It last counted itself alone: its share is the whole 6.
    assertThat(mostInFlight(starts, 5, 13, 1)).as("the most in flight at once, 5 s to 13 s").isEqualTo(6);
    assertThat(calls).hasSize(30).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
  }

  @Test
  void S4_aFleetThatDoesNotCountItsProcessesLeavesTheStartsAtTheWholeSpacing() {
    UnreachableFleet member = unreachable(1);
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .addLimit("shared.test", Limits.rate(Rate.of(2, Duration.ofSeconds(1)))).fleet(member).build();
    for (int i = 0; i < 20; i++) {
      get(engine, "/r" + i);
    }
    time.advance(Duration.ofSeconds(2));
    member.down = true;
    time.advance(Duration.ofSeconds(5));

    assertThat(gapsBetween(2.1, 7)).hasSizeGreaterThanOrEqualTo(8).allSatisfy(gap -> assertThat(gap).isBetween(500L, 520L));
  }

  @Test
  void S4_aProcessThatRejoinsTheFleetTakesThePaceTheFleetKeeps() {
    UnreachableFleet member = unreachable(2);
    List<HostpaceEvent.IntervalChanged> changes = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).learningRule(io.hostpace.spi.LearningRule.seed())
        .addListener(event -> {
          if (event instanceof HostpaceEvent.IntervalChanged changed) {
            changes.add(changed);
          }
        }).fleet(member).build();
    Fleet other = fleet.join();
    // The host was learned at 250 ms by this process; the fleet keeps 800 ms, which another kept.
    other.keep("shared.test", new Fleet.Kept(Duration.ofMillis(250).toNanos(), 0, 0, 0, 0, 0), Duration.ofHours(1).toNanos());
    time.advance(Duration.ofMillis(5));
    get(engine, "/r0");
    time.advance(Duration.ofSeconds(1)); // read 250 ms as it met the host
    member.down = true;
    get(engine, "/r1");
    time.advance(Duration.ofSeconds(2)); // unclaimed: started alone
    other.keep("shared.test", new Fleet.Kept(Duration.ofMillis(800).toNanos(), 0, 0, 0, 0, 0), Duration.ofHours(1).toNanos());
    member.down = false;
    changes.clear();
    get(engine, "/r2");
    time.advance(Duration.ofSeconds(2));

    assertThat(changes).as("interval changes after the rejoin").isNotEmpty();
    assertThat(changes.get(0).to()).as("the pace the fleet keeps, taken at the first answer after the outage")
        .isEqualTo(Duration.ofMillis(800));
  }

  /** A process of {@link #fleet} whose rejoin reads fail while {@link #readsFail}, though its claims are answered. */
  final class ReadsFailing extends UnreachableFleet {
    boolean readsFail;
    /** When each rejoin read was asked, in ms of virtual time. */
    final List<Long> readsAsked = new ArrayList<>();

    ReadsFailing(int processes) {
      super(fleet.join(), time, processes);
    }

    @Override
    public void recallOrKeep(String key, Kept kept, long keepForNanos, Consumer<@Nullable Kept> then) {
      readsAsked.add((time.nanoTime() - origin) / 1_000_000);
      if (readsFail) {
        time.schedule(() -> then.accept(null), Duration.ofMillis(1).toNanos());
      } else {
        super.recallOrKeep(key, kept, keepForNanos, then);
      }
    }
  }

  @Test
  void S4_aRejoinWhoseReadFailsIsReadAgainBackedOffAndItsSettlingEndsAShareAfterTheFirstRejoin() {
    ReadsFailing member = new ReadsFailing(2);
    List<HostpaceEvent.IntervalChanged> changes = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(event -> {
      if (event instanceof HostpaceEvent.IntervalChanged changed) {
        changes.add(changed);
      }
    }).fleet(member).build();
    // The fleet keeps 250 ms of the host, which the engine reads as it meets it; the host refuses
    // the starts from 8 s to 8.3 s, bare, and takes the others.
    fleet.join().keep("shared.test", new Fleet.Kept(Duration.ofMillis(250).toNanos(), 0, 0, 0, 0, 0),
        Duration.ofHours(1).toNanos());
    server.script(exchange -> time.nanoTime() - origin >= 8_000_000_000L && time.nanoTime() - origin < 8_300_000_000L
        ? Reply.status(429) : Reply.ok());
    time.advance(Duration.ofMillis(5));
    for (int i = 0; i < 400; i++) {
      get(engine, "/r" + i);
    }
    time.advance(Duration.ofSeconds(3));
    member.down = true; // at 3 s the fleet goes: the engine starts alone, each 500 ms (its share among 2)
    time.advance(Duration.ofSeconds(3));
    member.down = false; // at 6 s its claims are answered again, but its rejoin's read fails
    member.readsFail = true;
    changes.clear();
    time.advance(Duration.ofSeconds(20));
    List<HostpaceEvent.IntervalChanged> whileReadsFail = new ArrayList<>(changes);
    List<Long> readsWhileFailing = new ArrayList<>(member.readsAsked);
    member.readsFail = false; // at 26 s the read answers again
    time.advance(Duration.ofSeconds(15));

    // The rejoin at 6 s settles for one share (500 ms): the refusals at 8 s teach the interval, though
    // the read still fails. The read is asked again backed off, not at each of the 80 claims answered
    // in those 20 s; once it answers, the engine takes the fleet's 250 ms and reads no more.
    assertThat(readsWhileFailing).as("the rejoin reads asked from 6 s to 26 s, ms").hasSizeBetween(2, 8)
        .allSatisfy(ms -> assertThat(ms).isBetween(6_000L, 26_000L));
    assertThat(whileReadsFail).as("interval changes from 6 s to 26 s")
        .anySatisfy(change -> assertThat(change.to()).isGreaterThan(change.from()).isGreaterThan(Duration.ofMillis(250)));
    assertThat(member.readsAsked).as("the rejoin reads asked from 6 s to 41 s, ms").hasSizeLessThanOrEqualTo(readsWhileFailing.size() + 1);
    assertThat(changes).as("interval changes from 26 s to 41 s").last()
        .satisfies(change -> assertThat(change.to()).isEqualTo(Duration.ofMillis(250)));
  }

  /** The learned intervals of {@code engines}' host {@code shared.test}, in ms, rounded to a tenth. */
  static List<Double> intervals(List<Hostpace> engines) {
    return engines.stream().map(engine -> engine.snapshot().stream().filter(h -> h.key().equals("shared.test"))
        .mapToDouble(h -> Math.round(h.interval().toNanos() / 100_000.0) / 10.0).findFirst().orElse(0)).toList();
  }

  /** Whether {@code intervals} are all paced and within {@code percent} of each other. */
  static boolean within(List<Double> intervals, double percent) {
    double least = intervals.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double most = intervals.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return least > 0 && most <= least * (1 + percent / 100);
  }

  @ParameterizedTest(name = "down for {0} s, back empty: {1}")
  @CsvSource({"10, false", "10, true", "30, true"})
  void S4_processesThatLearnedAloneWhileTheFleetWasDownGoOnFromOneLearnedPaceWhenItIsBack(int downSeconds, boolean backEmpty) {
    // A host that takes 4 a second and refuses the rest, bare: its pace is learned, not configured.
    TokenBucket bucket = TokenBucket.of(4, 1, time.nanoTime());
    server.script(exchange -> bucket.admit(time.nanoTime())
        ? Reply.ok().after(Duration.ofMillis(50)) : Reply.status(429).after(Duration.ofMillis(50)));
    List<UnreachableFleet> members = new ArrayList<>();
    List<Hostpace> engines = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      UnreachableFleet member = unreachable(3);
      members.add(member);
      Hostpace engine = Hostpace.builder().time(time).fleet(member).build();
      engines.add(engine);
      for (int i = 0; i < 600; i++) {
        get(engine, "/w" + w + "/" + i);
      }
    }

    time.advance(Duration.ofSeconds(40)); // at 0 s to 40 s the fleet learns the host's 4 a second together
    List<Double> before = intervals(engines);
    members.forEach(member -> member.down = true); // at 40 s the fleet goes
    List<List<Double>> alone = new ArrayList<>();
    for (int s = 0; s < downSeconds; s++) {
      time.advance(Duration.ofSeconds(1));
      alone.add(intervals(engines));
    }
    if (backEmpty) {
      fleet.forgetAll(); // a Redis without persistence
    }
    members.forEach(member -> member.down = false); // it answers again
    double back = 40 + downSeconds;
    time.advance(Duration.ofSeconds(3));
    List<Double> rejoined = intervals(engines);
    List<List<Double>> after = new ArrayList<>();
    for (int s = 0; s < 30; s++) {
      time.advance(Duration.ofSeconds(1));
      after.add(intervals(engines));
    }

    // Before: one pace for the fleet, a little under the host's 250 ms. Alone, each learned from
    // its own answers at its share (one refused, and another not, or believing it met a quota),
    // and their paces parted. Within 3 s of the fleet's return they are one again, each within 3 %
    // of the others, and stay so for the next 30 s, as each hears the same answers; each of them
    // starts again, none starved by a pace the others outrun.
    assertThat(before).as("the intervals before, ms").allSatisfy(ms -> assertThat(ms).isBetween(250.0, 270.0));
    assertThat(within(before, 3)).as("the intervals before, ms: %s", before).isTrue();
    assertThat(alone).as("the intervals each second while the fleet was down, ms")
        .anySatisfy(seconds -> assertThat(within(seconds, 3)).isFalse());
    assertThat(within(rejoined, 3)).as("the intervals 3 s after the fleet came back, ms: %s", rejoined).isTrue();
    assertThat(rejoined).allSatisfy(ms -> assertThat(ms).isBetween(250.0, 270.0));
    assertThat(after).as("the intervals each second of the 30 s after, ms")
        .allSatisfy(seconds -> assertThat(within(seconds, 3)).as("%s", seconds).isTrue());
    for (int w = 0; w < 3; w++) {
      assertThat(server.startTimes("/w" + w + "/").stream().mapToDouble(Double::parseDouble).filter(t -> t >= back && t < back + 3))
          .as("starts of process %d in the 3 s after the fleet came back", w).hasSizeGreaterThanOrEqualTo(2);
    }
  }
  @Test
  void S4_processesThatLearnedAloneAtAHostPacedByItsConfiguredRateAloneRejoinAtThatRateWhenTheFleetComesBackEmpty() {
    // A host that takes 2 a second and refuses the rest, bare; the fleet paces it at its configured
    // 2 a second, so it refuses none, and no process learned an interval as the fleet went.
    TokenBucket bucket = TokenBucket.of(2, 1, time.nanoTime());
    server.script(exchange -> bucket.admit(time.nanoTime())
        ? Reply.ok().after(Duration.ofMillis(20)) : Reply.status(429).after(Duration.ofMillis(20)));
    List<UnreachableFleet> members = new ArrayList<>();
    List<Hostpace> engines = new ArrayList<>();
    for (int w = 0; w < 3; w++) {
      UnreachableFleet member = unreachable(3);
      member.unclaimedAfter = Duration.ofMillis(1 + 450 * w); // one sees the fleet go at once, another only as its claim times out
      members.add(member);
      Hostpace engine = Hostpace.builder().time(time).fleet(member)
          .addLimit("shared.test", Limits.rate(Rate.of(2, Duration.ofSeconds(1)))).build();
      engines.add(engine);
      for (int i = 0; i < 200; i++) {
        get(engine, "/w" + w + "/" + i);
      }
    }

    time.advance(Duration.ofSeconds(10)); // at 0 s to 10 s the fleet grants a start each 500 ms
    List<Double> before = intervals(engines);
    members.forEach(member -> member.down = true); // at 10 s the fleet goes
    List<List<Double>> alone = new ArrayList<>();
    for (int s = 0; s < 10; s++) {
      time.advance(Duration.ofSeconds(1));
      alone.add(intervals(engines));
    }
    fleet.forgetAll(); // a Redis without persistence
    members.forEach(member -> member.down = false); // at 20 s it answers again, empty
    time.advance(Duration.ofSeconds(3));
    List<List<Double>> after = new ArrayList<>();
    for (int s = 0; s < 5; s++) {
      time.advance(Duration.ofSeconds(1));
      after.add(intervals(engines));
    }

    // Before: the configured rate alone, no interval learned. Alone, each learned from its own
    // refusals at its share, and their paces parted. Within 3 s of the fleet's return each goes
    // on from what the fleet kept as it was lost, nothing learned: the configured rate again.
    assertThat(before).as("the intervals before, ms").allSatisfy(ms -> assertThat(ms).isZero());
    assertThat(alone).as("the intervals each second while the fleet was down, ms")
        .anySatisfy(seconds -> assertThat(seconds).anySatisfy(ms -> assertThat(ms).isGreaterThan(500.0)));
    assertThat(after).as("the intervals each second of the 5 s from 3 s after the fleet came back, ms")
        .allSatisfy(seconds -> assertThat(seconds).as("%s", seconds).allSatisfy(ms -> assertThat(ms).isLessThanOrEqualTo(500.0)));
  }

  @Test
  void S4_aClaimThatWaitedAndWasAskedAgainUnclaimedHoldsNoPlaceGrantedToItLaterBeyondItsShare() {
    // The fleet's 4 places of the host, held 20 s by another process; this one counts 2 processes:
    // its share is 2. Its calls are held open 30 s.
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(exchange.uri().getPath().startsWith("/a") ? 20 : 30)));
    Hostpace other = Hostpace.builder().widenFirstContact(false).time(time)
        .addLimit("shared.test", Limits.inFlight(4)).fleet(fleet.join()).build();
    for (int i = 0; i < 4; i++) {
      other.execute(server.get("http://shared.test/a" + i));
    }
    time.advance(Duration.ofMillis(100));
    UnreachableFleet member = unreachable(2);
    member.placesWait = true;
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .addLimit("shared.test", Limits.inFlight(4)).fleet(member).build();
    for (int i = 0; i < 3; i++) {
      get(engine, "/b" + i);
    }
    time.advance(Duration.ofSeconds(1)); // its first claim waits in the fleet
    member.down = true; // asked again 5 s later, unclaimed: it starts its share alone
    time.advance(Duration.ofSeconds(60)); // the other's places let go at 20 s grant its claim that waited

    // Its share alone from 5.1 s; the third as the first of them ends, not at 20 s: the fleet's
    // grant of the claim that waited is let go (its ask again was unclaimed), as no call needs it
    // beyond the share.
    assertThat(server.startTimes("/b")).containsExactly("5.105", "5.106", "35.106");
    assertThat(fleet.placesHeld("shared.test")).isZero();
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Fleet;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.ServerLimit;
import io.hostpace.testing.TokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * SPEC R11: the default engine against hosts that count a quota in fixed windows and refuse beyond
 * it with a bare 429, in virtual time, each answer 50 ms after its start. Times in seconds from
 * the engine's first start.
 */
class FixedWindowQuotaTest {

  final VirtualTime time = VirtualTime.create();
  final long origin = time.nanoTime();
  final List<HostpaceEvent> events = new ArrayList<>();
  final Hostpace engine = Hostpace.builder().time(time).addListener(events::add).build();
  /** Each start as the server saw it: when, and whether it was accepted. */
  final List<double[]> starts = new ArrayList<>();
  final List<CompletableFuture<Response>> calls = new ArrayList<>();
  /** What the server counts by. */
  Admits limit;

  FakeServer server() {
    return new FakeServer(time, exchange -> {
      boolean accepted = limit.admit(time.nanoTime());
      starts.add(new double[] {seconds(time.nanoTime()), accepted ? 1 : 0});
      return (accepted ? Reply.ok() : Reply.status(429)).after(Duration.ofMillis(50));
    });
  }

  void send(int requests, Duration forAtMost) {
    FakeServer server = server();
    for (int i = 0; i < requests; i++) {
      calls.add(engine.execute(server.get("http://api.test/" + i)));
    }
    time.advance(forAtMost);
  }

  /** {@code each} requests from each of three processes of a fleet (SPEC S2) 1 ms away. */
  void sendFromFleetOfThree(int each) {
    LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(1));
    FakeServer server = server();
    for (int p = 0; p < 3; p++) {
      Hostpace process = Hostpace.builder().time(time).fleet(fleet.join()).build();
      for (int i = 0; i < each; i++) {
        calls.add(process.execute(server.get("http://api.test/" + p + "/" + i)));
      }
    }
  }

  double seconds(long at) {
    return (at - origin) / 1e9;
  }

  /** {@code seconds} from the origin on the engine's clock. */
  long at(double seconds) {
    return origin + Math.round(seconds * 1e9);
  }

  /** A host that counts by {@code before}, and from {@code atSeconds} on by {@code after}. */
  Switching switching(ServerLimit before, ServerLimit after, double atSeconds) {
    return new Switching(before, after, at(atSeconds));
  }

  /** When the engine first learned a quota. */
  double learnedAt() {
    return seconds(events.stream().filter(HostpaceEvent.QuotaChanged.class::isInstance).findFirst().orElseThrow().atNanos());
  }

  long refusedBetween(double from, double to) {
    return starts.stream().filter(s -> s[0] >= from && s[0] < to && s[1] == 0).count();
  }

  /** The refused starts, for a failing assertion's description. */
  String refusedStarts() {
    StringBuilder times = new StringBuilder("refused at");
    starts.stream().filter(s -> s[1] == 0).forEach(s -> times.append(String.format(java.util.Locale.ROOT, " %.2f", s[0])));
    return times.toString();
  }

  /** That each window of {@code length} s from {@code from} s, while it ends by {@code until} s, accepted {@code count}. */
  void assertEachWindowAccepted(double from, double until, double length, long count) {
    for (double at = from; at + length <= until; at += length) {
      assertThat(acceptedBetween(at, at + length)).as("from %.0f s", at).isEqualTo(count);
    }
  }

  /** The first start at or after {@code from} s. */
  double firstStartFrom(double from) {
    return starts.stream().mapToDouble(start -> start[0]).filter(at -> at >= from).min().orElseThrow();
  }

  long acceptedBetween(double from, double to) {
    return starts.stream().filter(s -> s[0] >= from && s[0] < to && s[1] == 1).count();
  }

  void assertNothingLost() {
    assertThat(calls).allSatisfy(call -> assertThat(call.join().status()).isEqualTo(200));
    assertThat(events).noneMatch(HostpaceEvent.GaveUp.class::isInstance);
  }

  @Test
  void R11_sixtyAMinuteIsKnownAtItsFirstBoundaryAndThenOnlyTheTriesOfOneMoreAreRefused() {
    limit = FixedWindow.of(60, Duration.ofMinutes(1), origin)::admit;
    send(600, Duration.ofMinutes(15));

    // The wall after the first 60 ends at the boundary at 60 s, found by a probe before 120 s.
    assertThat(learnedAt()).isBetween(60.0, 120.0);
    // From there a minute is taken for the window's length: each probe goes where it puts the
    // next boundary, and none is refused. Refused: one more than 60, tried in the first window
    // after learning and in the fifth (a wall may have been an outage).
    assertThat(refusedBetween(learnedAt(), 900)).isEqualTo(2);
    // Each of the host's windows after the first is spent: 60 accepted in each.
    for (int window = 1; window < 10; window++) {
      assertThat(acceptedBetween(60 * window, 60 * (window + 1))).as("window %d", window).isEqualTo(60);
    }
    assertNothingLost();
  }

  @Test
  void R11_theFirstWallAfterARunOfTenOrMoreIsProbedNoSoonerThanThreeSecondsAfterItBegan() {
    // Sixty a minute, 600 requests: the first 60 are accepted by 0.5 s, as the opening widens.
    limit = FixedWindow.of(60, Duration.ofMinutes(1), origin)::admit;
    send(600, Duration.ofMinutes(15));

    // The wall: the eleven in flight as the window was spent, and one retry at the rule's pace.
    assertThat(refusedBetween(0, 1)).as(refusedStarts()).isEqualTo(12);
    // Its end probed from 3 s after it began, each probe twice as far from its start as the one
    // before: four refused (5.3, 11.7, 23.0 and 45.4 s), where probes from half a second on were
    // refused seven times (1.3 s to 51.7 s). None between 1 s and 3 s.
    assertThat(refusedBetween(1, 3)).as(refusedStarts()).isZero();
    assertThat(refusedBetween(1, 60)).as(refusedStarts()).isEqualTo(4);
    // At most 3 % of the run's attempts refused: 18 of 618.
    assertThat(refusedBetween(0, 900)).as(refusedStarts()).isLessThanOrEqualTo(18);
    assertNothingLost();
  }

  @Test
  void R11_aWindowIsSpentOnceEachTimeItsLengthPassesWhereverItsWindowsBegin() {
    // 20 each 10 s, the host's windows beginning 6.3 s after our first start.
    long phase = Duration.ofMillis(6_300).toNanos();
    limit = FixedWindow.of(20, Duration.ofSeconds(10), origin + phase)::admit;
    send(200, Duration.ofMinutes(5));

    // The wall ends at 6.6 s. Counted from the first start, the window would last 3.4 s to 6.6 s:
    // the round lengths there, 4, 5 and 6 s, are each ruled out by a probe refused; then the
    // boundary at 16.3 s is searched for, and from it 10 s holds. One more than 20 is tried too.
    double learned = learnedAt();
    assertThat(refusedBetween(learned, 300)).as(refusedStarts()).isLessThanOrEqualTo(6);
    // From the second window after learning each of the host's windows gets its 20, once.
    for (double from = 6.3 + 10 * Math.ceil((learned - 6.3) / 10) + 10; from + 10 < 100; from += 10) {
      assertThat(acceptedBetween(from, from + 10)).as("from %.1f s", from).isEqualTo(20);
    }
    assertNothingLost();
  }

  @Test
  void R11_aHostThatCountsByTheClocksMinuteMetPartWayIntoOneIsFollowedFromTheMinute() {
    // 100 a minute by the clock (the virtual clock's day begins at the origin), the engine's first
    // request 41.7 s into a minute.
    limit = FixedWindow.of(100, Duration.ofMinutes(1), origin)::admit;
    time.advance(Duration.ofMillis(41_700));
    send(600, Duration.ofMinutes(15));

    // The wall after the first 100 ends at the boundary at 60 s, found late (64.9 s). Counted from
    // the first request, 12, 15 and 20 s are ruled out and a length between, then 30 s by the clock,
    // then its minute, each once its check, three quarters of it after the window began, is refused
    // (a count longer than the host's would be accepted at every probe): from 120 s on, each
    // minute's first request starts with it, and each minute accepts its 100.
    assertThat(learnedAt()).isBetween(60.0, 65.0);
    assertThat(refusedBetween(learnedAt(), 95)).as(refusedStarts()).isLessThanOrEqualTo(7);
    assertThat(refusedBetween(95, 115)).as(refusedStarts()).isLessThanOrEqualTo(1);
    assertThat(refusedBetween(115, 900)).as(refusedStarts()).isZero();
    for (int minute = 2; minute < 6; minute++) {
      assertThat(firstStartFrom(60 * minute)).as("minute %d", minute).isLessThan(60 * minute + 0.1);
    }
    assertEachWindowAccepted(120, 300, 60, 100);
    assertNothingLost();
  }

  @Test
  void R11_S2_aFleetsProcessStartsInAWindowAnotherProcessBeganNotAWindowAfterItsOwnLastProbe() {
    // 100 a minute by the clock; three processes of a fleet, 200 requests each, met 23.9 s into a
    // minute.
    limit = FixedWindow.of(100, Duration.ofMinutes(1), origin)::admit;
    time.advance(Duration.ofMillis(23_900));
    sendFromFleetOfThree(200);
    time.advance(Duration.ofMinutes(10));

    // Once the windows are known, each minute's probe is one process's; the others hear it
    // accepted and start in that window as soon as the fleet's places of the quota let them, where
    // each counted on from its own last probe would start a whole window after that one: most of a
    // minute late, its start refused there, and the minute's quota spent late or not at all.
    for (int minute = 3; minute < 6; minute++) {
      assertThat(acceptedBetween(60 * minute, 60 * minute + 5)).as("minute %d", minute).isEqualTo(100);
    }
    assertThat(refusedBetween(150, 600)).as(refusedStarts()).isLessThanOrEqualTo(1);
    assertNothingLost();
  }

  @Test
  void R11_S2_aFleetsProcessesKnowAlikeHowLongTheWindowLastsAndCheckTheirCountAlike() {
    // 60 a minute, the host's windows beginning 17.4 s into each minute of the clock; three
    // processes of a fleet, 200 requests each. Each process learns how long a window lasts from
    // every probe of the fleet refused, not only its own: where each counted only its own, two of
    // them checked their count 45 s into a window and the third did not; the window the two had
    // told the fleet's places of the quota ended at their check, and the third's starts took the
    // places freed, into the host's full window (25 refused at once).
    limit = FixedWindow.of(60, Duration.ofMinutes(1), at(17.4))::admit;
    sendFromFleetOfThree(200);
    time.advance(Duration.ofMinutes(15));

    // Once the windows are known, only the fleet's tries of one more and its probes narrowing
    // where the windows begin are refused, each one process's.
    assertThat(refusedBetween(200, 900)).as(refusedStarts()).isLessThanOrEqualTo(4);
    assertEachWindowAccepted(77.4, 557.4, 60, 60);
    assertNothingLost();
  }

  @Test
  void R11_S2_aFleetsProcessesTryOneMoreInTheSameWindowsAndHoldEachWindowToTheQuota() {
    // 60 a minute from 0 s; three processes of a fleet, 400 requests each. Learned at 62 s, one
    // more is tried in that first window, then every fourth window, then every sixteenth. One
    // process's try refused is every process's: where each counted only its own, the two whose try
    // did not go in the first window tried in the second (120 s) and every fourth from there, the
    // third in the fifth (300 s), and the fleet tried three times as often as one process. With
    // no try refused in a window to say it was full, each process's places of the quota ran out
    // before the window did (leased for the window before, which the count's check cut short), and
    // each process started one more at 178 s: its own count, of its own starts only, let it. It
    // counts the others' accepted starts in its window as well.
    limit = FixedWindow.of(60, Duration.ofMinutes(1), origin)::admit;
    sendFromFleetOfThree(400);
    time.advance(Duration.ofMinutes(25));

    // After the first window and the count's check (107 s): only the try of one more at 300 s.
    assertThat(refusedBetween(110, 1500)).as(refusedStarts()).isEqualTo(1);
    assertThat(refusedBetween(299, 301)).as(refusedStarts()).isEqualTo(1);
    assertEachWindowAccepted(120, 1200, 60, 60);
    assertNothingLost();
  }

  @Test
  void S2_S4_aWindowProbeWhosePlaceTheFleetCannotBeAskedForGoesAlone() {
    // 60 a minute from 0 s; one process of a fleet whose place of the host's probe cannot be asked
    // for (Redis down, say): each window's probe goes as if no fleet held it, where a process that
    // waited for the place would never probe again, and its calls would wait for good.
    limit = FixedWindow.of(60, Duration.ofMinutes(1), origin)::admit;
    Fleet unasked = new ForwardingFleet(new LocalFleet(time, time, Duration.ofMillis(1)).join()) {
      @Override
      public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
        if (key.endsWith("/probe")) {
          time.schedule(() -> then.accept(Fleet.UNCLAIMED), 1_000_000L);
        } else {
          super.claimPlace(key, place, limit, leaseNanos, then);
        }
      }
    };
    Hostpace process = Hostpace.builder().time(time).fleet(unasked).build();
    FakeServer server = server();
    for (int i = 0; i < 300; i++) {
      calls.add(process.execute(server.get("http://api.test/" + i)));
    }
    time.advance(Duration.ofMinutes(10));

    assertEachWindowAccepted(60, 300, 60, 60);
    assertNothingLost();
  }

  @Test
  void S2_aWindowProbesPlaceHeldForACallCancelledBeforeItStartedGoesBackAtOnce() {
    // 60 a minute from 0 s; one process of a fleet whose claims of the quota's places go unanswered
    // from 170 s: at 180 s its head holds the host's probe place and waits for a quota place. Its
    // caller gives up on every call at 185 s: with none left to probe, the place goes back then,
    // not at its lease's end, 30 s on, which would hold every other process's probe back as long.
    limit = FixedWindow.of(60, Duration.ofMinutes(1), origin)::admit;
    LocalFleet local = new LocalFleet(time, time, Duration.ofMillis(1));
    boolean[] unanswered = {false};
    Fleet member = new ForwardingFleet(local.join()) {
      @Override
      public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
        if (!(unanswered[0] && key.endsWith("/quota"))) {
          super.claimPlace(key, place, limit, leaseNanos, then);
        }
      }
    };
    Hostpace process = Hostpace.builder().time(time).fleet(member).build();
    FakeServer server = server();
    for (int i = 0; i < 300; i++) {
      calls.add(process.execute(server.get("http://api.test/" + i)));
    }
    time.advance(Duration.ofSeconds(170));
    unanswered[0] = true;
    time.advance(Duration.ofSeconds(15));
    assertThat(local.placesHeld("api.test/probe")).as("held while its call waits").isEqualTo(1);

    calls.forEach(call -> call.cancel(true));
    time.advance(Duration.ofMillis(10));

    assertThat(local.placesHeld("api.test/probe")).isZero();
  }

  @Test
  void R11_S2_aFleetMetPartWayIntoWindowsNoRoundLengthFitsCountsThemFromTheBoundaryFound() {
    // 45 each 90 s from 0 s; three processes of a fleet, 150 requests each, met at 55 s. Counted
    // from the run's first start, no round length fits what the host did, and the processes, which
    // kept that count whatever the boundaries showed, searched for the windows where they were not:
    // quotas dropped and learned again from new walls, a hundred refusals between 137 s and 660 s.
    // They count from the boundary found instead, as a process alone does, and narrow where it
    // lies by probes in the middle of it, so that their windows do not begin up to its span late.
    limit = FixedWindow.of(45, Duration.ofSeconds(90), origin)::admit;
    time.advance(Duration.ofMillis(55_000));
    sendFromFleetOfThree(150);
    time.advance(Duration.ofMinutes(30));

    // Each of the host's windows gives its 45 from the first; from 170 s, a few probes refused.
    assertEachWindowAccepted(0, 900, 90, 45);
    assertThat(refusedBetween(170, 1800)).as(refusedStarts()).isLessThanOrEqualTo(6);
    assertNothingLost();
  }

  @Test
  void S2_aFleetsWindowProbeIsOneProcesssTheOthersHearItsAnswer() {
    // 60 a minute, the host's windows beginning 17.4 s into each minute; three processes of a
    // fleet, 200 requests each, from 0 s. The processes count the same windows and would each
    // probe each boundary: where it had not come, three refused at once (53.7 s, 60.0 s, 75.6 s,
    // 128.0 s and on), where one would do. One process holds the fleet's place of the host's
    // probe; the others hear its answer.
    limit = FixedWindow.of(60, Duration.ofMinutes(1), at(17.4))::admit;
    sendFromFleetOfThree(200);
    time.advance(Duration.ofMinutes(15));

    // After the first window's burst: no two refused together, each probe refused alone.
    List<Double> refused = starts.stream().filter(start -> start[0] >= 35 && start[1] == 0).map(start -> start[0]).toList();
    for (int i = 1; i < refused.size(); i++) {
      assertThat(refused.get(i) - refused.get(i - 1)).as(refusedStarts()).isGreaterThan(0.01);
    }
    assertThat(refusedBetween(35, 900)).as(refusedStarts()).isLessThanOrEqualTo(10);
    assertNothingLost();
  }

  @Test
  void R11_aRunBegunWithinAWindowKeepsItsQuotaWhileItsWindowsAreCountedFromTheBoundaryFound() {
    // 60 a minute, the host's windows beginning 17.4 s into each minute of the clock; the engine's
    // first request 7.3 s into a minute. The first wall's end is found at 19 s: counted from the
    // run's first start, no length fits, as four probes and a check refused say; counted from the
    // boundary found, four round lengths and two checks are refused before a minute's probe is
    // accepted. Those refusals ruled out where the windows were counted from, not the quota: where
    // they counted toward the eight in a row that drop it, the rate rule took over at 49 s and the
    // quota was learned again from a new wall, fifteen refusals after the host's second window began.
    limit = FixedWindow.of(60, Duration.ofMinutes(1), at(17.4))::admit;
    time.advance(Duration.ofMillis(7_300));
    send(600, Duration.ofMinutes(15));

    assertThat(events).filteredOn(HostpaceEvent.QuotaChanged.class::isInstance)
        .map(HostpaceEvent.QuotaChanged.class::cast)
        .noneMatch(change -> change.from() != null && change.to() == null);
    assertThat(refusedBetween(77.4, 900)).as(refusedStarts()).isLessThanOrEqualTo(4);
    assertNothingLost();
  }

  @Test
  void R11_aFirstBoundaryFoundJustBeforeTheNextTheRoundLengthPutsDoesNotSplitTheWindowsStarts() {
    // 100 a minute, the host's windows beginning 17.4 s into each minute of the clock; the engine's
    // first request 7.3 s into a minute. The first wall's end is found at 19.2 s, which counted
    // from the run's first start allows 6 s windows, whose next boundary would come 0.13 s later,
    // while the window's starts take longer than that to go: counted so, the host's one window
    // would be read as two, the second's refusal lowering the quota to what crossed the boundary.
    limit = FixedWindow.of(100, Duration.ofMinutes(1), at(17.4))::admit;
    time.advance(Duration.ofMillis(7_300));
    send(600, Duration.ofMinutes(15));

    assertThat(events).filteredOn(HostpaceEvent.QuotaChanged.class::isInstance)
        .map(HostpaceEvent.QuotaChanged.class::cast)
        .allMatch(change -> change.to() != null && change.to().permits() >= 100, "the quota stays 100");
    for (double from = 17.4; from < 900; from += 0.5) {
      assertThat(refusedBetween(from, from + 1)).as("from %.1f s: %s", from, refusedStarts()).isLessThanOrEqualTo(2);
    }
    assertNothingLost();
  }

  @Test
  void R11_S2_aFleetsProcessWhoseQuotaItsRefusedProbesDroppedGoesFromTheSlowStartNotItsWindowsBursts() {
    // 45 each 90 s, the host's windows beginning at 26.1 s; three processes of a fleet, 150
    // requests each, met at 20 s. Counted from the run's first start, the windows are searched for
    // where they are not, and each process's quota is dropped by its probes refused in a row (55 s
    // to 57.5 s). The answers its rule measured then were the windows' bursts, heard a fleet's trip
    // apart, far faster than the host went: the last process to drop paced itself from them, cut at
    // each refusal a few milliseconds apart, and most of a window's quota was refused within a
    // second. It goes from the slow start instead.
    limit = FixedWindow.of(45, Duration.ofSeconds(90), at(26.1))::admit;
    time.advance(Duration.ofMillis(20_000));
    sendFromFleetOfThree(150);
    time.advance(Duration.ofMinutes(30));

    for (double from = 30; from < 1800; from += 0.5) {
      assertThat(refusedBetween(from, from + 1)).as("from %.1f s: %s", from, refusedStarts()).isLessThanOrEqualTo(8);
    }
    assertNothingLost();
  }

  @Test
  void R11_aHostThatDoesNotCountByTheClockIsNotCountedAtALongerLengthTheClockHappensToFit() {
    // 60 a minute, its windows beginning 17.4 s into each minute of the clock (counted from the
    // host's own start); the engine's first request 7.3 s into a minute of the clock.
    limit = FixedWindow.of(60, Duration.ofMinutes(1), at(17.4))::admit;
    time.advance(Duration.ofMillis(7_300));
    send(600, Duration.ofMinutes(15));

    // The run began within a window, and the clock's minute is ruled out by the walls; two minutes
    // of the clock fit what the host did, but a minute from the boundary found is what is tried
    // first: counted at two minutes, every other window would go unused. Each window gets its 60.
    assertEachWindowAccepted(17.4 + 60 * 4, 17.4 + 60 * 9, 60, 60);
    assertNothingLost();
  }

  @Test
  void R11_windowsThatMoveAreStillSpentOnceEachAndCostNoRefusal() {
    // 60 a minute from 0 s; from 150 s on, the host's windows begin 20 s later (at 170 s, 230 s, ...).
    limit = switching(FixedWindow.of(60, Duration.ofMinutes(1), at(0)), FixedWindow.of(60, Duration.ofMinutes(1), at(20)), 150);
    send(900, Duration.ofMinutes(20));

    // A probe each minute falls in each of the moved windows too, once: none refused, but one more
    // than 60, tried in the fifth window after learning.
    assertThat(refusedBetween(150, 1200)).as(refusedStarts()).isLessThanOrEqualTo(1);
    assertEachWindowAccepted(170, 830, 60, 60);
    assertNothingLost();
  }

  @Test
  void R11_windowsThatGrowAreLearnedAgainWithinTwoOfTheirWindows() {
    // 30 each 30 s from 0 s; from 300 s on, 30 each minute (windows from 300 s).
    limit = switching(FixedWindow.of(30, Duration.ofSeconds(30), at(0)), FixedWindow.of(30, Duration.ofMinutes(1), at(300)), 300);
    send(600, Duration.ofMinutes(25));

    // The probe at 330 s is refused where a length that held put the boundary; the boundary is
    // searched for, found by 360 s, and the windows counted from there: a minute holds, taken
    // once the window is known to last three quarters of it: until then the boundaries are
    // narrowed by probes, three of them refused, once.
    assertThat(refusedBetween(300, 420)).isBetween(1L, 6L);
    assertThat(refusedBetween(420, 1500)).as(refusedStarts()).isLessThanOrEqualTo(3);
    assertEachWindowAccepted(420, 840, 60, 30);
    assertNothingLost();
  }

  @Test
  void R11_windowsThatGrowToALengthNoRoundOneFitsAreNarrowedToNotCountedAtALongerRoundLength() {
    // 30 a minute from 0 s; from 300 s on, 30 each 90 s (windows from 300 s).
    limit = switching(FixedWindow.of(30, Duration.ofMinutes(1), at(0)), FixedWindow.of(30, Duration.ofSeconds(90), at(300)), 300);
    send(600, Duration.ofMinutes(40));

    // The probe at 360 s is refused, and the boundary searched for is found; the window is known
    // to have grown beyond a minute, but not to last three quarters of two minutes: two minutes,
    // which a host of 90 s accepts at every probe, would leave every fourth of its windows unused.
    // Its boundaries are narrowed by probes instead, and from the fifth window on each gets its 30.
    assertEachWindowAccepted(300 + 90 * 5, 300 + 90 * 15, 90, 30);
    assertNothingLost();
  }

  @Test
  void R11_aTokenBucketThatRefusesTheOpeningIsPacedByItsRateAndNotTakenForAWindow() {
    // 2 a second holding a burst of 20: after the burst it accepts again within half a second.
    limit = TokenBucket.of(2, 20, origin)::admit;
    send(300, Duration.ofMinutes(10));

    assertThat(events).noneMatch(HostpaceEvent.QuotaChanged.class::isInstance);
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.quota()).isNull());
    assertNothingLost();
  }

  /** Whether the server accepts a request arriving at {@code now}. */
  interface Admits {
    boolean admit(long now);
  }

  /** One server's count until {@code at}, another's from then on. */
  record Switching(ServerLimit before, ServerLimit after, long at) implements Admits {
    @Override
    public boolean admit(long now) {
      return now - at < 0 ? before.admit(now) : after.admit(now);
    }
  }
}

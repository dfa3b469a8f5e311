package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Fleet;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.ServerLimit;
import io.hostpace.testing.TokenBucket;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * SPEC S2 under random fleets, in virtual time: several engines on one {@link LocalFleet} with a
 * random latency, against a gate that refuses beyond its capacity with {@code Retry-After}, a
 * token bucket that refuses bare, or a fixed window that refuses bare beyond its quota (and may
 * announce it), with failures and cancellations. Every call ends (no claim of a start or a place
 * holds a host for good); once all is over the fleet holds no place (in flight, or of a learned
 * quota) and no engine holds the host; and the processes together never had more in flight at the
 * server than an in-flight limit given by key.
 */
class FleetPropertiesTest {

  /** The server's kinds. */
  enum Model { GATE, BUCKET, WINDOW }

  /**
   * The server: a gate of {@code capacity}, a bucket of {@code capacity} a second, or {@code
   * capacity} each 20 s; a window that {@code announces} says on every answer how many remain until
   * its reset (SPEC R8), which the processes spend together.
   */
  record Host(Model model, int capacity, int latencyMillis, int failPercent, boolean announces) {
    /** A host that announces nothing. */
    Host(Model model, int capacity, int latencyMillis, int failPercent) {
      this(model, capacity, latencyMillis, failPercent, false);
    }

    boolean gate() {
      return model == Model.GATE;
    }
  }

  /** A context that gives the group an in-flight limit of its own. */
  static final CallContext OTHER = CallContext.builder().addLimit("*.fleet.test", Limits.inFlight(2)).build();

  /** A context that gives the host an in-flight limit of its own. */
  static final CallContext OTHER_HOST = CallContext.builder().addLimit("api.fleet.test", Limits.inFlight(1)).build();

  static final long WINDOW_NANOS = Duration.ofSeconds(20).toNanos();

  /**
   * The fleet and its calls; {@code configured}: 0 for no limit given by key, 1 an in-flight limit
   * of 2 given the host, 2 one of 3 given its group {@code *.fleet.test} (the fleet's either way), 3
   * that too and, for about half the calls, a context that gives the group one of 2 ({@link #OTHER}):
   * two gates of the group, each the fleet's (SPEC P8); 4 the host's 2 and, for about half the
   * calls, a context that gives the host 1 ({@link #OTHER_HOST}): two queues of the host. With
   * {@code outages}, each process cannot reach the fleet once, for 0.5 to 30 s from a random time
   * in the calls' spread (SPEC S4).
   */
  record Load(int processes, int latencyMillis, int requests, int spreadMillis, int cancelPercent, int configured, long seed,
      boolean outages) {
    /** A load whose processes always reach the fleet. */
    Load(int processes, int latencyMillis, int requests, int spreadMillis, int cancelPercent, int configured, long seed) {
      this(processes, latencyMillis, requests, spreadMillis, cancelPercent, configured, seed, false);
    }
  }

  @Provide
  Arbitrary<Host> hosts() {
    return Combinators.combine(Arbitraries.of(Model.class), Arbitraries.integers().between(1, 8),
            Arbitraries.integers().between(10, 1_000), Arbitraries.of(0, 0, 5), Arbitraries.of(false, false, true))
        .as(Host::new);
  }

  @Provide
  Arbitrary<Load> loads() {
    return Combinators.combine(Arbitraries.integers().between(2, 4), Arbitraries.of(0, 1, 5, 30),
            Arbitraries.integers().between(5, 120), Arbitraries.of(0, 0, 2_000, 20_000),
            Arbitraries.of(0, 0, 10), Arbitraries.of(0, 0, 1, 2, 3, 4), Arbitraries.longs(), Arbitraries.of(false, false, true))
        .as(Load::new);
  }

  static final class Run {
    final VirtualTime time = VirtualTime.create();
    final Host host;
    final Random random;
    final LocalFleet fleet;
    final List<Hostpace> engines = new ArrayList<>();
    final List<CompletableFuture<Response>> calls = new ArrayList<>();
    final FakeServer server;
    final ServerLimit limit;
    boolean learnedALimit;
    boolean learnedAQuota;
    Duration longestWindow = Duration.ZERO;

    Run(Host host, Load load) {
      this.host = host;
      this.random = new Random(load.seed());
      this.fleet = new LocalFleet(time, time, Duration.ofMillis(load.latencyMillis()));
      this.server = new FakeServer(time, exchange -> reply());
      this.limit = switch (host.model()) {
        case GATE -> new AdmissionGate(host.capacity());
        case BUCKET -> TokenBucket.of(host.capacity(), host.capacity(), time.nanoTime());
        case WINDOW -> FixedWindow.countingRefusals(host.capacity(), Duration.ofNanos(WINDOW_NANOS), time.nanoTime());
      };
      for (int p = 0; p < load.processes(); p++) {
        Hostpace.Builder builder = Hostpace.builder().time(time);
        if (load.configured() == 1 || load.configured() == 4) {
          builder.addLimit("api.fleet.test", Limits.inFlight(2));
        } else if (load.configured() >= 2) {
          builder.addLimit("*.fleet.test", Limits.inFlight(3));
        }
        engines.add(builder.fleet(member(load)).addListener(event -> {
          learnedALimit |= event instanceof HostpaceEvent.InFlightLimitChanged changed && changed.to() > 0;
          if (event instanceof HostpaceEvent.QuotaChanged changed && changed.to() != null) {
            learnedAQuota = true;
            Duration window = changed.to().per();
            longestWindow = window.compareTo(longestWindow) > 0 ? window : longestWindow;
          }
        }).build());
      }
      for (int i = 0; i < load.requests(); i++) {
        Hostpace engine = engines.get(i % engines.size());
        int at = load.spreadMillis() == 0 ? 0 : random.nextInt(load.spreadMillis());
        boolean cancel = random.nextInt(100) < load.cancelPercent();
        int cancelAfter = random.nextInt(20_000);
        CallContext context = load.configured() == 3 && random.nextBoolean() ? OTHER
            : load.configured() == 4 && random.nextBoolean() ? OTHER_HOST : CallContext.DEFAULT;
        String uri = "http://api.fleet.test/" + i;
        time.schedule(() -> {
          CompletableFuture<Response> call = engine.execute(server.get(uri), context);
          calls.add(call);
          if (cancel) {
            time.schedule(() -> call.cancel(true), Duration.ofMillis(cancelAfter).toNanos());
          }
        }, Duration.ofMillis(at).toNanos());
      }
    }

    /** A process's member of the fleet: one that cannot reach it for a while, with {@code load}'s outages. */
    Fleet member(Load load) {
      if (!load.outages()) {
        return fleet.join();
      }
      UnreachableFleet member = new UnreachableFleet(fleet.join(), time, load.processes());
      member.placesWait = true;
      long from = Duration.ofMillis(random.nextInt(load.spreadMillis() + 2_000)).toNanos();
      long lasts = Duration.ofMillis(500 + random.nextInt(29_500)).toNanos();
      time.schedule(() -> member.down = true, from);
      time.schedule(() -> member.down = false, from + lasts);
      return member;
    }

    Reply reply() {
      Duration latency = Duration.ofMillis(host.latencyMillis());
      if (random.nextInt(100) < host.failPercent()) {
        return Reply.fail(new UncheckedIOException(new IOException("reset"))).after(latency);
      }
      if (!limit.admit(time.nanoTime())) {
        return announced((host.gate() ? Reply.refuse(429, "1") : Reply.status(429)).after(latency));
      }
      if (host.gate()) { // its place is free once it has answered
        time.schedule(() -> limit.end(time.nanoTime()), latency.toNanos());
      }
      return announced(Reply.ok().after(latency));
    }

    /** {@code reply}, with what a window that announces says as it admits or refuses: how many remain, and when they come back. */
    Reply announced(Reply reply) {
      if (!host.announces() || !(limit instanceof FixedWindow window)) {
        return reply;
      }
      long now = time.nanoTime();
      long resetSeconds = Math.max(1, (window.resetIn(now) + 999_999_999L) / 1_000_000_000L);
      return reply.header("X-RateLimit-Limit", String.valueOf(host.capacity()))
          .header("X-RateLimit-Remaining", String.valueOf(window.remaining(now)))
          .header("X-RateLimit-Reset-After", String.valueOf(resetSeconds));
    }
  }

  @Example
  void S2_aHostAndItsGroupPacedThroughAFleet30msAwayAllEnd() {
    // Once a hang: the host's start and its group's claimed one after the other, each grant let go
    // while the other was asked again, in every process, for ever.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.BUCKET, 3, 10, 0), new Load(3, 30, 38, 2_000, 0, 2, 1));
  }

  @Example
  void S2_aQuotasPlaceIsHeldForItsWindowAfterTheLastStartAndNoLonger() {
    // Once taken for a leak: the engines' last timer ran before the window of the last start's
    // quota place had ended, where the place is rightly held.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.WINDOW, 7, 446, 5), new Load(2, 30, 119, 20_000, 10, 2, -2));
  }

  @Example
  void S2_aHeadPutBehindARetryGivesBackThePlaceItHeldWhileTheLearnedLimitFellToOne() {
    // Once a hang: a call took a place granted at a learned limit of 2 while its start waited; a
    // refused call came back in line before it and taught a limit of 1, and the displaced call
    // kept the fleet's only place while every process's head waited for it.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.GATE, 1, 1000, 5), new Load(4, 30, 40, 0, 0, 0, 10903139658537L));
  }

  @Example
  void S2_aHeadHoldsTheHostsPlaceWhileItsStartIsClaimedAgainSoTheProcessesDoNotPassItRound() {
    // Once a livelock: each process's head took the host's place, found its start to be claimed
    // again, and gave the place back while it waited, to another process's head that did the same.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.GATE, 1, 890, 5), new Load(4, 30, 87, 20_000, 0, 2, -88760L));
  }

  @Example
  void S2_aFleetThatAnswersAtOnceStillLetsTheHeadThatHoldsAPlaceStart() {
    // Once a hang with no time passing: the fleet's answers came in the same moment, and the
    // host's place went from process to process, each giving it back as its start waited.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.GATE, 2, 999, 5), new Load(3, 0, 119, 20_000, 0, 2, -2L));
  }

  @Example
  void S2_aHeadThatWaitsForTheHostsPlaceClaimsNoStartSoTheHeadsThatHoldThePlacesGetTheirs() {
    // Once a hang: the heads that held the host's two places were told to claim their starts
    // again, each time after a head that waited for a place had claimed the start and not used it.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.WINDOW, 7, 61, 0), new Load(4, 30, 36, 2_000, 0, 1, -3739L));
  }

  @Example
  void S2_anotherProcesssStartAcceptedInTheMomentThisOnesProbeWasRefusedIsNoBoundary() {
    // Once a hang: two processes a fleet of no latency apart, a window of 4 each 20 s that counts
    // refusals. A process's probe and the other's start went in the same moment, the start took
    // the window's last place and the probe was refused; heard as one more than the quota just
    // before the next probe was due, the start was taken for another process's earlier probe, a
    // boundary at the very time of the refused one. Bounds that narrow admitted no length, and the
    // window was taken to last anything up to a day: the next probe half a day on, calls waiting.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.WINDOW, 4, 455, 5), new Load(2, 0, 119, 0, 10, 0, -1));
  }

  @Example
  void S2_aHeadThatTookItsGroupsPlaceGivesItBackBeforeItWaitsForItsHostsPlace() {
    // Once a hang: a gate of 2 that answers with Retry-After teaches the host an in-flight limit,
    // so its place, which no head needed before, comes first in every head's order from then on.
    // A head of each context of a process kept the group's places it took before and waited for
    // the host's, which another process's head held while it waited for the group's: none started.
    everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(new Host(Model.GATE, 2, 300, 0), new Load(3, 30, 40, 2_000, 0, 3, 1));
  }

  @Property
  void everyCallEndsAndTheFleetHoldsNothingOnceAllIsOver(@ForAll("hosts") Host host, @ForAll("loads") Load load) {
    Run run = new Run(host, load);
    run.time.runUntilIdle(Duration.ofHours(3));
    Statistics.label("a limit learned").collect(run.learnedALimit);
    Statistics.label("a quota learned").collect(run.learnedAQuota);
    Statistics.label("a window that announces").collect(host.announces() && host.model() == Model.WINDOW);
    Statistics.label("outages").collect(load.outages());

    assertThat(run.calls).hasSize(load.requests());
    assertThat(run.calls).allSatisfy(call -> assertThat(call).isDone());
    assertThat(run.fleet.placesHeld("api.fleet.test")).as("places still held").isZero();
    // A start rightly holds its quota's place for the quota's window after it, which may outlast
    // the engines' last timer: look once the longest window learned is over.
    run.time.advance(run.longestWindow);
    assertThat(run.fleet.placesHeld("api.fleet.test/quota")).as("places of a quota still held").isZero();
    assertThat(run.fleet.placesHeld("*.fleet.test")).as("places of the group still held").isZero();
    for (Hostpace engine : run.engines) {
      assertThat(engine.snapshot()).as("hosts still held").isEmpty();
    }
    // The in-flight limit given by key is the fleet's: the processes together never had more at
    // the server (the one host is all of its group). Not while a process could not reach the
    // fleet: each then holds its share of the places alone (SPEC S4).
    int limit = switch (load.configured()) {
      case 1, 4 -> 2;
      case 2, 3 -> 3;
      default -> Integer.MAX_VALUE;
    };
    if (!load.outages()) {
      assertThat(run.server.maxInFlight.getOrDefault("api.fleet.test", 0)).as("most in flight at the server")
          .isLessThanOrEqualTo(limit);
    }
  }
}

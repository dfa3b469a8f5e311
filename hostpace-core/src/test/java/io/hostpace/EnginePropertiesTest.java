package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.RandomWorkload.Announced;
import io.hostpace.RandomWorkload.CallSpec;
import io.hostpace.RandomWorkload.ContextSpec;
import io.hostpace.RandomWorkload.EngineSpec;
import io.hostpace.RandomWorkload.FleetSpec;
import io.hostpace.RandomWorkload.KnownQuota;
import io.hostpace.RandomWorkload.Reply;
import io.hostpace.RandomWorkload.Run;
import io.hostpace.RandomWorkload.Workload;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The engine under random workloads, in virtual time: "under random arrivals, answers,
 * refusals, failures and cancellations, no host or group ever exceeds its in-flight cap or its
 * rate, every call completes exactly once, and every in-flight count returns to zero."
 *
 * <p>A workload ({@link RandomWorkload}) is a few hosts, some under {@code *.example.org} (and
 * one also under {@code *.c.example.org}) with group limits of their own, random host limits,
 * sometimes a second context with other limits and retries, sometimes a quota the store knows for
 * one host or group (SPEC S1), sometimes a fleet of which the engine is the one process (SPEC S2,
 * its answers 0 to 30 ms away, keeping claims for places waiting or not, sometimes out of the
 * engine's reach for a while, SPEC S4), and calls that arrive at random times, each with a server script
 * by attempt (200, 429, 429/503 and 405 with Retry-After, 405, 500, an IOException, or a hang the
 * test cancels; an answer sometimes announcing the host's quota, SPEC R8) and perhaps a
 * cancellation at a random time.
 * Each property runs the workload to idle and checks one thing from the fake server's own
 * observations. A failure prints the seed and the shrunk workload; its message is the run's trace.
 */
class EnginePropertiesTest {

  @Provide
  Arbitrary<Workload> workloads() {
    return RandomWorkload.workloads();
  }

  @Property
  void noQueueOrGroupEverHasMoreInFlightThanItsCap(@ForAll("workloads") Workload workload) {
    Run run = Run.of(workload);
    assertThat(run.inFlightProblems()).as(run::trace).isEmpty();
  }

  /** SPEC P11: at most {@code permits} starts in any window of {@code per}, whatever refusals taught. */
  @Property
  void noHostOrGroupEverStartsMoreThanItsPermitsInAnyIntervalOfItsRate(@ForAll("workloads") Workload workload) {
    Run run = Run.of(workload);
    Statistics.label("burst rate used").collect(run.rateOf().values().stream().anyMatch(rate -> rate.permits() > 1));
    assertThat(run.rateProblems()).as(run::trace).isEmpty();
  }

  @Property
  void everyCallCompletesExactlyOnceWithWhatTheServerLastSaidOrCancelled(@ForAll("workloads") Workload workload) {
    Run run = Run.of(workload);
    for (RandomWorkload.CallRecord call : run.calls) {
      Statistics.label("cancelled while").collect(call.cancelledWhile == null ? "not cancelled" : call.cancelledWhile);
    }
    Statistics.label("cancelled while").coverage(coverage -> {
      coverage.check("in flight").percentage(p -> p > 1);
      coverage.check("waiting").percentage(p -> p > 1);
      coverage.check("between attempts").percentage(p -> p > 0.2);
    });
    assertThat(run.completionProblems()).as(run::trace).isEmpty();
  }

  @Property
  void everyCallIsSentAtMostOncePlusItsRetriesAndAStreamOnlyOnce(@ForAll("workloads") Workload workload) {
    Run run = Run.of(workload);
    assertThat(run.sendProblems()).as(run::trace).isEmpty();
  }

  @Property
  void everyInFlightCountReturnsToZeroAndEveryQueueIsReleased(@ForAll("workloads") Workload workload) {
    Run run = Run.of(workload);
    assertThat(run.releaseProblems()).as(run::trace).isEmpty();
  }

  @Example
  void S2_aWaitingCallCancelledLetsGoItsFleetPlacesAndItsHostsOtherQueueGoesOn() {
    // On a fleet that keeps no claim waiting: the engine gives deep.c.example.org one place in
    // flight (the fleet's) and a pace, a second context a pace of its own. The second context's call
    // is refused, bare, and queued again; the first context's waits, holding the host's place, and
    // is cancelled at 1.3 s. Its place let go, the other queue must be looked at again, not left to
    // the idle sweep.
    Reply refused = new Reply(429, null, 0, false, false);
    Reply accepted = new Reply(200, null, 0, false, false);
    Workload workload = new Workload(new EngineSpec(null, null, false, 0, null, new FleetSpec(0, false)),
        Arrays.asList(null, null, new Limits(1, Rate.perSecond(0.5))), Arrays.asList(null, null),
        new ContextSpec(Arrays.asList(null, null, new Limits(null, Rate.perSecond(0.8)), null, null),
            Arrays.asList(null, null), null, false, 0),
        List.of(new CallSpec(2, true, 0, List.of(refused), null, true),
            new CallSpec(2, false, 0, List.of(accepted), 1_300, true)));
    Run run = Run.of(workload);
    assertThat(run.releaseProblems()).as(run::trace).isEmpty();
    assertThat(run.completionProblems()).as(run::trace).isEmpty();
  }

  @Example
  void S2_aStartGrantedAheadOfItsPaceStillWaitsForTheEnginesOwnRate() {
    // One process on a fleet 30 ms away; *.example.org paced at 6.7 a second, a.example.org's quota
    // known to the store (one per 500 ms). The group's claims are asked of the fleet ahead of the
    // engine's own pace; a start may go later than its grant, as its quota's place comes, and the
    // next start, granted the fleet's spacing after that grant, must still wait for the rate as the
    // engine counts it, from the start itself.
    Reply bare = new Reply(429, null, 0, false, false);
    Workload workload = new Workload(
        new EngineSpec(null, null, false, 0, new KnownQuota(0, 1, 500), new FleetSpec(30, false)),
        Arrays.asList(null, null), Arrays.asList(new Limits(2, Rate.perSecond(6.7)), null), null,
        List.of(new CallSpec(0, false, 0, List.of(bare), null, true),
            new CallSpec(0, false, 0, List.of(new Reply(405, "0.25", 50, false, false)), null, true),
            new CallSpec(0, false, 0, List.of(new Reply(200, null, 0, false, false)), null, true),
            new CallSpec(1, false, 0, List.of(new Reply(429, null, 2_250, false, false)), null, true)));
    Run run = Run.of(workload);
    assertThat(run.rateProblems()).as(run::trace).isEmpty();
    assertThat(run.completionProblems()).as(run::trace).isEmpty();
  }

  @Example
  void S2_aGroupsFleetPlaceLetGoLooksAgainAtTheHostsOfEveryContextTheFleetHeldBack() {
    // On a fleet that keeps no claim waiting: *.example.org holds one request in flight, and a
    // second context gives the group a rate too, so a gate of its own. a.example.org's call takes
    // the group's one place; b.example.org's, in the second context, is told all are held. a's
    // answer lets the place go: b's head, behind the other gate, must be looked at again, not
    // left waiting for ever.
    Workload workload = new Workload(new EngineSpec(null, null, false, 0, null, new FleetSpec(0, false)),
        Arrays.asList(null, null), Arrays.asList(new Limits(1, null), null),
        new ContextSpec(Arrays.asList(null, null, null, null, null),
            Arrays.asList(new Limits(null, Rate.perSecond(0.5)), null), null, false, 0),
        List.of(new CallSpec(0, false, 0, List.of(new Reply(200, null, 50, false, false)), null, true),
            new CallSpec(1, true, 0, List.of(new Reply(200, null, 0, false, false)), null, true)));
    Run run = Run.of(workload);
    assertThat(run.releaseProblems()).as(run::trace).isEmpty();
    assertThat(run.completionProblems()).as(run::trace).isEmpty();
  }

  @Example
  void R8_aWorkloadsAnnouncementIsReadInEachOfItsForms() {
    // The workloads' announcements are read as a host's are: none remaining, a reset 3 s away,
    // holds the host's next call, queued 100 ms after the answer, until the reset. Else the
    // properties would not look at what announcements do, and nothing would say so.
    for (int form = 0; form < 3; form++) {
      Reply announcing = new Reply(200, null, 50, false, false, new Announced(5, 0, 3, form));
      Workload workload = new Workload(new EngineSpec(null, null, false, 0, null, null),
          Arrays.asList(null, null), Arrays.asList(null, null), null,
          List.of(new CallSpec(0, false, 0, List.of(announcing), null, true),
              new CallSpec(0, false, 150, List.of(new Reply(200, null, 0, false, false)), null, true)));
      Run run = Run.of(workload);
      assertThat(run.calls.get(1).attempts.get(0).startNanos).as("form %d: %s", form, run.trace())
          .isEqualTo(3_050_000_000L);
    }
  }
}

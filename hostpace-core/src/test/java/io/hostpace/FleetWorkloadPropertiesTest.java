package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.RandomWorkload.CallSpec;
import io.hostpace.RandomWorkload.ContextSpec;
import io.hostpace.RandomWorkload.EngineSpec;
import io.hostpace.RandomWorkload.FleetSpec;
import io.hostpace.RandomWorkload.FleetWorkload;
import io.hostpace.RandomWorkload.KnownQuota;
import io.hostpace.RandomWorkload.Processes;
import io.hostpace.RandomWorkload.Reply;
import io.hostpace.RandomWorkload.Run;
import io.hostpace.RandomWorkload.Workload;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.jspecify.annotations.Nullable;

/**
 * {@link EnginePropertiesTest}'s random workloads on two or three processes of one fleet (SPEC
 * S2): each process an engine with calls and settings of its own and the same limits, the fleet 0
 * to 30 ms away, keeping claims waiting or not, sometimes out of every process's reach for a
 * while, or of each process's in turn (SPEC S4). Each process must hold what the engine holds
 * alone; together, they must hold the limits given by key as one engine would.
 */
class FleetWorkloadPropertiesTest {

  @Provide
  Arbitrary<FleetWorkload> workloads() {
    return RandomWorkload.fleetWorkloads();
  }

  @Property
  void eachProcessCompletesEveryCallOnceAndReleasesEverything(@ForAll("workloads") FleetWorkload workload) {
    Processes processes = Processes.of(workload);
    Statistics.label("processes").collect(workload.processes().size());
    for (Run run : processes.runs) {
      assertThat(run.completionProblems()).as(processes::trace).isEmpty();
      assertThat(run.sendProblems()).as(processes::trace).isEmpty();
      assertThat(run.releaseProblems()).as(processes::trace).isEmpty();
      assertThat(run.inFlightProblems()).as(processes::trace).isEmpty();
      assertThat(run.rateProblems()).as(processes::trace).isEmpty();
    }
  }

  @Example
  void S2_aPlaceGrantedAtOneGatesLimitIsNotTakenByAHeadOfALowerOne() {
    // *.example.org holds 2 in flight, a second context's requests 1. Process 1 has two requests in
    // flight, and a third of its second context waits in the fleet for a place; then process 0's
    // request claims one and waits behind it, under the limit of 2, and is cancelled, while
    // process 0's own second-context request waits. As both places go, the fleet grants process
    // 1's claim (1 held) and then process 0's (2 held, within the limit it was claimed under): the
    // request there to take it is the second context's, and would start as the second of that
    // context's limit of one.
    Reply slow = new Reply(200, null, 1_000, false, false);
    Reply quick = new Reply(200, null, 100, false, false);
    ContextSpec second = new ContextSpec(Arrays.asList(null, null, null, null, null),
        Arrays.asList(new Limits(1, null), null), null, false, 0);
    EngineSpec engine = new EngineSpec(null, null, false, 0, null, null);
    List<@Nullable Limits> hosts = Arrays.asList((Limits) null);
    List<@Nullable Limits> groups = Arrays.asList(new Limits(2, null), null);
    FleetWorkload workload = new FleetWorkload(new FleetSpec(0, true), List.of(
        new Workload(engine, hosts, groups, second, List.of(
            new CallSpec(0, false, 10, List.of(quick), 20, true),
            new CallSpec(0, true, 10, List.of(quick), null, true))),
        new Workload(engine, hosts, groups, second, List.of(
            new CallSpec(0, false, 0, List.of(slow), null, true),
            new CallSpec(0, false, 0, List.of(slow), null, true),
            new CallSpec(0, true, 0, List.of(quick), null, true)))));
    assertFleetWide(workload, Processes::inFlightProblems);
  }

  @Property
  void theProcessesTogetherHoldEveryInFlightLimitGivenByKey(@ForAll("workloads") FleetWorkload workload) {
    Processes processes = Processes.of(workload);
    Statistics.label("out of reach").collect(workload.fleet().downForMillis() == 0 ? "never"
        : workload.apart() ? "each process alone" : "every process at once");
    if (workload.fleet().downForMillis() == 0) {
      assertThat(processes.inFlightProblems()).as(processes::trace).isEmpty();
    }
  }

  @Example
  void S2_aStartGoesAsItsGrantComesItsQuotasPlaceClaimedBeforeIt() {
    // *.example.org paced at 4.2 a second, on a fleet 5 ms away; process 1's store knows a quota
    // for a.example.org, so its start needs the host's probe place and a quota place. Claimed
    // after the grant, they took two round trips: the start went 20 ms after the grant the fleet
    // spaced process 0's next start from, and the two reached the server 223 ms apart.
    Reply refused = new Reply(429, "0", 0, false, false);
    Reply accepted = new Reply(200, null, 0, false, false);
    List<@Nullable Limits> hosts = Arrays.asList((Limits) null);
    List<@Nullable Limits> groups = Arrays.asList(new Limits(null, Rate.perSecond(4.2)), null);
    FleetWorkload workload = new FleetWorkload(new FleetSpec(5, false), List.of(
        new Workload(new EngineSpec(null, null, false, 0, null, null), hosts, groups, null,
            List.of(new CallSpec(0, false, 0, List.of(refused), null, true))),
        new Workload(new EngineSpec(null, null, false, 0, new KnownQuota(0, 1, 500), null), hosts, groups, null,
            List.of(new CallSpec(0, false, 0, List.of(accepted), null, true)))));
    assertFleetWide(workload, Processes::rateProblems);
  }

  @Example
  void S2_aGrantHeardAfterItsRequestWasCancelledIsLetGoNotUsedOnceTheNextHasItsPlace() {
    // a.example.org holds 2 in flight and 4 starts a second, the fleet's (20 ms away). Process 1's
    // first request claims its start and is cancelled as the grant is on its way; the request behind
    // it had claimed no place yet. Using the grant once that place came, it started 40 ms after the
    // grant, and process 0's next start, spaced by the fleet from the grant, came 215 ms after it.
    Reply accepted = new Reply(200, null, 0, false, false);
    List<@Nullable Limits> hosts = Arrays.asList(new Limits(2, Rate.perSecond(4)));
    List<@Nullable Limits> groups = Arrays.asList(null, null);
    EngineSpec engine = new EngineSpec(null, null, false, 0, null, null);
    FleetWorkload workload = new FleetWorkload(new FleetSpec(20, false), List.of(
        new Workload(engine, hosts, groups, null, List.of(
            new CallSpec(0, false, 0, List.of(accepted), null, true),
            new CallSpec(0, false, 400, List.of(accepted), null, true))),
        new Workload(engine, hosts, groups, null, List.of(
            new CallSpec(0, false, 100, List.of(accepted), 260, true),
            new CallSpec(0, false, 100, List.of(accepted), null, true)))));
    assertFleetWide(workload, Processes::rateProblems);
  }

  @Example
  void S2_aGrantTheEnginesOwnPaceHoldsIsLetGoAfterASixteenthOfTheSpacing() {
    // *.example.org paced at 4 each 1.75 s, on a fleet 26 ms away, three processes. Process 2's
    // refused request is granted its retry's start at 0.55 s, but its Retry-After holds it until
    // 0.75 s. Kept for a quarter of the spacing or four round trips, the grant was used then, and
    // the fleet, which spaced the next starts from the grant, let five starts go within 1.64 s.
    Reply accepted = new Reply(200, null, 0, false, false);
    List<@Nullable Limits> hosts = Arrays.asList((Limits) null);
    List<@Nullable Limits> groups = Arrays.asList(new Limits(null, Rate.of(4, Duration.ofMillis(1_750))), null);
    EngineSpec engine = new EngineSpec(null, null, false, 0, null, null);
    FleetWorkload workload = new FleetWorkload(new FleetSpec(26, false), List.of(
        new Workload(engine, hosts, groups, null, List.of(new CallSpec(0, false, 100, List.of(accepted), null, true))),
        new Workload(engine, hosts, groups, null,
            List.of(new CallSpec(0, false, 100, List.of(new Reply(429, null, 0, false, false)), null, true))),
        new Workload(engine, hosts, groups, null, List.of(
            new CallSpec(0, false, 0, List.of(new Reply(429, "0.25", 400, false, false)), null, true),
            new CallSpec(0, false, 0, List.of(accepted), null, true)))));
    assertFleetWide(workload, Processes::rateProblems);
  }

  @Property
  void theProcessesTogetherHoldEveryRate(@ForAll("workloads") FleetWorkload workload) {
    Processes processes = Processes.of(workload);
    if (workload.fleet().downForMillis() == 0) {
      assertThat(processes.rateProblems()).as(processes::trace).isEmpty();
    }
  }

  /** The examples' check: run on the processes of one fleet, {@code fleetWide} finds nothing, and every call of each ended. */
  private static void assertFleetWide(FleetWorkload workload, Function<Processes, List<String>> fleetWide) {
    Processes processes = Processes.of(workload);
    assertThat(fleetWide.apply(processes)).as(processes::trace).isEmpty();
    for (Run run : processes.runs) {
      assertThat(run.completionProblems()).as(processes::trace).isEmpty();
    }
  }
}

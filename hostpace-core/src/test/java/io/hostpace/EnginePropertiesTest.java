package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.RandomWorkload.Run;
import io.hostpace.RandomWorkload.Workload;
import net.jqwik.api.Arbitrary;
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
 * one host or group (SPEC S1), and calls that arrive at random times, each with a server script
 * by attempt (200, 429, 429/503 and 405 with Retry-After, 405, 500, an IOException, or a hang the
 * test cancels) and perhaps a cancellation at a random time.
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
}

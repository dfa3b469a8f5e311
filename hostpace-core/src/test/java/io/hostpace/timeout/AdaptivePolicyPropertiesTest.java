package io.hostpace.timeout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Over random runs of outcomes at one endpoint (SPEC D2, D7): a query no slower than a success
 * seen among the last eight of its kind (or, for a kind with none, of the endpoint) is never cut
 * off by our own budget. So every budget that sends is at least the slowest of those successes,
 * up to the default budget. The runs mix kinds (the caller's none among them), successes of any
 * length within their budget, our timeouts, 504s short and long, other answers and refusals.
 */
class AdaptivePolicyPropertiesTest {

  static final long FULL = Duration.ofSeconds(300).toNanos();
  static final int WINDOW = 8;

  /** One attempt: its kind, how it ends, and a fraction that sets its duration. */
  record Step(String kind, Outcome outcome, double fraction, long gapNanos) {}

  @Provide
  Arbitrary<List<Step>> runs() {
    Arbitrary<Step> step = Combinators.combine(
        Arbitraries.of("", "subjects", "triples", "heavy", "datatypes"),
        Arbitraries.of(Outcome.class),
        Arbitraries.doubles().between(0, 1),
        Arbitraries.longs().between(0, Duration.ofMinutes(10).toNanos())).as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(200);
  }

  @Property
  void D7_noQueryNoSlowerThanARecentSuccessIsCutOffByOurBudget(
      @ForAll("runs") List<Step> run, @ForAll boolean probes, @ForAll long origin) {
    AdaptiveTimeouts.Builder settings = AdaptiveTimeouts.builder().defaultBudget(Duration.ofNanos(FULL));
    if (probes) {
      settings.probe(Duration.ofSeconds(2));
    }
    TimeoutPolicy policy = TimeoutPolicy.adaptive(settings.build());
    Map<String, Deque<Long>> byKind = new HashMap<>();
    Deque<Long> endpoint = new ArrayDeque<>();
    long now = origin;
    for (Step step : run) {
      now += step.gapNanos();
      Budget budget = policy.budget(now, "e", step.kind());
      if (budget.isFailFast()) {
        continue; // unreachable endpoint (SPEC D3): not our budget cutting a query off
      }
      Deque<Long> kind = byKind.getOrDefault(step.kind(), new ArrayDeque<>());
      long seen = Collections.max(kind.isEmpty() ? endpointOr0(endpoint) : kind);
      assertThat(budget.nanos()).as("%s for kind '%s' after %s of its own, %s of the endpoint", budget, step.kind(),
          kind, endpoint).isGreaterThanOrEqualTo(Math.min(FULL, seen));

      long took = switch (step.outcome()) {
        case SUCCESS, REJECTED, SERVER_ERROR, SERVER_TIMEOUT -> (long) (budget.nanos() * step.fraction());
        case TIMED_OUT -> budget.nanos();
        case UNREACHABLE -> (long) (Duration.ofMillis(50).toNanos() * step.fraction());
      };
      now += took;
      policy.onOutcome(now, "e", step.kind(), step.outcome(), took);
      if (policy.probes()) {
        Budget probe = policy.probe(now, "e", null);
        if (probe != null) {
          policy.onProbe(now, "e", step.fraction() < 0.5 ? Outcome.SUCCESS : Outcome.TIMED_OUT, probe.nanos());
        }
      }
      if (step.outcome() == Outcome.SUCCESS) {
        remember(byKind.computeIfAbsent(step.kind(), k -> new ArrayDeque<>()), took);
        remember(endpoint, took);
      }
    }
  }

  private static Deque<Long> endpointOr0(Deque<Long> endpoint) {
    return endpoint.isEmpty() ? new ArrayDeque<>(List.of(0L)) : endpoint;
  }

  private static void remember(Deque<Long> successes, long took) {
    successes.addLast(took);
    if (successes.size() > WINDOW) {
      successes.removeFirst();
    }
  }
}

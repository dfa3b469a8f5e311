package io.hostpace.simulator;

import static io.hostpace.simulator.TimeoutWorkload.ENDPOINT;
import static io.hostpace.simulator.TimeoutWorkload.ms;

import io.hostpace.VirtualTime;
import io.hostpace.simulator.TimeoutScenario.PolicySpec;
import io.hostpace.simulator.TimeoutScenario.Request;
import io.hostpace.simulator.TimeoutScenario.Stage;
import io.hostpace.timeout.Budget;
import io.hostpace.timeout.Outcome;
import io.hostpace.internal.Prober;
import io.hostpace.timeout.TimeoutPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One timeout policy's replay of a timeout scenario: the pipeline's caller, as
 * {@link TimeoutWorkload} describes it, against a fresh {@link Server}, policy and clock.
 */
final class TimeoutReplay {
  private final TimeoutScenario scenario;
  private final String name;
  private final TimeoutPolicy policy;
  private final Server server;
  private final VirtualTime time;
  /** The engine's probe schedule, with this server for its sender; null for a policy that does not probe. */
  private final @Nullable Prober<Current> prober;
  /** The request the caller is on, and its stage: what a probe sent now meets on the server. */
  private Current current;
  /** The probes sent during the current stage. */
  private int probes;
  /** When the probe out ends, in virtual nanoseconds since the start. */
  private long probeEnds;

  /** A request and its stage. */
  private record Current(Stage stage, Request request) {}

  TimeoutReplay(TimeoutScenario scenario, PolicySpec spec, long origin) {
    this.scenario = scenario;
    this.name = spec.name();
    this.policy = spec.policy().get();
    this.server = new Server(scenario);
    this.time = VirtualTime.startingAt(origin, Simulator.WALL_ORIGIN);
    this.prober = policy.probes() ? new Prober<>(policy, time, time, this::probe, (failure, wentOn) -> {
      // a policy the simulator runs that throws is the run's fault, not to be gone around
      if (failure instanceof Error error) {
        throw error;
      }
      throw (RuntimeException) failure; // the prober hands on nothing else
    }) : null;
    Stage first = scenario.stages().get(0);
    this.current = new Current(first, first.requests().get(0));
  }

  TimeoutResult.Policy run() {
    List<TimeoutResult.Stage> stages = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    for (Stage stage : scenario.stages()) {
      TimeoutResult.Stage result = stage(stage);
      stages.add(result);
      if (result.isLost()) {
        lost.add(stage.name());
      }
    }
    return new TimeoutResult.Policy(name, lost, ms(elapsed()), stages);
  }

  private TimeoutResult.Stage stage(Stage stage) {
    long start = elapsed();
    List<Long> budgets = new ArrayList<>();
    probes = 0;
    String outcome = "ok";
    for (Request request : stage.requests()) {
      outcome = request(stage, request, budgets);
      if (!outcome.equals("ok")) {
        break;
      }
    }
    return new TimeoutResult.Stage(stage.name(), outcome, budgets.size(), budgets, ms(start), ms(elapsed()), probes);
  }

  /** Runs one request to its end; returns "ok" or why it finally failed. */
  private String request(Stage stage, Request request, List<Long> budgets) {
    current = new Current(stage, request);
    for (int attempt = 0; ; attempt++) {
      if (prober != null) {
        // As the engine does before it queues a request: a held endpoint's waits for a probe.
        CompletableFuture<@Nullable Void> probed = prober.beforeRequest(ENDPOINT, stage.tag(), current);
        while (!probed.isDone()) {
          time.advance(Duration.ofNanos(Math.max(0, probeEnds - elapsed())));
        }
      }
      Budget budget = policy.budget(time.nanoTime(), ENDPOINT, stage.tag());
      if (budget.isFailFast()) {
        budgets.add(0L);
        return "fast-fail";
      }
      budgets.add(ms(budget.nanos()));
      Server.Result result = server.attempt(elapsed(), stage, request, budget.nanos());
      time.advance(Duration.ofNanos(result.duration()));
      policy.onOutcome(time.nanoTime(), ENDPOINT, stage.tag(), result.outcome(), result.duration());
      if (prober != null) {
        prober.afterOutcome(ENDPOINT, current);
      }
      switch (result.outcome()) {
        case SUCCESS, REJECTED -> {
          return "ok";
        }
        case TIMED_OUT -> {
          return result.label(); // never retried
        }
        default -> { // 502, 503, 504, and network failures
          if (attempt >= scenario.retries()
              || policy.reachedServerLimit(ENDPOINT, result.outcome(), result.duration())) {
            return result.label();
          }
          time.advance(Duration.ofNanos(backoff(attempt)));
        }
      }
    }
  }

  /**
   * The prober's sender: the probe meets the server as the request the caller is on finds it,
   * and ends, in virtual time, as the server's model says. The simulated caller is alone, so
   * the probe waits in no queue.
   */
  private CompletableFuture<Outcome> probe(String endpoint, Current seen, Budget budget) {
    probes++;
    Server.Result probed = server.probe(elapsed(), current.stage(), current.request(), budget.nanos());
    CompletableFuture<Outcome> ended = new CompletableFuture<>();
    probeEnds = elapsed() + probed.duration();
    time.schedule(() -> ended.complete(probed.outcome()), probed.duration());
    return ended;
  }

  private long backoff(int retry) {
    List<Long> backoff = scenario.backoff();
    return backoff.isEmpty() ? 0 : backoff.get(Math.min(retry, backoff.size() - 1));
  }

  private long elapsed() {
    return time.elapsed().toNanos();
  }
}

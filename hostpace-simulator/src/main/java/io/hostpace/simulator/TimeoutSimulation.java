package io.hostpace.simulator;

import io.hostpace.VirtualTime;
import io.hostpace.simulator.Scenario.PolicySpec;
import io.hostpace.simulator.Scenario.Request;
import io.hostpace.simulator.Scenario.Stage;
import io.hostpace.timeout.Budget;
import io.hostpace.timeout.Outcome;
import io.hostpace.timeout.Prober;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Replays a timeout scenario in virtual time against each policy it names, and reports what each
 * lost and how long it took ({@code hostpace simulate timeouts SCENARIO.json}).
 *
 * <pre>{@code
 * String json = TimeoutSimulation.run(Path.of("scenarios/timeouts/seed-003.json"));   // one JSON object
 * SimulationResult result = TimeoutSimulation.simulate(Path.of("..."));                 // the same, as a value
 * }</pre>
 *
 * <h2>The caller</h2>
 * A pipeline's: its stages run one after another, and a stage's requests one after another. Before
 * each attempt it asks the policy for a {@link Budget}. A policy that probes is run as the engine
 * runs it (SPEC D6), by the engine's own {@link Prober}: it probes a held endpoint on its timer, in
 * virtual time, and an attempt for a held endpoint first waits for a probe; every probe sent during
 * a stage is counted in its {@code probes}. An attempt answered 502, 503 or 504, or failed by
 * the network (refused, reset, DNS, TLS), is retried after the scenario's {@code retryBackoffMs},
 * up to {@code retries} times, except a 504 the policy says reached the server's own limit (SPEC D8,
 * as the engine does: the server has said it will not answer that query within its limit); an
 * attempt cut off by our own timeout is never retried; an attempt
 * the policy fails fast is not retried either (the policy has just said the endpoint is down:
 * waiting out a back-off against a dead endpoint is what fast-failing saves). A request that
 * finally fails loses its stage, and the stage's later requests are not sent. The policy is told
 * every outcome at the virtual time it happens, with the endpoint {@value #ENDPOINT} and the
 * stage's tag as the kind.
 *
 * <p>The server is {@link Server}'s model. Each policy gets a fresh server, a fresh policy and a
 * fresh clock; the clock's origin only shifts the numbers the policy sees, never the result
 * (the tests replay with random origins to hold that).
 */
public final class TimeoutSimulation {

  /** The name of the scenario's one endpoint, as the policies see it. */
  static final String ENDPOINT = "endpoint";

  /**
   * The clock's origin for {@link #run} and {@link #simulate(Path)}: ten minutes before the
   * nanosecond count wraps, so that every replay of more than ten minutes checks that the
   * policies compare times by difference.
   */
  static final long ORIGIN = Long.MAX_VALUE - Duration.ofMinutes(10).toNanos();

  private TimeoutSimulation() {}

  /**
   * Replays the scenario in {@code scenarioFile} and returns the result as one JSON object.
   *
   * @throws ScenarioException when the scenario does not parse or makes no sense; its message
   *     names the field
   * @throws IOException when the file cannot be read
   */
  public static String run(Path scenarioFile) throws IOException {
    return simulate(scenarioFile).toJson();
  }

  /** {@link #run(Path)}, as a value. */
  public static SimulationResult simulate(Path scenarioFile) throws IOException {
    return simulate(Files.readString(scenarioFile, StandardCharsets.UTF_8));
  }

  /**
   * Replays the scenario given as JSON text.
   *
   * @throws ScenarioException when it does not parse or makes no sense
   */
  public static SimulationResult simulate(String scenarioJson) {
    return simulate(ScenarioParser.parse(scenarioJson), ORIGIN);
  }

  static SimulationResult simulate(Scenario scenario, long origin) {
    List<SimulationResult.Policy> results = new ArrayList<>();
    for (PolicySpec spec : scenario.policies()) {
      results.add(new Replay(scenario, spec, origin).run());
    }
    return new SimulationResult(results);
  }

  /** One policy's replay. */
  private static final class Replay {
    private final Scenario scenario;
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

    Replay(Scenario scenario, PolicySpec spec, long origin) {
      this.scenario = scenario;
      this.name = spec.name();
      this.policy = spec.policy().get();
      this.server = new Server(scenario);
      this.time = VirtualTime.startingAt(origin, Instant.parse("2026-01-01T00:00:00Z"));
      this.prober = policy.probes() ? new Prober<>(policy, time, time, this::probe) : null;
      Stage first = scenario.stages().get(0);
      this.current = new Current(first, first.requests().get(0));
    }

    SimulationResult.Policy run() {
      List<SimulationResult.Stage> stages = new ArrayList<>();
      List<String> lost = new ArrayList<>();
      for (Stage stage : scenario.stages()) {
        SimulationResult.Stage result = stage(stage);
        stages.add(result);
        if (result.isLost()) {
          lost.add(stage.name());
        }
      }
      return new SimulationResult.Policy(name, lost, ms(elapsed()), stages);
    }

    private SimulationResult.Stage stage(Stage stage) {
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
      return new SimulationResult.Stage(stage.name(), outcome, budgets.size(), budgets, ms(start), ms(elapsed()), probes);
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

  /** Nanoseconds as whole milliseconds, rounded. */
  static long ms(long nanos) {
    return Math.round(nanos / 1e6);
  }
}

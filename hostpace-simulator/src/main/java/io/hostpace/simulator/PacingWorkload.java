package io.hostpace.simulator;

import io.hostpace.Hostpace;
import io.hostpace.VirtualTime;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.LocalFleet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The pacing workload of the {@link Simulator}: a pacing scenario replayed in virtual time against
 * each policy it names, reporting what each completed, how much the servers refused, and how close
 * it came to the fastest the servers allow ({@code hostpace simulate pacing SCENARIO.json
 * [--chart FILE.png]}).
 *
 * <h2>What runs</h2>
 * The real engine: each process of each client is a {@link Hostpace} built on one shared
 * {@link VirtualTime} (clock and timer), with the client's {@code inFlight} as its limit for every
 * host, the engine's default 5 retries and 60 s retry delay limit. Its requests go through a small
 * {@link Exchange} to a {@link ServerModel}, one per server, shared by every process that calls
 * it, which decides at the start and answers {@code latencyMs} later; with {@code latencyJitterMs}
 * it decides as the request arrives, half the latency and a draw of the jitter after its start, and
 * the answer takes the other half back. The policies ({@link PacingPolicies}) each say how an
 * engine is built, or that none is:
 * <ul>
 *   <li>{@code seed}: the engine with {@link LearningRule#seed()} (SPEC R4 exactly; an {@link EnginePacing});
 *   <li>{@code hostpace}: the engine as built by default ({@link LearningRule#hostpace()}), and
 *       {@code burst} the same without widening its first contact (each an {@link EnginePacing});
 *   <li>{@code configured}: the default engine told the server's limits at the start, each process
 *       its share unless they form a fleet ({@link ConfiguredPacing}); the fleet holds a limit
 *       given a host by key for all (a rate spaced, a gate's places shared);
 *   <li>{@code unpaced}: no engine: what plain client code does ({@link UnpacedPacing}: workers,
 *       a fixed 1 s back-off, up to 5 retries, nothing learned, Retry-After not read).
 * </ul>
 * With {@code sharedState}, a client's processes share one state per host ({@link SharedStates}: a
 * model of SPEC S2 without Redis's latency), so they learn together. With {@code fleetLatencyMs},
 * each engine joins one {@link LocalFleet} ({@code Hostpace.Builder.fleet}, SPEC S2 as the engine
 * does it through Redis), its messages taking that long one way. Else each learns on its own.
 * A process that joins late ({@code joinEverySeconds}, {@code joinAtSeconds}) is built when it
 * joins: it hears nothing of the fleet before, and meets its hosts with what the fleet keeps of them
 * then (SPEC S3); its requests arrive as they would at 0 s, that much later.
 * Each policy gets fresh servers, engines and clock; a replay is deterministic.
 *
 * <h2>The numbers</h2>
 * A request is completed when its last answer is accepted, lost when it gave up after its
 * retries or was unfinished at {@code maxSeconds}. {@code refusalPct} is refusals in percent of
 * all attempts, and {@code lateRefusalPct} the refusals of attempts started after the first
 * {@link PacingFigures#LATE_AFTER_SECONDS} in percent of the attempts started then (0 when none were): no
 * percentage exceeds 100. Where some server is a fixed window, {@code firstWindowRefusalPct} is the
 * same after the window a client learns such a quota in: the refusals of the attempts that reach
 * each such server from the end of its own window of its first refusal, in percent of those
 * attempts, over all such servers. {@code goodputRatio} counts only completed requests: it is the
 * shortest time in which the server models could accept the requests the policy completed
 * ({@link ServerModel#idealFinish}; each host's first arrivals, as many as it completed: every
 * request, when it lost none) divided by the time the policy took (the last request's end), times
 * the share of the requests it completed. So losing requests does not score as finishing early,
 * a policy that loses most of them cannot score near 1, and no goodput exceeds 1: one that
 * completes 100 of 400 requests, which the servers could accept in 40 s, and ends at 50 s scores
 * 40 / 50 × 100 / 400 = 0.2, not 0.8. The wait is from a request's arrival to the start of its
 * last attempt; a request that arrives after {@code maxSeconds} is never sent: lost, not in the
 * waits, and counted as {@code unsent}. Per process, its refusals, and those within {@link PacingResult#OPENING_SECONDS} of its
 * joining; and the rate the servers accepted at between their first and last acceptance, which
 * against a server of a known rate says whether the processes together held it. Whether they
 * shared it or took it in turns, {@link PacingShares}: over the span in which all had joined and
 * none had finished, Jain's index of their accepted attempts, and their rate then, of the server's.
 */
final class PacingWorkload implements Workload<PacingScenario, PacingResult> {

  @Override
  public PacingScenario parse(String json) {
    return PacingScenarioParser.parse(json);
  }

  @Override
  public PacingResult replay(PacingScenario scenario, long origin) {
    Arrivals arrivals = new Arrivals(scenario, Simulator.WALL_ORIGIN);
    List<PacingResult.Policy> results = new ArrayList<>();
    for (PacingPolicy policy : scenario.policies()) {
      results.add(runs(scenario, arrivals, policy, origin));
    }
    return new PacingResult(PacingFigures.round(arrivals.idealNanos / 1e9, 1), results);
  }

  /**
   * One policy's replay; with several {@code runs}, each run an hour after the last one's
   * {@code maxSeconds}, its engines' states kept in files between runs. The last run's figures.
   */
  private static PacingResult.Policy runs(PacingScenario scenario, Arrivals arrivals, PacingPolicy policy, long origin) {
    if (scenario.runs() == 1) {
      return new PacingReplay(scenario, arrivals, policy, origin, 0, null).run();
    }
    Path kept;
    try {
      kept = Files.createTempDirectory("hostpace-simulation");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a folder for the states kept between runs", e);
    }
    try {
      PacingResult.Policy last = null;
      for (int run = 0; run < scenario.runs(); run++) {
        last = new PacingReplay(scenario, arrivals, policy, origin, run, kept).run();
      }
      return Objects.requireNonNull(last, "no run replayed: runs is " + scenario.runs());
    } finally {
      try (Stream<Path> files = Files.list(kept)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
        Files.deleteIfExists(kept);
      } catch (IOException e) {
        // a temporary folder left behind
      }
    }
  }
}

package io.hostpace.simulator;

import io.hostpace.HostStateFile;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.VirtualTime;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.Policy;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.RefusingServer;
import io.hostpace.testing.ScriptedExchange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Replays a pacing scenario in virtual time against each policy it names, and reports what each
 * completed, how much the servers refused, and how close it came to the fastest the servers allow
 * ({@code hostpace simulate pacing SCENARIO.json [--chart FILE.png]}).
 *
 * <pre>{@code
 * String json = PacingSimulation.run(Path.of("scenarios/pacing/qlever-like.json"));   // one JSON object
 * PacingResult result = PacingSimulation.simulate(Path.of("..."));                      // the same, as a value
 * PacingSimulation.chart(result, Path.of("docs/qlever-like.png"));                      // starts and refusals
 * }</pre>
 *
 * <h2>What runs</h2>
 * The real engine: each process of each client is a {@link Hostpace} built on one shared
 * {@link VirtualTime} (clock and timer), with the client's {@code inFlight} as its limit for every
 * host, the engine's default 5 retries and 60 s retry delay limit. Its requests go through a small
 * {@link Exchange} to a {@link ServerModel}, one per server, shared by every process that calls
 * it, which decides at the start and answers {@code latencyMs} later. The policies:
 * <ul>
 *   <li>{@code seed}: the engine with {@link LearningRule#seed()} (SPEC R4 exactly);
 *   <li>{@code hostpace}: the engine as built by default ({@link LearningRule#hostpace()});
 *   <li>{@code configured}: the default engine told the server's rate at the start: a token
 *       bucket's {@code Rate.of(burst, burst / rate)}, a fixed window's {@code Rate.of(limit,
 *       window)}, a gate's {@code inFlight: maxConcurrent}; with several processes each gets its
 *       share (a third of the rate for three), unless they form a fleet: then each is told the
 *       whole limit, which the fleet holds for all (a rate spaced, a gate's places shared, as
 *       for any limit given a host by key). Not the changes: the user knows the documented
 *       limit, not tomorrow's;
 *   <li>{@code unpaced}: no engine: what plain client code does. {@code inFlight} workers per
 *       process take requests in arrival order; a refused attempt waits a fixed 1 s holding its
 *       worker, then goes again, up to 5 retries; nothing is learned and Retry-After is not read.
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
 * {@link #LATE_AFTER_SECONDS} in percent of the attempts started then (0 when none were): no
 * percentage exceeds 100. {@code goodputRatio} counts only completed requests: it is the shortest
 * time in which the server models could accept the requests the policy completed
 * ({@link ServerModel#idealFinish}; each host's first arrivals, as many as it completed: every
 * request, when it lost none) divided by the time the policy took (the last request's end), times
 * the share of the requests it completed. So losing requests does not score as finishing early,
 * a policy that loses most of them cannot score near 1, and no goodput exceeds 1: one that
 * completes 100 of 400 requests, which the servers could accept in 40 s, and ends at 50 s scores
 * 40 / 50 × 100 / 400 = 0.2, not 0.8. The wait is from a request's arrival to the start of its
 * last attempt. Per process, its refusals, and those within {@link PacingResult#OPENING_SECONDS} of its
 * joining; and the rate the servers accepted at between their first and last acceptance, which
 * against a server of a known rate says whether the processes together held it.
 */
public final class PacingSimulation {

  /** The clock's origin: near the nanosecond count's wrap, so that times are compared by difference. */
  static final long ORIGIN = Long.MAX_VALUE - Duration.ofMinutes(10).toNanos();
  static final Instant WALL_ORIGIN = Instant.parse("2026-01-01T00:00:00Z");
  /** The unpaced client's back-off after a refusal. */
  static final long UNPACED_BACKOFF = 1_000_000_000L;
  static final int RETRIES = 5;
  /** Refusals of attempts started after this count as late: the target allows the first ten seconds to learn. */
  static final double LATE_AFTER_SECONDS = 10;

  private PacingSimulation() {}

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
  public static PacingResult simulate(Path scenarioFile) throws IOException {
    return simulate(Files.readString(scenarioFile, StandardCharsets.UTF_8));
  }

  /**
   * Replays the scenario given as JSON text.
   *
   * @throws ScenarioException when it does not parse or makes no sense
   */
  public static PacingResult simulate(String scenarioJson) {
    return simulate(PacingScenarioParser.parse(scenarioJson), ORIGIN);
  }

  /**
   * Draws, per policy, starts and refusals over time into a PNG at {@code png}, and writes the
   * figures it draws to the CSV file {@link #csvBeside(Path)}: a line per policy and bin of time,
   * {@code policy,from_s,to_s,accepted,refused,accepted_per_s,refused_per_s}.
   */
  public static void chart(PacingResult result, Path png) throws IOException {
    PacingChart.write(result, png);
  }

  /** The CSV file {@link #chart} writes beside {@code png}: {@code qlever.csv} beside {@code qlever.png}. */
  public static Path csvBeside(Path png) {
    return PacingChart.csvBeside(png);
  }

  static PacingResult simulate(PacingScenario scenario, long origin) {
    Workload workload = new Workload(scenario);
    List<PacingResult.Policy> results = new ArrayList<>();
    for (Policy policy : scenario.policies()) {
      results.add(replay(scenario, workload, policy, origin));
    }
    return new PacingResult(round(workload.idealNanos / 1e9, 1), results);
  }

  /**
   * One policy's replay; with several {@code runs}, each run an hour after the last one's
   * {@code maxSeconds}, its engines' states kept in files between runs. The last run's figures.
   */
  private static PacingResult.Policy replay(PacingScenario scenario, Workload workload, Policy policy, long origin) {
    if (scenario.runs() == 1) {
      return new Replay(scenario, workload, policy, origin, 0, null).run();
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
        last = new Replay(scenario, workload, policy, origin, run, kept).run();
      }
      return Objects.requireNonNull(last, "no run replayed: runs is " + scenario.runs());
    } finally {
      try (java.util.stream.Stream<Path> files = Files.list(kept)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
        Files.deleteIfExists(kept);
      } catch (IOException e) {
        // a temporary folder left behind
      }
    }
  }

  /**
   * The requests of a scenario: for each client, when each arrives (request i is process
   * i mod processes's, and arrives as late as that process joins), and its ideal finish.
   */
  private static final class Workload {
    final List<long[]> arrivals = new ArrayList<>();
    final Map<String, long[]> byHostSorted = new HashMap<>();
    final Map<String, ServerSpec> servers = new HashMap<>();
    final long idealNanos;

    Workload(PacingScenario scenario) {
      Random random = new Random(scenario.seed());
      Map<String, List<Long>> byHost = new HashMap<>();
      for (ClientSpec client : scenario.clients()) {
        long[] times = new long[client.requests()];
        double t = 0;
        for (int i = 0; i < times.length; i++) {
          if (client.perSecond() > 0) {
            t += -Math.log(1 - random.nextDouble()) / client.perSecond();
          }
          times[i] = Math.round(t * 1e9) + client.joinOf(i % client.processes());
        }
        arrivals.add(times);
        List<Long> all = byHost.computeIfAbsent(client.host(), h -> new ArrayList<>());
        for (long time : times) {
          all.add(time);
        }
      }
      for (ServerSpec server : scenario.servers()) {
        List<Long> all = byHost.get(server.host());
        if (all != null) {
          byHostSorted.put(server.host(), all.stream().mapToLong(Long::longValue).sorted().toArray());
          servers.put(server.host(), server);
        }
      }
      this.idealNanos = ideal(null);
    }

    /**
     * The shortest time in which the servers accept every request, or with {@code completed}
     * only as many of each host's requests (its first arrivals) as a policy completed.
     */
    long ideal(@Nullable Map<String, Integer> completed) {
      long ideal = 0;
      for (Map.Entry<String, long[]> host : byHostSorted.entrySet()) {
        long[] sorted = host.getValue();
        int n = completed == null ? sorted.length : completed.getOrDefault(host.getKey(), 0);
        if (n > 0) {
          // Workload keeps a host's arrivals only together with its server.
          ServerSpec server = Objects.requireNonNull(servers.get(host.getKey()), "no server for host '" + host.getKey() + "'");
          ideal = Math.max(ideal, ServerModel.idealFinish(server, Arrays.copyOf(sorted, n), WALL_ORIGIN));
        }
      }
      return ideal;
    }
  }

  /** What became of one request. */
  private static final class Request {
    final String host;
    final long arrival;
    final SimulatedProcess process;
    long lastStart = -1;
    long endedAt = -1;
    boolean completed;

    Request(String host, long arrival, SimulatedProcess process) {
      this.host = host;
      this.arrival = arrival;
      this.process = process;
    }
  }

  /** One process of a client: when it joins, its requests, and when its attempts were refused. */
  private static final class SimulatedProcess {
    final int client;
    final int index;
    final long joinAt;
    final List<Request> requests = new ArrayList<>();
    final List<Long> refused = new ArrayList<>();

    SimulatedProcess(int client, int index, long joinAt) {
      this.client = client;
      this.index = index;
      this.joinAt = joinAt;
    }
  }

  /** One policy's replay. */
  private static final class Replay {
    private final PacingScenario scenario;
    private final Workload workload;
    private final Policy policy;
    private final VirtualTime time;
    private final long origin;
    private final Map<String, ServerModel> servers = new HashMap<>();
    private final List<Request> requests = new ArrayList<>();
    private final List<Long> starts = new ArrayList<>();
    private final List<Long> refused = new ArrayList<>();
    private final List<Long> accepted = new ArrayList<>();
    private final List<SimulatedProcess> processes = new ArrayList<>();
    /** Where the engines keep their states between runs; null for a single run. */
    private final @Nullable Path kept;
    private final List<HostStateFile> keptStates = new ArrayList<>();
    private int unfinished;

    Replay(PacingScenario scenario, Workload workload, Policy policy, long origin, int run, @Nullable Path kept) {
      this.scenario = scenario;
      this.workload = workload;
      this.policy = policy;
      this.origin = origin;
      this.kept = kept;
      Duration apart = Duration.ofNanos(scenario.maxNanos()).plusHours(1);
      this.time = VirtualTime.startingAt(origin, WALL_ORIGIN.plus(apart.multipliedBy(run)));
      for (ServerSpec server : scenario.servers()) {
        servers.put(server.host(), new ServerModel(server, WALL_ORIGIN));
      }
    }

    PacingResult.Policy run() {
      for (int c = 0; c < scenario.clients().size(); c++) {
        ClientSpec client = scenario.clients().get(c);
        long[] arrivals = workload.arrivals.get(c);
        // The parser refuses a client whose host has no server.
        ServerModel server = Objects.requireNonNull(servers.get(client.host()), "no server for host '" + client.host() + "'");
        HostStateStore shared = client.sharedState() ? new SharedStates(store("client-" + c)) : null;
        LocalFleet fleet = client.fleetLatency() >= 0 ? new LocalFleet(time, time, Duration.ofNanos(client.fleetLatency())) : null;
        for (int p = 0; p < client.processes(); p++) {
          HostStateStore store = shared != null ? shared : store("client-" + c + "-process-" + p);
          SimulatedProcess process = new SimulatedProcess(c, p, client.joinOf(p));
          processes.add(process);
          for (int i = p; i < arrivals.length; i += client.processes()) {
            Request request = new Request(client.host(), arrivals[i], process);
            requests.add(request);
            process.requests.add(request);
          }
          if (policy != Policy.UNPACED) {
            // counted before any process joins: the kept states are saved as the count reaches 0,
            // which is to be the run's last request, not that of a process done before another joins
            unfinished += process.requests.size();
          }
          // Built when it joins, so that a late one hears nothing of the fleet before.
          time.schedule(() -> {
            if (policy == Policy.UNPACED) {
              unpaced(client, server, process);
            } else {
              paced(client, server, engine(client, server.spec, store, fleet), process);
            }
          }, process.joinAt);
        }
      }
      time.runUntilIdle(Duration.ofNanos(scenario.maxNanos()));
      return result();
    }

    private Hostpace engine(ClientSpec client, ServerSpec server, HostStateStore store, @Nullable LocalFleet fleet) {
      Hostpace.Builder builder = Hostpace.builder().time(time).limits(Limits.inFlight(client.inFlight()))
          .hostStateStore(store);
      if (fleet != null) {
        builder.fleet(fleet.join());
      }
      switch (policy) {
        case SEED -> builder.learningRule(LearningRule.seed());
        case BURST -> builder.widenFirstContact(false);
        case CONFIGURED -> builder.limit(server.host(), configured(server, client.processes(), fleet != null));
        default -> { }
      }
      return builder.build();
    }

    /**
     * The server's limits at the start, each process given its share; of a fleet, each the whole
     * limit, which the fleet holds for all (a rate spaced, an in-flight limit's places shared).
     */
    private static Limits configured(ServerSpec server, int processes, boolean fleet) {
      if (fleet) {
        processes = 1;
      }
      return switch (server.model()) {
        case TOKEN_BUCKET -> Limits.rate(Rate.of(Math.max(1, server.burst() / processes),
            Duration.ofNanos(Math.round(Math.max(1, server.burst() / processes) * processes / server.rate() * 1e9))));
        case FIXED_WINDOW -> Limits.rate(Rate.of(Math.max(1, server.limit() / processes),
            Duration.ofNanos(server.window() * Math.max(1, server.limit() / processes) * processes / server.limit())));
        case GATE -> Limits.inFlight(Math.max(1, server.maxConcurrent() / processes));
      };
    }

    /** The process's requests through its engine, each scheduled at its arrival; called as the process joins. */
    private void paced(ClientSpec client, ServerModel server, Hostpace engine, SimulatedProcess process) {
      List<Request> mine = process.requests;
      for (int i = 0; i < mine.size(); i++) {
        Request request = mine.get(i);
        URI uri = URI.create("http://" + client.host() + "/q/" + i);
        time.schedule(() -> {
          CompletableFuture<RefusingServer.Answer> call = engine.execute(modelExchange(uri, server, request));
          call.whenComplete((answer, failure) -> {
            request.endedAt = elapsed();
            request.completed = answer != null && answer.accepted();
            if (--unfinished == 0) {
              saveKeptStates(); // as the run ends, before an idle hour makes the engines forget
            }
          });
        }, request.arrival - process.joinAt);
      }
    }

    /** The store of one engine (or of a client's processes that share one): kept between runs when there are several. */
    private HostStateStore store(String name) {
      if (kept == null) {
        return HostStateStore.inMemory();
      }
      try {
        HostStateFile file = HostStateFile.load(kept.resolve(name + ".tsv"), time, Duration.ofDays(1));
        keptStates.add(file);
        return file;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the state kept from the last run", e);
      }
    }

    private void saveKeptStates() {
      for (HostStateFile file : keptStates) {
        file.saveUnchecked();
      }
    }

    /** Plain client code: a pool of workers, a fixed back-off, no learning; called as the process joins. */
    private void unpaced(ClientSpec client, ServerModel server, SimulatedProcess process) {
      ArrayDeque<Request> arrived = new ArrayDeque<>();
      int[] idle = {client.inFlight()};
      Runnable[] work = new Runnable[1];
      work[0] = () -> {
        while (idle[0] > 0 && !arrived.isEmpty()) {
          idle[0]--;
          attempt(server, arrived.poll(), 0, () -> {
            idle[0]++;
            work[0].run();
          });
        }
      };
      for (Request request : process.requests) {
        time.schedule(() -> {
          arrived.add(request);
          work[0].run();
        }, request.arrival - process.joinAt);
      }
    }

    private void attempt(ServerModel server, Request request, int retry, Runnable done) {
      long now = elapsed();
      RefusingServer.Answer answer = admit(server, request, now);
      time.schedule(() -> {
        if (answer.accepted() || retry >= RETRIES) {
          request.endedAt = elapsed();
          request.completed = answer.accepted();
          done.run();
        } else {
          time.schedule(() -> attempt(server, request, retry + 1, done), UNPACED_BACKOFF);
        }
      }, server.spec.latency());
    }

    RefusingServer.Answer admit(ServerModel server, Request request, long now) {
      RefusingServer.Answer answer = server.admit(now);
      request.lastStart = now;
      starts.add(now);
      if (answer.accepted()) {
        accepted.add(now);
      } else {
        refused.add(now);
        request.process.refused.add(now);
      }
      return answer;
    }

    long elapsed() {
      return time.nanoTime() - origin;
    }

    private PacingResult.Policy result() {
      int completed = 0;
      Map<String, Integer> completedByHost = new HashMap<>();
      long finish = 0;
      boolean unfinished = false;
      long[] waits = new long[requests.size()];
      for (int i = 0; i < requests.size(); i++) {
        Request request = requests.get(i);
        if (request.completed) {
          completed++;
          completedByHost.merge(request.host, 1, Integer::sum);
        }
        if (request.endedAt < 0) {
          unfinished = true;
        } else {
          finish = Math.max(finish, request.endedAt);
        }
        waits[i] = request.lastStart < 0 ? scenario.maxNanos() - request.arrival : request.lastStart - request.arrival;
      }
      if (unfinished) {
        finish = scenario.maxNanos();
      }
      Arrays.sort(waits);
      int late = late(refused);
      int lateAttempts = late(starts);
      int attempts = starts.size();
      // The ideal finish of the requests it completed over its finish, times the share it completed.
      double goodput = finish == 0 ? 0 : (double) (completed == requests.size() ? workload.idealNanos
          : workload.ideal(completedByHost)) / finish * completed / requests.size();
      return new PacingResult.Policy(
          policy.label(), completed, requests.size() - completed, refused.size(),
          attempts == 0 ? 0 : round(100.0 * refused.size() / attempts, 1),
          round(finish / 1e9, 1),
          round(goodput, 2),
          Math.round(percentile(waits, 50) / 1e6), Math.round(percentile(waits, 99) / 1e6),
          late, lateAttempts == 0 ? 0 : round(100.0 * late / lateAttempts, 1), acceptedPerSecond(), processResults(),
          seconds(starts), seconds(refused));
    }

    /** How many of {@code times} (attempts' starts, from the run's start) are after the first {@link #LATE_AFTER_SECONDS}. */
    private static int late(List<Long> times) {
      int late = 0;
      for (long t : times) {
        if (t > LATE_AFTER_SECONDS * 1e9) {
          late++;
        }
      }
      return late;
    }

    /** One less than the accepted attempts over the seconds from the first one's start to the last one's. */
    private double acceptedPerSecond() {
      if (accepted.size() < 2) {
        return 0;
      }
      long span = accepted.get(accepted.size() - 1) - accepted.get(0);
      return span <= 0 ? 0 : round((accepted.size() - 1) / (span / 1e9), 3);
    }

    private List<PacingResult.Process> processResults() {
      List<PacingResult.Process> out = new ArrayList<>();
      for (SimulatedProcess process : processes) {
        int completed = (int) process.requests.stream().filter(r -> r.completed).count();
        long openingEnd = process.joinAt + Math.round(PacingResult.OPENING_SECONDS * 1e9);
        int opening = (int) process.refused.stream().filter(t -> t < openingEnd).count();
        out.add(new PacingResult.Process(process.client, process.index, round(process.joinAt / 1e9, 1),
            process.requests.size(), completed, process.requests.size() - completed, process.refused.size(), opening));
      }
      return out;
    }

    /** An attempt of a paced request: the model decides at the start, answers after its latency. */
    private ScriptedExchange<RefusingServer.Answer> modelExchange(URI uri, ServerModel server, Request request) {
      return ScriptedExchange.builder(uri, RefusingServer.Answer::status)
          .headers((response, name) -> {
            if (name.equalsIgnoreCase("Retry-After")) {
              return response.retryAfter();
            }
            return name.equalsIgnoreCase("RateLimit") ? response.rateLimit() : null;
          })
          .answers(attempt -> ScriptedExchange.after(time, server.spec.latency(), admit(server, request, elapsed())))
          .build();
    }
  }

  private static double[] seconds(List<Long> nanos) {
    double[] out = new double[nanos.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = nanos.get(i) / 1e9;
    }
    return out;
  }

  /** Nearest rank. */
  private static long percentile(long[] sorted, int p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  static double round(double value, int decimals) {
    double scale = Math.pow(10, decimals);
    return Math.round(value * scale) / scale;
  }
}

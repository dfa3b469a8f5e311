package io.hostpace.simulator;

import io.hostpace.HostStateFile;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.VirtualTime;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.spi.HostStateStore;
import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.RefusingServer;
import io.hostpace.testing.ScriptedExchange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One run of one pacing policy over a scenario's requests ({@link PacingWorkload} says what runs):
 * fresh servers and clock, a process of each client joining at its time, its requests sent as the
 * policy sends them, through an engine it configures or as plain client code. What became of each
 * request and attempt goes to {@link PacingFigures}. An attempt is decided as it reaches its
 * server: as it starts, or with jitter a trip later ({@link ServerModel}), so that with jitter an
 * attempt that starts later may be decided first.
 */
final class PacingReplay {

  private final PacingScenario scenario;
  private final Arrivals arrivals;
  private final PacingPolicy policy;
  private final VirtualTime time;
  private final long origin;
  private final Map<String, ServerModel> servers = new HashMap<>();
  private final PacingFigures figures = new PacingFigures();
  /** Where the engines keep their states between runs; null for a single run. */
  private final @Nullable Path kept;
  private final List<HostStateFile> keptStates = new ArrayList<>();
  /** The engines' requests not yet ended; the kept states are saved as it reaches 0, or at maxSeconds if it does not. */
  private int unfinished;
  /** With jitter, the start of each attempt decided, in the order decided; see {@link #startsAsDecided()}. */
  private final List<Long> startsAsDecided = new ArrayList<>();

  /** Run {@code run} of the replay (from 0), each run an hour after the last one's {@code maxSeconds}. */
  PacingReplay(PacingScenario scenario, Arrivals arrivals, PacingPolicy policy, long origin, int run, @Nullable Path kept) {
    this.scenario = scenario;
    this.arrivals = arrivals;
    this.policy = policy;
    this.origin = origin;
    this.kept = kept;
    Duration apart = Duration.ofNanos(scenario.maxNanos()).plusHours(1);
    // the servers' wall clock is the run's own, so that a Retry-After date is ahead of the run's clock
    Instant wallOrigin = Simulator.WALL_ORIGIN.plus(apart.multipliedBy(run));
    this.time = VirtualTime.startingAt(origin, wallOrigin);
    for (int i = 0; i < scenario.servers().size(); i++) {
      ServerSpec server = scenario.servers().get(i);
      servers.put(server.host(), new ServerModel(server, wallOrigin, trips(scenario.seed(), i)));
    }
  }

  /**
   * The draws of server {@code index}'s jitter: each server its own, from the seed, so that a
   * replay is deterministic and one server's attempts do not move another's draws. Apart from the
   * arrivals' {@code Random(seed)} ({@link Arrivals}), so that the trips do not repeat its draws.
   */
  private static Random trips(long seed, int index) {
    return new Random(seed ^ (0x9E3779B97F4A7C15L * (index + 1)));
  }

  PacingResult.Policy run() {
    for (int c = 0; c < scenario.clients().size(); c++) {
      ClientSpec client = scenario.clients().get(c);
      long[] times = arrivals.byClient.get(c);
      // The parser refuses a client whose host has no server.
      ServerModel server = Objects.requireNonNull(servers.get(client.host()), "no server for host '" + client.host() + "'");
      HostStateStore shared = client.sharedState() ? new SharedStates(store("client-" + c)) : null;
      LocalFleet fleet = client.fleetLatency() >= 0 ? new LocalFleet(time, time, Duration.ofNanos(client.fleetLatency())) : null;
      for (int p = 0; p < client.processes(); p++) {
        HostStateStore store = shared != null ? shared : store("client-" + c + "-process-" + p);
        PacingFigures.Process process = figures.process(c, p, client.joinOf(p));
        for (int i = p; i < times.length; i += client.processes()) {
          figures.request(client.host(), times[i], process);
        }
        if (policy.usesEngine()) {
          // counted before any process joins: the kept states are saved as the count reaches 0,
          // which is to be the run's last request, not that of a process done before another joins
          unfinished += process.requests.size();
        }
        // Built when it joins, so that a late one hears nothing of the fleet before.
        time.schedule(() -> {
          if (policy.usesEngine()) {
            paced(client, server, engine(client, server.spec, store, fleet), process);
          } else {
            unpaced(client, server, process);
          }
        }, process.joinAt);
      }
    }
    time.runUntilIdle(Duration.ofNanos(scenario.maxNanos()));
    if (unfinished > 0) {
      saveKeptStates(); // a run cut by maxSeconds: what its engines learned goes to the next run all the same
    }
    return figures.result(policy.name(), scenario.maxNanos(), arrivals, PacingShares.hostRate(scenario),
        scenario.servers());
  }

  private Hostpace engine(ClientSpec client, ServerSpec server, HostStateStore store, @Nullable LocalFleet fleet) {
    Hostpace.Builder builder = Hostpace.builder().time(time).limitsForEveryHost(Limits.inFlight(client.inFlight()))
        .hostStateStore(store);
    if (fleet != null) {
      builder.fleet(fleet.join());
    }
    policy.configure(builder, server, client, fleet != null);
    return builder.build();
  }

  /** The process's requests through its engine, each scheduled at its arrival; called as the process joins. */
  private void paced(ClientSpec client, ServerModel server, Hostpace engine, PacingFigures.Process process) {
    List<PacingFigures.Request> mine = process.requests;
    for (int i = 0; i < mine.size(); i++) {
      PacingFigures.Request request = mine.get(i);
      URI uri = URI.create("http://" + client.host() + "/q/" + i);
      time.schedule(() -> {
        CompletableFuture<RefusingServer.Answer> call = engine.execute(modelExchange(uri, server, request));
        call.whenComplete((answer, failure) -> {
          request.end(elapsed(), answer != null && answer.accepted());
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

  /** Plain client code ({@link UnpacedPacing}): a pool of workers, a fixed back-off, no learning; called as the process joins. */
  private void unpaced(ClientSpec client, ServerModel server, PacingFigures.Process process) {
    ArrayDeque<PacingFigures.Request> arrived = new ArrayDeque<>();
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
    for (PacingFigures.Request request : process.requests) {
      time.schedule(() -> {
        arrived.add(request);
        work[0].run();
      }, request.arrival - process.joinAt);
    }
  }

  private void attempt(ServerModel server, PacingFigures.Request request, int retry, Runnable done) {
    send(server, request, answer -> {
      if (answer.accepted() || retry >= UnpacedPacing.RETRIES) {
        request.end(elapsed(), answer.accepted());
        done.run();
      } else {
        time.schedule(() -> attempt(server, request, retry + 1, done), UnpacedPacing.BACKOFF_NANOS);
      }
    });
  }

  /**
   * An attempt of {@code request} starts now; {@code answered} is given its answer as the answer
   * reaches the client. Without jitter the model decides at once and the answer comes
   * {@code latency} later. With it the model decides as the attempt arrives, a trip later: the
   * trip is drawn now, so the draws go in the order attempts start, and the decision is scheduled
   * at its time, so the model sees times in order even where a later start arrives first.
   */
  private void send(ServerModel server, PacingFigures.Request request, Consumer<RefusingServer.Answer> answered) {
    if (!server.jittered()) {
      RefusingServer.Answer answer = admit(server, request);
      time.schedule(() -> answered.accept(answer), server.spec.latency());
      return;
    }
    long startedAt = elapsed();
    time.schedule(() -> {
      startsAsDecided.add(startedAt);
      RefusingServer.Answer answer = admit(server, request);
      time.schedule(() -> answered.accept(answer), server.tripBack());
    }, server.tripThere());
  }

  /**
   * With jitter, the start of every attempt (nanoseconds from the run's start) in the order the
   * servers decided them: where one is later than the next, an attempt overtook one started before
   * it. Empty without jitter, where each is decided as it starts. For tests.
   */
  List<Long> startsAsDecided() {
    return List.copyOf(startsAsDecided);
  }

  /** An attempt of {@code request} reaches its server now: the model decides, the figures count it. */
  private RefusingServer.Answer admit(ServerModel server, PacingFigures.Request request) {
    long now = elapsed();
    RefusingServer.Answer answer = server.admit(now);
    figures.attempt(request, now, answer.accepted());
    return answer;
  }

  private long elapsed() {
    return time.nanoTime() - origin;
  }

  /** An attempt of a paced request: the model decides as it arrives, and answers ({@link #send}). */
  private ScriptedExchange<RefusingServer.Answer> modelExchange(URI uri, ServerModel server, PacingFigures.Request request) {
    return ScriptedExchange.builder(uri, RefusingServer.Answer::status)
        .headers((response, name) -> {
          if (name.equalsIgnoreCase("Retry-After")) {
            return response.retryAfter();
          }
          return name.equalsIgnoreCase("RateLimit") ? response.rateLimit() : null;
        })
        .answers(attempt -> {
          CompletableFuture<RefusingServer.Answer> answer = new CompletableFuture<>();
          send(server, request, answer::complete);
          return answer;
        })
        .build();
  }
}

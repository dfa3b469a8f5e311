package io.hostpace.simulator;

import io.hostpace.simulator.PacingScenario.Model;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.testing.FixedWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one pacing replay did, as it happens: every request, its attempts' starts and answers,
 * by process; then the figures of {@link PacingResult.Policy}, as {@link PacingWorkload} defines
 * them. Times are nanoseconds from the run's start.
 */
final class PacingFigures {

  /** Refusals of attempts started after this count as late: the target allows the first ten seconds to learn. */
  static final double LATE_AFTER_SECONDS = 10;

  private final List<Request> requests = new ArrayList<>();
  private final List<Long> starts = new ArrayList<>();
  private final List<Long> refused = new ArrayList<>();
  private final List<Long> accepted = new ArrayList<>();
  private final List<Process> processes = new ArrayList<>();
  /** Each host's attempts' starts and refused attempts' starts, for the windows of its server. */
  private final Map<String, List<Long>> startsByHost = new HashMap<>();
  private final Map<String, List<Long>> refusedByHost = new HashMap<>();

  /** What became of one request. */
  static final class Request {
    final String host;
    final long arrival;
    final Process process;
    private long lastStart = -1;
    private long endedAt = -1;
    private boolean completed;

    private Request(String host, long arrival, Process process) {
      this.host = host;
      this.arrival = arrival;
      this.process = process;
    }

    /** It ended at {@code at}: its last answer accepted ({@code completed}), or it gave up. */
    void end(long at, boolean completed) {
      this.endedAt = at;
      this.completed = completed;
    }
  }

  /** One process of a client: when it joins, its requests, and when its attempts were refused. */
  static final class Process {
    final int client;
    final int index;
    final long joinAt;
    final List<Request> requests = new ArrayList<>();
    private final List<Long> refused = new ArrayList<>();
    private final List<Long> accepted = new ArrayList<>();

    private Process(int client, int index, long joinAt) {
      this.client = client;
      this.index = index;
      this.joinAt = joinAt;
    }
  }

  /** Process {@code index} of client {@code client}, which joins at {@code joinAt}. */
  Process process(int client, int index, long joinAt) {
    Process process = new Process(client, index, joinAt);
    processes.add(process);
    return process;
  }

  /** A request to {@code host} of {@code process}, arriving at {@code arrival}. */
  void request(String host, long arrival, Process process) {
    Request request = new Request(host, arrival, process);
    requests.add(request);
    process.requests.add(request);
  }

  /** An attempt of {@code request} started at {@code at}, and was accepted or refused. */
  void attempt(Request request, long at, boolean wasAccepted) {
    request.lastStart = at;
    starts.add(at);
    startsByHost.computeIfAbsent(request.host, host -> new ArrayList<>()).add(at);
    if (wasAccepted) {
      accepted.add(at);
      request.process.accepted.add(at);
    } else {
      refused.add(at);
      request.process.refused.add(at);
      refusedByHost.computeIfAbsent(request.host, host -> new ArrayList<>()).add(at);
    }
  }

  /**
   * The figures of policy {@code name}, whose run ended at {@code maxNanos}, over {@code arrivals};
   * the processes' rate while all ran is given as a share of {@code hostRate} (0 for none:
   * {@link PacingShares#hostRate}); {@code servers} are the scenario's, whose fixed windows say
   * which refusals came after the first window.
   */
  PacingResult.Policy result(String name, long maxNanos, Arrivals arrivals, double hostRate, List<ServerSpec> servers) {
    int completed = 0;
    Map<String, Integer> completedByHost = new HashMap<>();
    long finish = 0;
    boolean unfinished = false;
    long[] waits = new long[requests.size()];
    int unsent = 0;
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
      if (request.lastStart < 0 && request.arrival > maxNanos) {
        unsent++; // arrived after the run: no wait to count
      } else {
        waits[i - unsent] = request.lastStart < 0 ? maxNanos - request.arrival : request.lastStart - request.arrival;
      }
    }
    waits = Arrays.copyOf(waits, requests.size() - unsent);
    if (unfinished) {
      finish = maxNanos;
    }
    Arrays.sort(waits);
    int late = late(refused);
    int lateAttempts = late(starts);
    int attempts = starts.size();
    PacingShares shares = shares();
    // The ideal finish of the requests it completed over its finish, times the share it completed;
    // a finish at 0 s is as soon as any could be (the ideal is 0 too), so the share alone.
    double goodput = finish == 0 ? (double) completed / requests.size() : (double) (completed == requests.size() ? arrivals.idealNanos
        : arrivals.ideal(completedByHost)) / finish * completed / requests.size();
    return new PacingResult.Policy(
        name, completed, requests.size() - completed, refused.size(),
        attempts == 0 ? 0 : round(100.0 * refused.size() / attempts, 1),
        round(finish / 1e9, 1),
        round(goodput, 2),
        Math.round(percentile(waits, 50) / 1e6), Math.round(percentile(waits, 99) / 1e6),
        late, lateAttempts == 0 ? 0 : round(100.0 * late / lateAttempts, 1), firstWindowRefusalPct(servers),
        acceptedPerSecond(),
        shares == null ? null : round(shares.jain(), 2),
        shares == null || hostRate <= 0 ? null : round(shares.perSecond() / hostRate, 2),
        processResults(), seconds(starts), seconds(refused), unsent);
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

  /**
   * The refusals after the first window at the fixed-window servers of {@code servers}, in percent
   * of the attempts then, one decimal (0 when there were none); null when none of them is one. A
   * server's first window is its own window, counted as {@code FixedWindow} counts it, in which
   * the first refused attempt at it arrived; what arrives at its end or later is after it. A
   * server that refused nothing had no first window to learn in: its attempts count, none refused.
   */
  private @Nullable Double firstWindowRefusalPct(List<ServerSpec> servers) {
    boolean windowed = false;
    int attempts = 0;
    int refusedThen = 0;
    for (ServerSpec server : servers) {
      if (server.model() != Model.FIXED_WINDOW) {
        continue;
      }
      windowed = true;
      List<Long> refusedHere = refusedByHost.getOrDefault(server.host(), List.of());
      long after = refusedHere.isEmpty() ? Long.MIN_VALUE : windowEnd(server, Collections.min(refusedHere));
      attempts += from(startsByHost.getOrDefault(server.host(), List.of()), after);
      refusedThen += from(refusedHere, after);
    }
    if (!windowed) {
      return null;
    }
    return attempts == 0 ? 0 : round(100.0 * refusedThen / attempts, 1);
  }

  /** The end of fixed-window {@code server}'s window that holds time {@code at}, as its model counts it. */
  static long windowEnd(ServerSpec server, long at) {
    return FixedWindow.of(server.limit(), Duration.ofNanos(server.window()), server.windowsFrom()).windowEndAt(at);
  }

  /** How many of {@code times} are at {@code from} or later. */
  private static int from(List<Long> times, long from) {
    int n = 0;
    for (long t : times) {
      if (t >= from) {
        n++;
      }
    }
    return n;
  }

  /** One less than the accepted attempts over the seconds from the first one's start to the last one's. */
  private double acceptedPerSecond() {
    if (accepted.size() < 2) {
      return 0;
    }
    long span = accepted.get(accepted.size() - 1) - accepted.get(0);
    return span <= 0 ? 0 : round((accepted.size() - 1) / (span / 1e9), 3);
  }

  /**
   * The processes' shares of their host while all ran; null where there are none
   * ({@link PacingShares#of}), or where the processes call several hosts: shares of different
   * hosts say nothing of how one was shared.
   */
  private @Nullable PacingShares shares() {
    if (requests.stream().map(request -> request.host).distinct().count() > 1) {
      return null;
    }
    long[] joins = new long[processes.size()];
    List<List<Long>> acceptedByProcess = new ArrayList<>();
    for (int p = 0; p < joins.length; p++) {
      joins[p] = processes.get(p).joinAt;
      acceptedByProcess.add(processes.get(p).accepted);
    }
    return PacingShares.of(joins, acceptedByProcess);
  }

  private List<PacingResult.Process> processResults() {
    List<PacingResult.Process> out = new ArrayList<>();
    for (Process process : processes) {
      int completed = (int) process.requests.stream().filter(r -> r.completed).count();
      long openingEnd = process.joinAt + Math.round(PacingResult.OPENING_SECONDS * 1e9);
      int opening = (int) process.refused.stream().filter(t -> t < openingEnd).count();
      out.add(new PacingResult.Process(process.client, process.index, round(process.joinAt / 1e9, 1),
          process.requests.size(), completed, process.requests.size() - completed, process.refused.size(), opening,
          seconds(process.accepted)));
    }
    return out;
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

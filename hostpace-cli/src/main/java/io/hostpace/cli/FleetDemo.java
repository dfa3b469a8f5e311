package io.hostpace.cli;

import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import io.hostpace.redis.testing.RedisServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.jena.query.DatasetFactory;
import org.jspecify.annotations.Nullable;

/**
 * {@code hostpace demo --fleet}: three workers, each a {@code hostpace fetch} in a process of its
 * own, against one SPARQL endpoint on 127.0.0.1 that serves one request every 100 ms and refuses
 * the rest with a bare 429 (as QLever does at its rate), each fetching 16 URLs. Two start
 * together; the third, the late joiner, starts 3 s later, when the others have learned the host.
 * The same three run twice: each learning the host alone, then as a fleet ({@code --fleet demo})
 * over a Redis that this demo starts on 127.0.0.1 (SPEC S2, S3), so that the late joiner starts
 * from what the fleet learned. A table puts the refusals of each worker, and those the endpoint
 * counted, side by side.
 *
 * <p>Each side has 30 s. Learning alone, a worker may starve (the others took the host's rate,
 * and its own refusals taught it to wait ever longer): one still running then is stopped, and
 * the table says so, as what learning alone does. A worker of the fleet that does not finish, or
 * any worker that fails (exit status 1 or 2), makes the demo fail.
 *
 * <p>Leaves nothing running: a worker still running at the bound is destroyed, Redis is stopped,
 * and a shutdown hook does both if the demo is ended early (Ctrl-C).
 */
final class FleetDemo {

  static final Duration INTERVAL = Duration.ofMillis(100);
  static final int EARLY_URLS = 16;
  static final int LATE_URLS = 16;
  static final Duration LATE_AFTER = Duration.ofSeconds(3);
  /** The longest a side may take, from its first worker's start; a worker running then is stopped. */
  static final Duration BOUND = Duration.ofSeconds(30);
  static final String FLEET = "demo";

  private final Main.Streams streams;
  private final List<AutoCloseable> running = new ArrayList<>(); // guarded by itself

  FleetDemo(Main.Streams streams) {
    this.streams = streams;
  }

  /** What one side did: its workers' results (worker 1, worker 2, the late joiner) and what the endpoint counted. */
  record Side(List<WorkerProcess.Result> workers, long requests, long refusals, Duration wall) {
    WorkerProcess.Result lateJoiner() {
      return workers.get(2);
    }

    int answered() {
      return workers.stream().mapToInt(WorkerProcess.Result::answered).sum();
    }

    /** The workers still running at the bound, by name, or "none". */
    String stopped() {
      String names = workers.stream().filter(WorkerProcess.Result::stopped).map(WorkerProcess.Result::name)
          .collect(java.util.stream.Collectors.joining(", "));
      return names.isEmpty() ? "none" : names;
    }
  }

  int run() throws IOException, InterruptedException {
    PrintStream out = streams.out();
    int total = 2 * EARLY_URLS + LATE_URLS;
    out.println("Hostpace demo, a fleet: three worker processes (hostpace fetch) and one SPARQL endpoint on this");
    out.println("machine that serves one request every " + INTERVAL.toMillis() + " ms and refuses the rest with 429 and no Retry-After.");
    out.println();
    out.println("  worker 1, worker 2:  " + EARLY_URLS + " URLs each, from the start");
    out.println("  the late joiner:     " + LATE_URLS + " URLs, from " + LATE_AFTER.toSeconds() + " s on, when the others have learned the host");
    out.println("  run twice:           each worker learning alone, then as a fleet over a Redis on 127.0.0.1;");
    out.println("                       a worker still running at " + BOUND.toSeconds() + " s is stopped");
    out.println();

    Thread hook = new Thread(this::closeRunning, "hostpace-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    Side alone;
    Side fleet;
    try {
      alone = side("learning alone", false);
      fleet = side("as a fleet", true);
    } finally {
      closeRunning();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException exiting) { // the JVM is exiting: the hook runs, and finds nothing to close
      }
    }

    out.println();
    String row = "  %-30s %16s %16s%n";
    out.printf(row, "", "learning alone", "as a fleet");
    for (int i = 0; i < 3; i++) {
      out.printf(row, "refusals of " + alone.workers().get(i).name(), alone.workers().get(i).refusals(),
          fleet.workers().get(i).refusals());
    }
    out.printf(row, "refusals the endpoint counted", alone.refusals(), fleet.refusals());
    out.printf(row, "requests the endpoint got", alone.requests(), fleet.requests());
    out.printf(row, "URLs answered 200", alone.answered() + " / " + total, fleet.answered() + " / " + total);
    out.printf(row, "time the late joiner took", took(alone.lateJoiner()), took(fleet.lateJoiner()));
    out.printf(row, "stopped at " + BOUND.toSeconds() + " s, still running", alone.stopped(), fleet.stopped());
    out.printf(row, "wall time", seconds(alone.wall()), seconds(fleet.wall()));
    out.println();

    boolean failed = false;
    for (Side side : List.of(alone, fleet)) {
      for (WorkerProcess.Result worker : side.workers()) {
        if (worker.failed() || (side == fleet && worker.stopped())) {
          out.println((side == fleet ? "As a fleet, " : "Learning alone, ") + worker.name() + " did not finish: "
              + worker.lastError());
          failed = true;
        }
      }
    }
    if (failed) {
      return Main.FAILED;
    }
    int lateAlone = alone.lateJoiner().refusals();
    int lateFleet = fleet.lateJoiner().refusals();
    out.println("Learning alone, each worker paid for what the others already knew, and the late joiner opened");
    out.println("on a host the others kept busy: refused " + times(lateAlone) + ".");
    if (!alone.stopped().equals("none")) {
      out.println("Still running at " + BOUND.toSeconds() + " s, " + alone.stopped() + " starved: the others took the host's rate, and");
      out.println("its own refusals taught it to wait ever longer.");
    }
    out.println("As a fleet, the late joiner read what the fleet had learned of the host before its first request,");
    out.println("and its starts were claimed with the others' through Redis: refused " + times(lateFleet)
        + (lateFleet < lateAlone ? "." : ", no fewer this time."));
    out.println("(hostpace fetch --fleet NAME --redis URI makes any runs one fleet; see docs/fleet.md.)");
    return Main.OK;
  }

  /** Runs the three workers against a new endpoint, with a new Redis for the fleet, and stops them all. */
  private Side side(String name, boolean asFleet) throws IOException, InterruptedException {
    GatedEndpoint endpoint = GatedEndpoint.start(DatasetFactory.create(), Gate.oneEvery(INTERVAL));
    register(endpoint);
    @Nullable RedisServer redis = null;
    if (asFleet) {
      redis = RedisServer.start();
      register(redis);
    }
    List<String> options = new ArrayList<>(List.of("--quiet", "--timeout", "10"));
    if (redis != null) {
      options.addAll(List.of("--fleet", FLEET, "--redis", redis.uri()));
    }
    streams.err().printf("  %-16s workers 1 and 2 started, the late joiner in %d s ...%n", name, LATE_AFTER.toSeconds());
    long start = System.nanoTime();
    List<WorkerProcess> workers = new ArrayList<>();
    workers.add(worker("worker 1", options, urls(endpoint, "w1-", EARLY_URLS)));
    workers.add(worker("worker 2", options, urls(endpoint, "w2-", EARLY_URLS)));
    Thread.sleep(LATE_AFTER.toMillis());
    workers.add(worker("the late joiner", options, urls(endpoint, "late-", LATE_URLS)));
    long deadline = start + BOUND.toNanos();
    List<WorkerProcess.Result> results = new ArrayList<>();
    for (WorkerProcess worker : workers) {
      results.add(worker.await(deadline));
    }
    Duration wall = Duration.ofNanos(System.nanoTime() - start);
    Side side = new Side(results, endpoint.requests(), endpoint.refusals(), wall);
    closeRunning();
    streams.err().printf("  %-16s done in %s%n", name, seconds(wall));
    return side;
  }

  private WorkerProcess worker(String name, List<String> options, List<String> urls) throws IOException {
    List<String> arguments = new ArrayList<>(options);
    arguments.addAll(urls);
    WorkerProcess worker = WorkerProcess.start(name, arguments);
    register(worker);
    return worker;
  }

  /** {@code count} URLs of the endpoint, each an ASK query of its own, named by {@code prefix}. */
  private static List<String> urls(GatedEndpoint endpoint, String prefix, int count) {
    List<String> urls = new ArrayList<>(count);
    for (int i = 1; i <= count; i++) {
      String query = "ASK { <urn:hostpace-demo:" + prefix + i + "> ?p ?o }";
      urls.add(endpoint.sparql() + "?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
    }
    return urls;
  }

  private void register(AutoCloseable resource) {
    synchronized (running) {
      running.add(resource);
    }
  }

  /** Stops whatever runs, workers first, the endpoint and Redis last; what fails to close is said, not thrown. */
  private void closeRunning() {
    List<AutoCloseable> toClose;
    synchronized (running) {
      toClose = new ArrayList<>(running);
      running.clear();
    }
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (InterruptedException e) { // the next ones are still closed; the interrupt is kept for the caller
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        streams.err().println("hostpace: could not stop a part of the demo: " + Printable.line(Main.failure(e)));
      }
    }
  }

  private static String took(WorkerProcess.Result worker) {
    return worker.stopped() ? "stopped" : seconds(worker.took());
  }

  /** {@code once}, {@code 3 times}. */
  static String times(long count) {
    return count == 1 ? "once" : count + " times";
  }

  private static String seconds(Duration duration) {
    return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
  }
}

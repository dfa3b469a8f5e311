package io.hostpace.cli;

import io.hostpace.HostStateFile;
import io.hostpace.Hostpace;
import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import io.hostpace.jena.HostpaceJena;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryExecutionFactory;
import org.apache.jena.query.QuerySolution;
import org.apache.jena.query.ResultSet;
import org.apache.jena.query.DatasetFactory;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code hostpace demo}: what Hostpace is for, on this machine, with no network. Two embedded
 * SPARQL endpoints on 127.0.0.1 refuse like public ones (one like QLever, one like KGF's gate);
 * the same federated workload runs against them first with plain Jena, then through Hostpace,
 * then through Hostpace again, its engine starting from what the last one's was taught (SPEC S1,
 * as {@code --state} keeps it); a table compares the three. Leaves nothing running.
 *
 * <p>{@code hostpace demo --fleet} runs {@link FleetDemo} instead: worker processes learning
 * alone, then as a fleet. It is not part of the plain demo, which stays within a JVM of its own:
 * the fleet starts three more and a Redis server, whose binary the jar ships for Linux and macOS
 * only.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Show, on this machine, plain Jena losing federated queries that Hostpace completes.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:Hostpace completed every query (with --fleet: every worker of the fleet finished)",
        "1:it did not", "2:a usage error, said in one line", "130:interrupted (Ctrl-C): nothing is left running"},
    footerHeading = "%nExamples:%n",
    footer = {"  hostpace demo", "  hostpace demo --queries 40", "  hostpace demo --fleet"})
final class DemoCommand implements java.util.concurrent.Callable<Integer> {

  private final Main.Streams streams;

  @picocli.CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--queries", paramLabel = "N", defaultValue = "16",
      description = "federated queries in the workload, all sent at once (default ${DEFAULT-VALUE})")
  int queries = 16;

  @Option(names = "--fleet",
      description = "instead, run three worker processes (hostpace fetch, one of them joining late) against one"
          + " endpoint, learning alone and then as a fleet over a Redis this demo starts on 127.0.0.1")
  boolean fleet;

  DemoCommand(Main.Streams streams) {
    this.streams = streams;
  }

  /** What one run of the workload did. */
  record Run(int completed, int correct, long peopleRequests, long peopleRefusals, long cityRequests,
      long cityRefusals, Duration wall, Duration peopleInterval, Duration cityPause) {}

  @Override
  public Integer call() throws Exception {
    if (fleet) {
      if (spec.commandLine().getParseResult().hasMatchedOption("--queries")) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--queries sizes the federated workload, which --fleet does not run: give one or the other");
      }
      return new FleetDemo(streams).run();
    }
    if (queries < 1 || queries > 200) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--queries must be 1 to 200, got " + queries);
    }
    PrintStream out = streams.out();
    DemoWorkload workload = new DemoWorkload(queries);
    out.println("Hostpace demo: one federated workload, two SPARQL endpoints on this machine that refuse");
    out.println("clients who ask too often, run first with plain Apache Jena, then through Hostpace.");
    out.println();
    out.println("  people    (like QLever): one request a second, the rest refused with 429 and no Retry-After");
    out.println("  cities    (like KGF):    four at once, the rest refused with 429 and Retry-After: 1");
    out.println("  workload:  " + (queries == 1 ? "1 query sent, joining" : queries + " queries sent at once, each joining")
        + " both endpoints with SERVICE");
    out.println();

    Run plain;
    try (Endpoints endpoints = Endpoints.start(workload)) {
      plain = run("plain Jena", workload, endpoints, null, null);
    }
    Run paced;
    Run next;
    // A folder of its own: a save leaves a lock file beside the state file, deleted with it here.
    Path folder = Files.createTempDirectory("hostpace-demo-state");
    Path state = folder.resolve("state.tsv");
    try (Endpoints endpoints = Endpoints.start(workload)) {
      // Both runs through Hostpace meet the same endpoints, so that the second knows their hosts.
      HostStateFile kept = HostStateFile.load(state);
      paced = run("Hostpace", workload, endpoints, new HostSummary(), kept);
      kept.save();
      Thread.sleep(1000); // the endpoints' last second passes, as between two runs
      next = run("next run", workload, endpoints, new HostSummary(), HostStateFile.load(state));
    } finally {
      try (java.util.stream.Stream<Path> files = Files.list(folder)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
      }
      Files.deleteIfExists(folder);
    }

    out.println();
    String row = "  %-34s %14s %14s %14s%n";
    out.printf(row, "", "plain Jena", "Hostpace", "next run");
    out.printf(row, "queries completed", plain.completed() + " / " + queries, paced.completed() + " / " + queries,
        next.completed() + " / " + queries);
    out.printf(row, "results correct", plain.correct() + " / " + queries, paced.correct() + " / " + queries,
        next.correct() + " / " + queries);
    out.printf(row, "requests to people", plain.peopleRequests(), paced.peopleRequests(), next.peopleRequests());
    out.printf(row, "refusals by people", plain.peopleRefusals(), paced.peopleRefusals(), next.peopleRefusals());
    out.printf(row, "requests to cities", plain.cityRequests(), paced.cityRequests(), next.cityRequests());
    out.printf(row, "refusals by cities", plain.cityRefusals(), paced.cityRefusals(), next.cityRefusals());
    out.printf(row, "wall time", seconds(plain.wall()), seconds(paced.wall()), seconds(next.wall()));
    out.printf(row, "interval learned for people", "-", millis(paced.peopleInterval()), millis(next.peopleInterval()));
    out.printf(row, "longest pause asked by cities", "-", millis(paced.cityPause()), millis(next.cityPause()));
    out.println();
    if (paced.correct() == queries && next.correct() == queries) {
      out.println("Hostpace completed every query: it paced each endpoint by what its refusals taught, and");
      out.println("retried the refused requests through the same queue. Plain Jena lost "
          + (queries - plain.completed()) + " of " + queries + ".");
      out.println("The next run started from what the first was taught (as hostpace fetch and sparql do");
      out.println("with --state FILE): refused " + FleetDemo.times(next.peopleRefusals()) + " by people, where the first run "
          + "was refused " + FleetDemo.times(paced.peopleRefusals()) + ".");
      return Main.OK;
    }
    out.println("Hostpace did not complete every query: " + paced.correct() + " and " + next.correct() + " of "
        + queries + " correct.");
    return Main.FAILED;
  }

  /** The two endpoints, on 127.0.0.1; closed after the runs that use them. */
  private record Endpoints(GatedEndpoint people, GatedEndpoint cities) implements AutoCloseable {
    static Endpoints start(DemoWorkload workload) {
      GatedEndpoint people = GatedEndpoint.start(workload.people(), Gate.oneEvery(Duration.ofSeconds(1)));
      try {
        return new Endpoints(people, GatedEndpoint.start(workload.cities(), Gate.concurrent(4, Duration.ofSeconds(1))));
      } catch (RuntimeException e) {
        people.close();
        throw e;
      }
    }

    @Override
    public void close() {
      try {
        people.close();
      } finally {
        cities.close();
      }
    }
  }

  /**
   * Runs the workload against {@code endpoints}: with plain Jena when {@code summary} is null,
   * else through a new engine, installed for Jena, whose events {@code summary} hears, its
   * hosts' states in {@code kept}. Counts only this run's requests.
   */
  private Run run(String name, DemoWorkload workload, Endpoints endpoints, @Nullable HostSummary summary,
      @Nullable HostStateFile kept) throws InterruptedException {
    GatedEndpoint people = endpoints.people();
    GatedEndpoint cities = endpoints.cities();
    long peopleBefore = people.requests();
    long peopleRefusedBefore = people.refusals();
    long citiesBefore = cities.requests();
    long citiesRefusedBefore = cities.refusals();
    Hostpace.Builder engine = Hostpace.builder().retries(10);
    if (summary != null) {
      engine.addListener(summary);
    }
    if (kept != null) {
      engine.hostStateStore(kept);
    }
    try (JenaDefaultClient held = JenaDefaultClient.hold();
        HostpaceJena.Installation installation = summary == null ? null : HostpaceJena.install(engine.build())) {
      List<String> texts = workload.queries(people.sparql(), cities.sparql());
      AtomicInteger done = new AtomicInteger();
      AtomicInteger gaveResults = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(texts.size());
      java.util.function.Supplier<QueryTally> tally =
          () -> new QueryTally(name, done.get(), Math.min(done.get(), gaveResults.get()), texts.size());
      ScheduledExecutorService ticker = progress(tally);
      long start = System.nanoTime();
      try {
        List<Future<String>> results = new ArrayList<>();
        for (String text : texts) {
          results.add(pool.submit(() -> {
            try {
              String answer = answer(text);
              gaveResults.incrementAndGet();
              return answer;
            } finally {
              done.incrementAndGet();
            }
          }));
        }
        int completed = 0;
        int correct = 0;
        for (int i = 0; i < results.size(); i++) {
          String answer;
          try {
            answer = results.get(i).get(90, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            continue;
          }
          completed++;
          if (answer.equals(workload.expected(i))) {
            correct++;
          }
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - start);
        return new Run(completed, correct, people.requests() - peopleBefore, people.refusals() - peopleRefusedBefore,
            cities.requests() - citiesBefore, cities.refusals() - citiesRefusedBefore,
            wall, summary == null ? Duration.ZERO : summary.interval(people.hostKey()),
            summary == null ? Duration.ZERO : summary.longestPause(cities.hostKey()));
      } finally {
        pool.shutdownNow();
        ticker.shutdownNow();
        streams.err().printf("\r  %s%n", tally.get().line());
      }
    }
  }

  /** One query's one row, as "city country"; fails as the query fails. */
  private static String answer(String text) {
    try (QueryExecution execution = QueryExecutionFactory.create(text, DatasetFactory.create())) {
      ResultSet results = execution.execSelect();
      StringBuilder rows = new StringBuilder();
      while (results.hasNext()) {
        QuerySolution row = results.next();
        rows.append(rows.length() > 0 ? "; " : "").append(row.get("city")).append(' ').append(row.get("country"));
      }
      return rows.toString();
    }
  }

  /** Redraws the run's tally on standard error when that is a terminal, else says nothing until the end. */
  private ScheduledExecutorService progress(java.util.function.Supplier<QueryTally> tally) {
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "hostpace-demo-progress");
      thread.setDaemon(true);
      return thread;
    });
    if (Terminal.ofThisProcess().standardErrorIsTerminal()) {
      ticker.scheduleAtFixedRate(() -> {
        streams.err().print("\r  " + tally.get().line());
        streams.err().flush();
      }, 0, 250, TimeUnit.MILLISECONDS);
    }
    return ticker;
  }

  private static String seconds(Duration duration) {
    return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
  }

  private static String millis(Duration duration) {
    return duration.isZero() ? "-" : duration.toMillis() + " ms";
  }
}

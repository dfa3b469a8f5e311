package io.hostpace.cli;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.internal.Redaction;
import io.hostpace.jena.HostpaceJena;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.jena.http.HttpEnv;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.ResultSetFormatter;
import org.apache.jena.query.ResultSetRewindable;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.apache.jena.sparql.exec.http.UpdateExecutionHTTP;
import org.apache.jena.update.UpdateExecution;
import org.jspecify.annotations.Nullable;

/**
 * The queries and updates of one {@code hostpace sparql} run, sent through one engine and one
 * Jena installation, so that what the endpoint teaches the first is what the others are paced by.
 * The updates go first, one after another in the order given (an update may depend on the one
 * before); then the queries, all submitted at once from a pool of threads and paced by the
 * engine, each with a context of its own whose kind is the query's name (SPEC D1) and whose
 * attempt listener counts its attempts and refusals ({@link AttemptClock}).
 *
 * <p>One query alone, with no updates and no {@code --output-dir}, prints its results to standard
 * output and a failure as one line, as {@code sparql} always has. Otherwise each query's results
 * go to a file of the {@code --output-dir} ({@link ResultsFolder}), and each query and update has
 * a summary line on standard error as it ends ({@link SparqlOutcome}), then a total line. A query
 * that fails does not stop the others. Ctrl-C abandons what runs and starts nothing more.
 */
final class QueryBatch {

  /**
   * The most queries sent at once by their own threads: the engine's default in-flight limit. A
   * thread of a query waits for its answer, so more threads than the host takes only wait longer.
   */
  static final int MOST_THREADS = 32;

  private final Main.Streams streams;
  private final PacingOptions pacing;
  private final String endpoint;
  private final SparqlCommand.Format format;
  private final CallContext context;
  private final Duration timeout;
  private final long bodyCap;

  QueryBatch(Main.Streams streams, PacingOptions pacing, String endpoint, SparqlCommand.Format format,
      CallContext context, Duration timeout, long bodyCap) {
    this.streams = streams;
    this.pacing = pacing;
    this.endpoint = endpoint;
    this.format = format;
    this.context = context;
    this.timeout = timeout;
    this.bodyCap = bodyCap;
  }

  /** Where the jobs of a run send through, and how Ctrl-C reaches them. */
  private record Run(HostpaceJena.Installation installation, InterruptHook interrupt,
      Set<Runnable> aborts, Set<Integer> refusalStatuses, boolean alone) {}

  /**
   * Runs {@code updates}, then {@code queries}, their results to {@code folder}, or, for one query
   * alone and no folder, to standard output; the exit status: 0 when all succeeded (and
   * {@code --state} was saved), 1 when any failed, 130 when Ctrl-C ended the run.
   */
  int run(List<SparqlJob> updates, List<SparqlJob> queries, @Nullable ResultsFolder folder) {
    boolean alone = folder == null && updates.isEmpty() && queries.size() == 1;
    // Jena sends the queries, and any SERVICE clause, through its default client, which the installation
    // paces and caps at --max-body; each request's timeout, --timeout, bounds its whole answer (SPEC T7).
    // With the adaptive policy, an endpoint held down is probed with ASK {} (SPEC D6).
    Hostpace engine = pacing.engine(event -> {}, io.hostpace.jena.SparqlProbe.ask(HttpEnv.getDftHttpClient()));
    Set<Runnable> aborts = ConcurrentHashMap.newKeySet();
    List<SparqlOutcome> outcomes = new ArrayList<>();
    long start = System.nanoTime();
    boolean saved;
    boolean interrupted;
    // Ctrl-C abandons what runs; the run's thread then saves --state, as at any end.
    try (InterruptHook interrupt = InterruptHook.install(() -> aborts.forEach(Runnable::run))) {
      try (HostpaceJena.Installation installation = HostpaceJena.install(engine, bodyCap)) {
        Run run = new Run(installation, interrupt, aborts, engine.refusalStatuses().always(), alone);
        if (alone) {
          SparqlOutcome outcome = execute(run, queries.get(0), null);
          if (outcome != null) {
            outcomes.add(outcome);
            if (!outcome.ok()) {
              streams.err().println("hostpace: " + Printable.line(String.valueOf(outcome.failure())));
            }
          }
        } else {
          for (SparqlJob update : updates) {
            if (!interrupt.interrupted()) {
              SparqlOutcome outcome = execute(run, update, null);
              if (outcome != null) {
                outcomes.add(outcome);
              }
            }
          }
          outcomes.addAll(queries(run, queries, folder));
        }
      } finally {
        saved = pacing.endRun(streams.err());
      }
      interrupted = interrupt.interrupted();
      if (!alone && !interrupted) {
        streams.err().println(SparqlOutcome.total(outcomes, Duration.ofNanos(System.nanoTime() - start)));
      }
      if (interrupted) {
        streams.err().println("hostpace: interrupted: " + (alone ? "the query was abandoned"
            : "the queries and updates not done were abandoned")
            + (pacing.state != null && saved ? "; what hosts taught is saved in " + Printable.line(pacing.state.toString()) : ""));
      }
    }
    if (interrupted) {
      return Main.INTERRUPTED;
    }
    boolean allOk = outcomes.stream().allMatch(SparqlOutcome::ok);
    // What hosts taught that --state could not keep is a failure too: the next run pays for it again.
    return allOk && saved ? Main.OK : Main.FAILED;
  }

  /** Runs {@code queries} at once from a pool of threads, and gives their outcomes in their order. */
  private List<SparqlOutcome> queries(Run run, List<SparqlJob> queries, @Nullable ResultsFolder folder) {
    if (queries.isEmpty() || run.interrupt().interrupted()) {
      return List.of();
    }
    AtomicInteger made = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(queries.size(), MOST_THREADS), task -> {
      Thread thread = new Thread(task, "hostpace-sparql-" + made.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<CompletableFuture<@Nullable SparqlOutcome>> running = new ArrayList<>();
      for (SparqlJob query : queries) {
        running.add(CompletableFuture.supplyAsync(() -> execute(run, query, folder), pool));
      }
      List<SparqlOutcome> outcomes = new ArrayList<>();
      for (CompletableFuture<@Nullable SparqlOutcome> query : running) {
        SparqlOutcome outcome = query.join();
        if (outcome != null) {
          outcomes.add(outcome);
        }
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Runs one query or update, its results to {@code folder} (or, when it is null, to standard
   * output), and prints its summary line when it is one of several; null when Ctrl-C came first.
   */
  private @Nullable SparqlOutcome execute(Run run, SparqlJob job, @Nullable ResultsFolder folder) {
    if (run.interrupt().interrupted()) {
      return null;
    }
    long start = System.nanoTime();
    AttemptClock clock = new AttemptClock(start);
    // The file's name as the kind, on one line: the engine refuses a kind with a tab or a line break.
    CallContext own = context.toBuilder().kind(Redaction.printable(job.name())).attemptListener(clock).build();
    // A client of its own, so that a results body cut at --timeout or --max-body is this query's.
    LastCutClient client = new LastCutClient(run.installation().client());
    String results = "";
    String failure = null;
    Runnable abort = null;
    try {
      if (job.update() != null) {
        UpdateExecution execution = UpdateExecutionHTTP.service(endpoint)
            .update(job.update())
            .httpClient(client)
            .context(HostpaceJena.contextOf(own))
            .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .build();
        abort = execution::abort;
        run.aborts().add(abort);
        if (run.interrupt().interrupted()) {
          execution.abort();
        }
        execution.execute();
      } else {
        Query query = java.util.Objects.requireNonNull(job.query(), "a job that is not an update is a query");
        QueryExecution execution = QueryExecutionHTTP.service(endpoint)
            .query(query)
            .httpClient(client)
            .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .context(HostpaceJena.contextOf(own))
            .build();
        abort = execution::abort;
        run.aborts().add(abort);
        if (run.interrupt().interrupted()) {
          execution.abort();
        }
        try (execution) {
          if (folder != null) {
            results = folder.write(job.resultsFile(format), out -> print(query, execution, out));
          } else {
            PrintStream out = streams.out();
            results = print(query, execution, out);
            out.flush();
          }
        }
      }
    } catch (RuntimeException e) {
      if (run.interrupt().interrupted()) {
        return null;
      }
      failure = SparqlCommand.failure(e, timeout, client.lastCut());
    } catch (IOException e) {
      failure = "the results could not be written: " + Main.failure(e);
    } finally {
      if (abort != null) {
        run.aborts().remove(abort);
      }
    }
    if (run.interrupt().interrupted()) {
      return null;
    }
    SparqlOutcome outcome = new SparqlOutcome(job.name(), job.isUpdate(), failure == null ? results : "", failure,
        clock.attempts(), clock.refusals(run.refusalStatuses()), Duration.ofNanos(System.nanoTime() - start));
    if (!run.alone()) {
      PrintStream err = streams.err();
      synchronized (err) {
        err.println(Printable.line(outcome.line()));
      }
    }
    return outcome;
  }

  /**
   * Prints the results of {@code query} in the run's format, as a run of it alone prints them,
   * and says briefly what came: {@code 120 rows}, {@code 15 triples}, {@code yes}.
   */
  private String print(Query query, QueryExecution execution, PrintStream out) {
    if (query.isSelectType()) {
      ResultSetRewindable results = execution.execSelect().rewindable();
      long rows = results.size();
      results.reset();
      switch (format) {
        case table -> ResultSetFormatter.out(out, results, query);
        case csv -> ResultSetFormatter.outputAsCSV(out, results);
        case tsv -> ResultSetFormatter.outputAsTSV(out, results);
        case json -> ResultSetFormatter.outputAsJSON(out, results);
      }
      return Counted.of(rows, "row", "rows");
    }
    if (query.isAskType()) {
      boolean answer = execution.execAsk();
      switch (format) {
        case table -> out.println(answer ? "yes" : "no");
        case csv -> ResultSetFormatter.outputAsCSV(out, answer);
        case tsv -> ResultSetFormatter.outputAsTSV(out, answer);
        case json -> ResultSetFormatter.outputAsJSON(out, answer);
      }
      return answer ? "yes" : "no";
    }
    Model model = query.isConstructType() ? execution.execConstruct() : execution.execDescribe();
    Lang lang = switch (format) {
      case table -> Lang.TURTLE;
      case csv, tsv -> Lang.NTRIPLES;
      case json -> Lang.JSONLD;
    };
    RDFDataMgr.write(out, model, lang);
    return Counted.of(model.size(), "triple", "triples");
  }
}

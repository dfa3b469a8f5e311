package io.hostpace.cli;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How one query or update of a {@code hostpace sparql} run ended, as its summary line says it:
 * {@code people: ok, 120 rows, 3 attempts, 2 refusals, 4.2 s}, or with why it failed in the place
 * of {@code ok} and its results: {@code broken: the endpoint answered 400: Parse error, 1 attempt,
 * 0 refusals, 0.1 s}.
 *
 * @param results what came, said briefly ({@code 120 rows}, {@code 15 triples}, {@code yes});
 *     empty for an update, and for a query that failed
 * @param failure the one line that says why it failed, as a single query's run prints it; null when it did not
 */
record SparqlOutcome(String name, boolean update, String results, @Nullable String failure, int attempts,
    int refusals, Duration took) {

  boolean ok() {
    return failure == null;
  }

  String line() {
    StringBuilder line = new StringBuilder(name).append(": ").append(failure == null ? "ok" : failure);
    if (failure == null && !results.isEmpty()) {
      line.append(", ").append(results);
    }
    return line.append(", ").append(Counted.of(attempts, "attempt", "attempts"))
        .append(", ").append(Counted.of(refusals, "refusal", "refusals"))
        .append(", ").append(HostSummary.elapsed(took)).toString();
  }

  /**
   * The line after them all: {@code total: 20 queries, 19 ok, 1 failed, 31 attempts, 11 refusals,
   * in 6.4 s}; {@code 2 queries and 1 update} when updates ran too.
   */
  static String total(List<SparqlOutcome> outcomes, Duration took) {
    long updates = outcomes.stream().filter(SparqlOutcome::update).count();
    long queries = outcomes.size() - updates;
    String ran = updates == 0 ? Counted.of(queries, "query", "queries")
        : queries == 0 ? Counted.of(updates, "update", "updates")
        : Counted.of(queries, "query", "queries") + " and " + Counted.of(updates, "update", "updates");
    long ok = outcomes.stream().filter(SparqlOutcome::ok).count();
    return "total: " + ran + ", " + ok + " ok, " + (outcomes.size() - ok) + " failed, "
        + Counted.of(outcomes.stream().mapToLong(SparqlOutcome::attempts).sum(), "attempt", "attempts") + ", "
        + Counted.of(outcomes.stream().mapToLong(SparqlOutcome::refusals).sum(), "refusal", "refusals") + ", in "
        + HostSummary.elapsed(took);
  }
}

package io.hostpace.cli;

/**
 * How far one run of the demo's workload is, as its progress line and its last line say it:
 * {@code plain Jena: 16 of 16 queries finished, 1 completed}. A query has <em>finished</em> when
 * its call ended, in any way (results, an error, a refusal that ran out of retries); it has
 * <em>completed</em> when it gave results. The two are kept apart because plain Jena finishes
 * every query quickly, most of them by failing.
 */
record QueryTally(String run, int finished, int completed, int total) {

  QueryTally {
    if (completed < 0 || completed > finished || finished > total) {
      throw new IllegalArgumentException("a tally of " + run + " has 0 <= completed <= finished <= total, got "
          + completed + ", " + finished + ", " + total);
    }
  }

  String line() {
    return run + ": " + finished + " of " + Counted.of(total, "query", "queries") + " finished, " + completed + " completed";
  }
}

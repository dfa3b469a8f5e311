package io.hostpace.cli;

/** A count and its noun, as the command line prints them: {@code 1 request}, {@code 2 requests}, {@code 0 retries}. */
final class Counted {

  private Counted() {}

  /** {@code count} and {@code one} when it is 1, else {@code many}: {@code of(1, "query", "queries")} is "1 query". */
  static String of(long count, String one, String many) {
    return count + " " + (count == 1 ? one : many);
  }
}

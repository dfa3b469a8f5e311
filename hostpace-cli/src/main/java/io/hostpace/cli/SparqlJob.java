package io.hostpace.cli;

import java.nio.file.Path;
import java.util.function.Function;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.QueryParseException;
import org.apache.jena.update.UpdateFactory;
import org.apache.jena.update.UpdateRequest;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ParameterException;

/**
 * One query or update of a {@code hostpace sparql} run, parsed before anything is sent. Its
 * name is its file's name without the extension ({@code queries/people.rq} is {@code people}),
 * or {@code query} for {@code --query TEXT}: the name of its results file, of its summary line,
 * and the kind its requests are for the timeout policy (SPEC D1).
 *
 * @param origin where it came from, as a message names it: {@code --query-file 'queries/people.rq'}
 */
record SparqlJob(String name, String origin, @Nullable Query query, @Nullable UpdateRequest update) {

  /** The name of the query given with {@code --query TEXT}. */
  static final String INLINE = "query";

  SparqlJob {
    if ((query == null) == (update == null)) {
      throw new IllegalArgumentException("a job is a query or an update, got " + (query == null ? "neither" : "both"));
    }
  }

  /** The query {@code --query TEXT} gives; a syntax error is a usage error, as it has always been said. */
  static SparqlJob inline(String text, Function<String, ParameterException> usage) {
    try {
      return new SparqlJob(INLINE, "--query", QueryFactory.create(text), null);
    } catch (QueryParseException e) {
      throw usage.apply(SparqlCommand.syntaxError("query", e));
    }
  }

  /** The query in {@code file}, given to {@code option}; a syntax error is a usage error naming the file. */
  static SparqlJob queryFile(String option, Path file, Function<String, ParameterException> usage) {
    String origin = option + " '" + file + "'";
    String text = FileOption.text(option, file, usage);
    try {
      return new SparqlJob(nameOf(file), origin, QueryFactory.create(text), null);
    } catch (QueryParseException e) {
      throw usage.apply(origin + ": " + SparqlCommand.syntaxError("query", e));
    }
  }

  /** The update request in {@code file}, given to {@code option}; a syntax error is a usage error naming the file. */
  static SparqlJob updateFile(String option, Path file, Function<String, ParameterException> usage) {
    String origin = option + " '" + file + "'";
    String text = FileOption.text(option, file, usage);
    try {
      return new SparqlJob(nameOf(file), origin, null, UpdateFactory.create(text));
    } catch (QueryParseException e) {
      throw usage.apply(origin + ": " + SparqlCommand.syntaxError("update", e));
    }
  }

  /** {@code people} for {@code queries/people.rq}; a name without a dot is kept whole. */
  static String nameOf(Path file) {
    Path fileName = file.getFileName();
    String name = fileName == null ? file.toString() : fileName.toString();
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }

  boolean isUpdate() {
    return update != null;
  }

  /**
   * The name of this query's results file in {@code format}: what a run of the query alone prints,
   * so {@code .txt}, {@code .csv}, {@code .tsv} or {@code .json} for a SELECT or an ASK, and for a
   * graph (CONSTRUCT, DESCRIBE) {@code .ttl}, {@code .nt} (csv, tsv) or {@code .jsonld}.
   */
  String resultsFile(SparqlCommand.Format format) {
    Query asked = java.util.Objects.requireNonNull(query, "an update has no results");
    boolean graph = asked.isConstructType() || asked.isDescribeType();
    String extension = switch (format) {
      case table -> graph ? "ttl" : "txt";
      case csv -> graph ? "nt" : "csv";
      case tsv -> graph ? "nt" : "tsv";
      case json -> graph ? "jsonld" : "json";
    };
    return name + "." + extension;
  }
}

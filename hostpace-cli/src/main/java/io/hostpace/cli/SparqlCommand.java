package io.hostpace.cli;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.jena.HostpaceJena;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.QueryParseException;
import org.apache.jena.query.ResultSet;
import org.apache.jena.query.ResultSetFormatter;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.sparql.engine.http.QueryExceptionHTTP;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code hostpace sparql}: one query through Apache Jena with Hostpace installed. A syntax error
 * is reported with its line and column, exit status 2, and no request is sent; an endpoint that
 * answers with an error prints its status and message, exit status 1.
 */
@Command(name = "sparql", mixinStandardHelpOptions = true,
    description = "Run a SPARQL query through Apache Jena with Hostpace: paced, refusals retried.")
final class SparqlCommand implements java.util.concurrent.Callable<Integer> {

  enum Format { table, csv, tsv, json }

  private final Main.Streams streams;

  @Mixin
  PacingOptions pacing = new PacingOptions();

  @Option(names = "--endpoint", paramLabel = "URL", required = true, description = "the SPARQL endpoint")
  String endpoint = "";

  @ArgGroup(exclusive = true, multiplicity = "1")
  QuerySource source = new QuerySource();

  static final class QuerySource {
    @Option(names = "--query", paramLabel = "TEXT", description = "the query")
    @Nullable String text;

    @Option(names = "--query-file", paramLabel = "FILE", description = "a file holding the query")
    @Nullable Path file;
  }

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
      description = "table, csv, tsv or json (the standard SPARQL results JSON); graphs print as Turtle, "
          + "N-Triples (csv, tsv) or JSON-LD (json). Default: ${DEFAULT-VALUE}")
  Format format = Format.table;

  SparqlCommand(Main.Streams streams) {
    this.streams = streams;
  }

  @Override
  public Integer call() throws IOException {
    String text = queryText();
    Query query;
    try {
      query = QueryFactory.create(text);
    } catch (QueryParseException e) {
      throw pacing.usage(syntaxError(e));
    }
    java.net.URI uri;
    try {
      uri = new java.net.URI(endpoint);
    } catch (java.net.URISyntaxException e) {
      throw pacing.usage("--endpoint '" + endpoint + "' is not a URL: " + e.getMessage());
    }
    if (uri.getScheme() == null || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))
        || uri.getRawAuthority() == null) {
      throw pacing.usage("--endpoint '" + endpoint + "' is not an http or https URL");
    }
    CallContext context = pacing.context();
    long timeoutMillis = pacing.timeout().toMillis();
    Hostpace engine = pacing.engine(event -> {});
    PrintStream out = streams.out();
    try (HostpaceJena.Installation installation = HostpaceJena.install(engine);
        RunEnded ended = () -> pacing.endRun(streams.err())) {
      QueryExecution execution = QueryExecutionHTTP.service(endpoint)
          .query(query)
          .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
          .context(HostpaceJena.contextOf(context))
          .build();
      try (execution) {
        print(query, execution, out);
      }
      out.flush();
      return Main.OK;
    } catch (QueryExceptionHTTP e) {
      streams.err().println("hostpace: " + Printable.line("the endpoint answered " + e.getStatusCode() + ": " + firstLine(message(e))));
      return Main.FAILED;
    } catch (RuntimeException e) {
      streams.err().println("hostpace: " + Printable.line("the query failed: " + firstLine(FetchCommand.describe(e))));
      return Main.FAILED;
    }
  }

  private void print(Query query, QueryExecution execution, PrintStream out) {
    if (query.isSelectType()) {
      ResultSet results = execution.execSelect();
      switch (format) {
        case table -> ResultSetFormatter.out(out, results, query);
        case csv -> ResultSetFormatter.outputAsCSV(out, results);
        case tsv -> ResultSetFormatter.outputAsTSV(out, results);
        case json -> ResultSetFormatter.outputAsJSON(out, results);
      }
    } else if (query.isAskType()) {
      boolean answer = execution.execAsk();
      switch (format) {
        case table -> out.println(answer ? "yes" : "no");
        case csv -> ResultSetFormatter.outputAsCSV(out, answer);
        case tsv -> ResultSetFormatter.outputAsTSV(out, answer);
        case json -> ResultSetFormatter.outputAsJSON(out, answer);
      }
    } else {
      Model model = query.isConstructType() ? execution.execConstruct() : execution.execDescribe();
      Lang lang = switch (format) {
        case table -> Lang.TURTLE;
        case csv, tsv -> Lang.NTRIPLES;
        case json -> Lang.JSONLD;
      };
      RDFDataMgr.write(out, model, lang);
    }
  }

  private String queryText() throws IOException {
    if (source.text != null) {
      return source.text;
    }
    Path file = java.util.Objects.requireNonNull(source.file, "the argument group gives a query or a file");
    return FileOption.text("--query-file", file, pacing::usage);
  }

  private static String message(QueryExceptionHTTP e) {
    String response = e.getResponse();
    if (response != null && !response.isBlank()) {
      return response.strip();
    }
    String message = e.getResponseMessage();
    return message != null ? message : String.valueOf(e.getMessage());
  }

  /**
   * "query syntax error at line 2, column 9: Encountered "<EOF>"": the position as Jena's
   * message gives it (its exception's own fields can point at the token before), said once.
   */
  static String syntaxError(QueryParseException e) {
    String message = firstLine(String.valueOf(e.getMessage()));
    java.util.regex.Matcher at = java.util.regex.Pattern.compile("\\s*at line (-?\\d+), column (-?\\d+)\\.?").matcher(message);
    int line = e.getLine();
    int column = e.getColumn();
    if (at.find()) {
      line = Integer.parseInt(at.group(1));
      column = Integer.parseInt(at.group(2));
      message = (message.substring(0, at.start()) + message.substring(at.end())).strip();
    }
    message = message.replaceFirst("^(Lexical error|Line -?\\d+, column -?\\d+):?\\s*", "");
    return "query syntax error at line " + line + ", column " + column + (message.isEmpty() ? "" : ": " + message);
  }

  private static String firstLine(String text) {
    String stripped = text.strip();
    int newline = stripped.indexOf('\n');
    return newline < 0 ? stripped : stripped.substring(0, newline).strip();
  }

  /** Saves the {@code --state} file however the query ended. */
  private interface RunEnded extends AutoCloseable {
    @Override
    void close();
  }
}

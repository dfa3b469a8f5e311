package io.hostpace.cli;

import io.hostpace.CallContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.jena.query.QueryParseException;
import org.apache.jena.sparql.engine.http.QueryExceptionHTTP;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code hostpace sparql}: queries and updates through Apache Jena with Hostpace installed, all
 * through one engine ({@link QueryBatch}). A syntax error in any of them is reported with its
 * file, line and column, exit status 2, and no request is sent; an endpoint that answers with an
 * error says its status and message, exit status 1; so does one whose answer, results included,
 * is not complete within {@code --timeout} or is longer than {@code --max-body} (SPEC T7), or
 * that could not be reached: one line that says which. One query prints its results; several,
 * or any update, write each query's results to a file of {@code --output-dir} and a summary line
 * per query and update.
 */
@Command(name = "sparql", mixinStandardHelpOptions = true,
    description = "Run SPARQL queries and updates through Apache Jena with Hostpace: one engine paces them all, "
        + "refusals retried.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the query's results were printed; with several, every query and update succeeded",
        "1:the query failed: the endpoint's error, no whole answer, or an answer that is not results;"
            + " with several, any failed (the others ran to their end); or --state could not be saved",
        "2:a usage error or a query syntax error, said in one line: nothing was sent",
        "130:interrupted (Ctrl-C): what ran was abandoned and --state is saved"},
    footerHeading = "%nExamples:%n",
    footer = {"  hostpace sparql --endpoint https://qlever.dev/api/wikidata \\",
        "      --query 'SELECT * { ?s ?p ?o } LIMIT 3'",
        "  hostpace sparql --endpoint https://dbpedia.org/sparql --query-file q.rq \\",
        "      --format json --max-rate 1",
        "  hostpace sparql --endpoint https://query.wikidata.org/sparql \\",
        "      --query-file q.rq --state hosts.tsv",
        "  hostpace sparql --endpoint https://qlever.dev/api/wikidata \\",
        "      --query-file queries/ --query-file 'more/*.rq' --format csv \\",
        "      --output-dir results",
        "  hostpace sparql --endpoint http://localhost:3030/ds \\",
        "      --update-file load.ru --query-file check.rq --output-dir results"})
final class SparqlCommand implements java.util.concurrent.Callable<Integer> {

  enum Format { table, csv, tsv, json }

  /** The files a folder given to --query-file holds queries in, and to --update-file updates. */
  private static final List<String> QUERY_FILES = List.of(".rq", ".sparql");
  private static final List<String> UPDATE_FILES = List.of(".ru");

  private final Main.Streams streams;

  @Mixin
  PacingOptions pacing = new PacingOptions();

  @Option(names = "--endpoint", paramLabel = "URL", required = true, description = "the SPARQL endpoint")
  String endpoint = "";

  @Option(names = "--query", paramLabel = "TEXT", description = "a query")
  @Nullable String text;

  @Option(names = "--query-file", paramLabel = "FILE|DIR|GLOB",
      description = "a file holding a query; a folder, for its .rq and .sparql files, sorted by name; or a glob "
          + "such as 'queries/*.rq', quoted, which the command expands. Repeatable. Each query's name is its "
          + "file's name without the extension; with several, their results go to --output-dir")
  List<String> queryFiles = new ArrayList<>();

  @Option(names = "--update-file", paramLabel = "FILE|DIR|GLOB",
      description = "a file holding a SPARQL Update request, sent to --endpoint as an update; a folder, for its .ru "
          + "files; or a glob. Repeatable. The updates run first, one after another in the order given, then "
          + "the queries")
  List<String> updateFiles = new ArrayList<>();

  @Option(names = "--output-dir", paramLabel = "DIR",
      description = "write each query's results to DIR/NAME.EXT (made if missing): .txt, .csv, .tsv or .json after "
          + "--format, a graph .ttl, .nt or .jsonld; each file appears whole, or not at all. Needed with several "
          + "queries or any update; then each query and update has a summary line on standard error")
  @Nullable Path outputDir;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
      description = "table, csv, tsv or json (the standard SPARQL results JSON); graphs print as Turtle, "
          + "N-Triples (csv, tsv) or JSON-LD (json). Default: ${DEFAULT-VALUE}")
  Format format = Format.table;

  @Option(names = "--max-body", paramLabel = "SIZE", defaultValue = "256MiB",
      description = "the longest results read, such as 500k or 1GiB (k, M, G are powers of 1024); "
          + "longer ones end the query with an error (default ${DEFAULT-VALUE})")
  String maxBody = "256MiB";

  SparqlCommand(Main.Streams streams) {
    this.streams = streams;
  }

  @Override
  public Integer call() throws IOException {
    List<SparqlJob> queries = queries();
    List<SparqlJob> updates = new ArrayList<>();
    for (Path file : SparqlFiles.expand("--update-file", updateFiles, UPDATE_FILES, pacing::usage)) {
      updates.add(SparqlJob.updateFile("--update-file", file, pacing::usage));
    }
    if (queries.isEmpty() && updates.isEmpty()) {
      throw pacing.usage("--query, --query-file or --update-file is needed: nothing to send");
    }
    distinctNames(updates, queries);
    String queriesFrom = text != null ? "--query" : "--query-file";
    if (outputDir == null && queries.size() > 1) {
      throw pacing.usage(queriesFrom + " gives " + queries.size() + " queries: their results need --output-dir DIR");
    }
    if (outputDir == null && !queries.isEmpty() && !updates.isEmpty()) {
      throw pacing.usage(queriesFrom + " with --update-file: the query's results need --output-dir DIR");
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
    if (uri.getHost() == null) {
      throw pacing.usage("--endpoint '" + endpoint + "': " + FetchCommand.unreadableAuthority(uri.getRawAuthority()));
    }
    CallContext context = pacing.context();
    Duration timeout = pacing.timeout();
    long bodyCap = FetchCommand.maxBody(pacing, "--max-body", maxBody);
    ResultsFolder folder = outputDir != null && !queries.isEmpty()
        ? ResultsFolder.of("--output-dir", outputDir, pacing::usage) : null;
    try (JenaDefaultClient held = JenaDefaultClient.hold()) {
      return new QueryBatch(streams, pacing, endpoint, format, context, timeout, bodyCap).run(updates, queries, folder);
    }
  }

  /** The queries of --query or --query-file, parsed; a syntax error is a usage error that says where. */
  private List<SparqlJob> queries() {
    if (text != null && !queryFiles.isEmpty()) {
      throw pacing.usage("--query and --query-file both give queries: give one inline query or query files");
    }
    if (text != null) {
      return List.of(SparqlJob.inline(text, pacing::usage));
    }
    List<SparqlJob> queries = new ArrayList<>();
    for (Path file : SparqlFiles.expand("--query-file", queryFiles, QUERY_FILES, pacing::usage)) {
      queries.add(SparqlJob.queryFile("--query-file", file, pacing::usage));
    }
    return queries;
  }

  /**
   * Two queries or updates of one name would write one results file, and their summary lines and
   * timeout budgets could not be told apart: a usage error that names both.
   */
  private void distinctNames(List<SparqlJob> updates, List<SparqlJob> queries) {
    java.util.Map<String, SparqlJob> byName = new java.util.HashMap<>();
    for (List<SparqlJob> jobs : List.of(updates, queries)) {
      for (SparqlJob job : jobs) {
        SparqlJob before = byName.putIfAbsent(job.name(), job);
        if (before != null) {
          throw pacing.usage(before.origin() + " and " + job.origin() + " both have the name '" + job.name()
              + "', which names a results file and a summary line: rename one");
        }
      }
    }
  }

  /**
   * One line for a query that failed: the endpoint's status and message when it answered with
   * an error; what happened to the exchange, as {@code fetch} says it, when it had no whole
   * answer (never Jena's status of -1 for our own timeout); and, when the answer came whole but
   * cannot be read as results, that, and where, without the parser's own words. A results body
   * cut at {@code --timeout} or {@code --max-body}, or by the connection, is what ended the
   * query, whatever the parser made of the part that came: a parser whose stream fails
   * mid-document reports a syntax error at the last byte it had, and drops the cause. A body
   * that came whole is the parser's to judge before the exchange's: Gson says a JSON document
   * that ends too soon with an {@code EOFException}, which is no closed connection.
   *
   * @param cut how the body of the query's last exchange was cut, or null when it came whole
   */
  static String failure(RuntimeException e, Duration timeout, java.io.@Nullable IOException cut) {
    if (e instanceof QueryExceptionHTTP http && http.getStatusCode() > 0) {
      return "the endpoint answered " + http.getStatusCode() + ": " + firstLine(message(http));
    }
    if (e instanceof org.apache.jena.atlas.web.HttpException http && http.getStatusCode() > 0) {
      // an update's
      String response = http.getResponse();
      String message = response != null && !response.isBlank() ? response.strip()
          : http.getStatusLine() != null ? http.getStatusLine() : String.valueOf(http.getMessage());
      return "the endpoint answered " + http.getStatusCode() + ": " + firstLine(message);
    }
    if (cut != null) {
      return "the query failed: " + FailureMessage.describe(cut, timeout);
    }
    if (isUnreadableResults(e)) {
      return "the endpoint's answer cannot be read as the query's results" + position(e);
    }
    String exchange = FailureMessage.ofExchange(e, timeout);
    if (exchange != null) {
      return "the query failed: " + exchange;
    }
    return "the query failed: " + firstLine(FailureMessage.describe(e, timeout));
  }

  /** A failure of the parsers Jena reads results with (XML, JSON through Gson, CSV, TSV, RDF). */
  private static boolean isUnreadableResults(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.apache.jena.riot.RiotException
          || t instanceof org.apache.jena.sparql.resultset.ResultSetException
          || t instanceof org.apache.jena.atlas.json.JsonException
          || t instanceof javax.xml.stream.XMLStreamException
          || t.getClass().getName().startsWith("com.google.gson.")) {
        return true;
      }
    }
    return false;
  }

  /** Where each of Jena's results parsers says it stopped: StAX, Gson, RIOT, and JavaCC's way. */
  private static final java.util.regex.Pattern POSITION = java.util.regex.Pattern.compile(
      "\\[row,col\\]:\\[(\\d+),(\\d+)\\]|line:? (\\d+),? col(?:umn)?:? (\\d+)");

  /** {@code " (line 1, column 1)"}, where the parser's messages give it; else nothing. */
  private static String position(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      java.util.regex.Matcher found = POSITION.matcher(String.valueOf(t.getMessage()));
      if (found.find()) {
        String line = found.group(1) != null ? found.group(1) : found.group(3);
        String column = found.group(2) != null ? found.group(2) : found.group(4);
        return " (line " + line + ", column " + column + ")";
      }
    }
    return "";
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
   * "query syntax error at line 2, column 9: the query ends too soon": the position as Jena's
   * message gives it (its exception's own fields can point at the token before), said once,
   * and what the parser did not expect, in words.
   */
  static String syntaxError(QueryParseException e) {
    return syntaxError("query", e);
  }

  /** {@link #syntaxError(QueryParseException)} of a {@code what}: "query" or "update". */
  static String syntaxError(String what, QueryParseException e) {
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
    message = plainly(message);
    return what + " syntax error at line " + line + ", column " + column + (message.isEmpty() ? "" : ": " + message);
  }

  /** JavaCC's lexer: {@code Encountered: '32' (32), after prefix "SELEC"}, or {@code <EOF>} for the character. */
  private static final java.util.regex.Pattern LEXICAL =
      java.util.regex.Pattern.compile("Encountered: (?:'(\\d+)' \\(\\d+\\),|<EOF>) after prefix \"(.*)\"");
  /** JavaCC's parser: {@code Encountered " "^" "^ ""}: the token's kind, then its text. */
  private static final java.util.regex.Pattern TOKEN =
      java.util.regex.Pattern.compile("Encountered \" (?:\"(?:[^\"\\\\]|\\\\.)*\"|<[A-Z_0-9]+>) \"(.*) \"\"");

  /**
   * The parser's words, said plainly: JavaCC gives a character as its code ({@code '32' (32)}
   * is a space) and a token twice; say which character or text it did not expect, and after what.
   */
  static String plainly(String message) {
    java.util.regex.Matcher lexical = LEXICAL.matcher(message);
    if (lexical.matches()) {
      String prefix = lexical.group(2).replace("\\\"", "\"");
      String after = prefix.isEmpty() ? "" : " after " + quoted(prefix);
      return lexical.group(1) == null
          ? "the query ends too soon" + after
          : "unexpected " + character(Integer.parseInt(lexical.group(1))) + after;
    }
    if (message.equals("Encountered \"<EOF>\"")) {
      return "the query ends too soon";
    }
    java.util.regex.Matcher token = TOKEN.matcher(message);
    if (token.matches()) {
      return "unexpected " + quoted(token.group(1));
    }
    return message;
  }

  private static String character(int code) {
    return switch (code) {
      case ' ' -> "space";
      case '\t' -> "tab";
      case '\n', '\r' -> "line break";
      default -> Character.isISOControl(code) ? String.format("the character U+%04X", code) : quoted(Character.toString(code));
    };
  }

  private static String quoted(String text) {
    return "'" + text + "'";
  }

  private static String firstLine(String text) {
    String stripped = text.strip();
    int newline = stripped.indexOf('\n');
    return newline < 0 ? stripped : stripped.substring(0, newline).strip();
  }
}

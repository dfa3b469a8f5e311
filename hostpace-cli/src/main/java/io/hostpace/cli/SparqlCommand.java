package io.hostpace.cli;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.jena.HostpaceJena;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.jena.http.HttpEnv;
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
 * answers with an error prints its status and message, exit status 1; so does one whose answer,
 * results included, is not complete within {@code --timeout} or is longer than
 * {@code --max-body} (SPEC T7), or that could not be reached: one line that says which.
 */
@Command(name = "sparql", mixinStandardHelpOptions = true,
    description = "Run a SPARQL query through Apache Jena with Hostpace: paced, refusals retried.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the query's results were printed",
        "1:the query failed: the endpoint's error, no whole answer, or an answer that is not results;"
            + " or --state could not be saved",
        "2:a usage error or a query syntax error, said in one line: nothing was sent",
        "130:interrupted (Ctrl-C): the query was abandoned and --state is saved"},
    footerHeading = "%nExamples:%n",
    footer = {"  hostpace sparql --endpoint https://qlever.dev/api/wikidata \\",
        "      --query 'SELECT * { ?s ?p ?o } LIMIT 3'",
        "  hostpace sparql --endpoint https://dbpedia.org/sparql --query-file q.rq \\",
        "      --format json --max-rate 1",
        "  hostpace sparql --endpoint https://query.wikidata.org/sparql \\",
        "      --query-file q.rq --state hosts.tsv"})
final class SparqlCommand implements java.util.concurrent.Callable<Integer> {

  enum Format { table, csv, tsv, json }

  private final Main.Streams streams;

  /** Whether the run's end saved what hosts taught to --state (or there was none to save to). */
  private boolean saved = true;

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

  @Option(names = "--max-body", paramLabel = "SIZE", defaultValue = "256MiB",
      description = "the longest results read, such as 500k or 1GiB (k, M, G are powers of 1024); "
          + "longer ones end the query with an error (default ${DEFAULT-VALUE})")
  String maxBody = "256MiB";

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
    if (uri.getHost() == null) {
      throw pacing.usage("--endpoint '" + endpoint + "': " + FetchCommand.unreadableAuthority(uri.getRawAuthority()));
    }
    CallContext context = pacing.context();
    Duration timeout = pacing.timeout();
    long bodyCap = FetchCommand.maxBody(pacing, maxBody);
    int status;
    try (JenaDefaultClient held = JenaDefaultClient.hold()) {
      status = query(query, endpoint, context, timeout, bodyCap);
    }
    // What hosts taught that --state could not keep is a failure too: the next run pays for it again.
    return status == Main.OK && !saved ? Main.FAILED : status;
  }

  private int query(Query query, String endpoint, CallContext context, Duration timeout, long bodyCap) {
    PrintStream out = streams.out();
    // Jena sends the query, and any SERVICE clause, through its default client: bounded here, and
    // paced by the installation, which wraps the default it finds. Both are put back at the end.
    HttpClient jenaDefault = HttpEnv.getDftHttpClient();
    BoundedHttpClient bounded = new BoundedHttpClient(jenaDefault, timeout, bodyCap);
    // With the adaptive policy, an endpoint held down is probed with ASK {} (SPEC D6).
    Hostpace engine;
    try {
      engine = pacing.engine(event -> {}, io.hostpace.jena.SparqlProbe.ask(bounded));
    } catch (RuntimeException e) {
      bounded.close();
      throw e;
    }
    HttpEnv.setDftHttpClient(bounded);
    // Ctrl-C abandons the query; the run's thread then saves --state, as at any end.
    java.util.concurrent.atomic.AtomicReference<@Nullable QueryExecution> running = new java.util.concurrent.atomic.AtomicReference<>();
    try (InterruptHook interrupt = InterruptHook.install(() -> {
      QueryExecution execution = running.get();
      if (execution != null) {
        execution.abort();
      }
    })) {
      try (bounded;
          Restored restored = () -> HttpEnv.setDftHttpClient(jenaDefault);
          HostpaceJena.Installation installation = HostpaceJena.install(engine);
          RunEnded ended = () -> saved = pacing.endRun(streams.err())) {
        QueryExecution execution = QueryExecutionHTTP.service(endpoint)
            .query(query)
            .timeout(BoundedHttpClient.backstop(timeout).toMillis(), TimeUnit.MILLISECONDS)
            .context(HostpaceJena.contextOf(context))
            .build();
        running.set(execution);
        if (interrupt.interrupted()) {
          execution.abort();
        }
        try (execution) {
          print(query, execution, out);
        }
        out.flush();
        return interrupt.interrupted() ? interrupted() : Main.OK;
      } catch (RuntimeException e) {
        if (interrupt.interrupted()) {
          return interrupted();
        }
        streams.err().println("hostpace: " + Printable.line(failure(e, timeout, bounded.lastCut())));
        return Main.FAILED;
      }
    }
  }

  private int interrupted() {
    streams.err().println("hostpace: interrupted: the query was abandoned"
        + (pacing.state != null ? "; what hosts taught is saved in " + Printable.line(pacing.state.toString()) : ""));
    return Main.INTERRUPTED;
  }

  /**
   * One line for a query that failed: the endpoint's status and message when it answered with
   * an error; what happened to the exchange, as {@code fetch} says it, when it had no whole
   * answer (never Jena's status of -1 for our own timeout); and, when the answer came whole but
   * cannot be read as results, that, and where, without the parser's own words. A results body
   * cut at {@code --timeout} or {@code --max-body} is what ended the query, whatever the parser
   * made of the part that came: a parser whose stream fails mid-document reports a syntax error
   * at the last byte it had, and drops the cause.
   *
   * @param cut how the body of the query's last exchange was cut, or null when it was not
   */
  static String failure(RuntimeException e, Duration timeout, @Nullable BodyCutException cut) {
    if (e instanceof QueryExceptionHTTP http && http.getStatusCode() > 0) {
      return "the endpoint answered " + http.getStatusCode() + ": " + firstLine(message(http));
    }
    if (cut != null) {
      return "the query failed: " + FailureMessage.describe(cut, timeout);
    }
    String exchange = FailureMessage.ofExchange(e, timeout);
    if (exchange != null) {
      return "the query failed: " + exchange;
    }
    if (isUnreadableResults(e)) {
      return "the endpoint's answer cannot be read as the query's results" + position(e);
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
   * "query syntax error at line 2, column 9: the query ends too soon": the position as Jena's
   * message gives it (its exception's own fields can point at the token before), said once,
   * and what the parser did not expect, in words.
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
    message = plainly(message);
    return "query syntax error at line " + line + ", column " + column + (message.isEmpty() ? "" : ": " + message);
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

  /** Puts Jena's default client back however the query ended. */
  private interface Restored extends AutoCloseable {
    @Override
    void close();
  }

  /** Saves the {@code --state} file however the query ended. */
  private interface RunEnded extends AutoCloseable {
    @Override
    void close();
  }
}

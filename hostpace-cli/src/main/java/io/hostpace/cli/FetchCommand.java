package io.hostpace.cli;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.jdk.PacedHttpClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code hostpace fetch}: every URL through one engine, a JSON line per URL as each finishes,
 * and a table per host at the end. Exit status 0 when every URL got a whole HTTP answer, whatever
 * its status; 1 when any did not (no answer, or a body cut at {@code --timeout} or
 * {@code --max-body}, SPEC T7); 2 for a usage error, before anything is fetched; 130 for a run
 * ended by Ctrl-C, which stops sending, prints the summary of what was done and saves
 * {@code --state} ({@link InterruptHook}).
 *
 * <p>{@code --save DIR} keeps each URL's last answer's body, whatever its status, in a file of
 * DIR ({@link SaveFolder}, {@link SavedName}); the body of a refusal that was retried is never
 * kept. A URL given twice is fetched and saved once. {@code --resume} goes on with a run that
 * stopped: the URLs its {@code --output} already holds as done ({@link FetchLog}) are skipped,
 * and the new records are appended.
 *
 * <p>{@code --respect-robots} asks each host for its robots.txt before its first URL, and paces
 * the host at the {@code Crawl-delay} it asks, unless the limits given are as slow ({@link RobotsPace}).
 */
@Command(name = "fetch", mixinStandardHelpOptions = true,
    description = "Fetch URLs through Hostpace: paced per host, refusals retried, a JSON line per URL.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:every URL got a whole HTTP answer, whatever its status",
        "1:a URL got no whole answer: none came, or its body was cut at --timeout or --max-body"
            + " or could not be saved (--save); or --state could not be saved",
        "2:a usage error, said in one line that names the option: nothing was fetched",
        "130:interrupted (Ctrl-C): what was done is summed up and --state is saved"},
    footerHeading = "%nExamples:%n",
    footer = {"  hostpace fetch --max-rate 1 https://example.org/a https://example.org/b",
        "  hostpace fetch --input urls.txt --host 'qlever.dev=inFlight:1,perSecond:1' \\",
        "      --output results.jsonl",
        "  hostpace fetch --state hosts.tsv --retries 10 --input - \\",
        "      < urls.txt > out.jsonl",
        "  hostpace fetch --input urls.txt --save pages --output results.jsonl",
        "  hostpace fetch --input urls.txt --save pages --output results.jsonl --resume"})
final class FetchCommand implements java.util.concurrent.Callable<Integer> {

  private final Main.Streams streams;

  @Mixin
  PacingOptions pacing = new PacingOptions();

  @Parameters(paramLabel = "URL", arity = "0..*", description = "the URLs to fetch")
  List<String> urls = new ArrayList<>();

  @Option(names = "--input", paramLabel = "FILE",
      description = "URLs one a line ('-' is standard input; blank lines and lines starting with # are skipped)")
  @Nullable String input;

  @Option(names = "--method", paramLabel = "M", description = "the method (default GET, or POST with --data)")
  @Nullable String method;

  @Option(names = "--header", paramLabel = "'Name: value'", description = "a request header; repeatable")
  List<String> headers = new ArrayList<>();

  @Option(names = "--data", paramLabel = "TEXT|@FILE", description = "the request body, or @FILE to read it from a file")
  @Nullable String data;

  @Option(names = "--max-body", paramLabel = "SIZE", defaultValue = "64MiB",
      description = "the longest body read, such as 500k or 64MiB (k, M, G are powers of 1024); "
          + "a longer one is cut and its URL's record says so (default ${DEFAULT-VALUE})")
  String maxBody = "64MiB";

  @Option(names = "--output", paramLabel = "FILE",
      description = "where the JSON lines go, in folders made if missing; - is standard output, the default")
  @Nullable Path output;

  @Option(names = "--save", paramLabel = "DIR",
      description = "keep each URL's body in a file of DIR (made if missing), named after the URL: host, path and "
          + "query where safe, then _ and 12 hex digits of the URL's SHA-256; its record's \"file\" names it. "
          + "The last answer's body is kept, whatever its status; a refusal retried, or a body cut at --timeout or "
          + "--max-body, leaves no file. A URL given twice is fetched once")
  @Nullable Path save;

  @Option(names = "--resume",
      description = "go on with a run that stopped: skip the URLs that --output FILE already holds a record of with "
          + "a 2xx status and a whole body (with --save, its file there with its bytes), and append to FILE. "
          + "A last line cut short is dropped. With --state, at the pace the hosts had")
  boolean resume;

  @Option(names = "--respect-robots",
      description = "before a host's first request, read its /robots.txt (once, paced as any request to the host; "
          + "its other requests wait for it) and pace the host at one request per the Crawl-delay it asks of the "
          + "User-Agent's product token, else of *, counted from the robots.txt's answer, unless the limits given "
          + "are as slow: the slower holds. "
          + "A robots.txt missing, unreachable or without a delay changes nothing; Disallow is not read")
  boolean respectRobots;

  @Option(names = "--quiet", description = "no summary, and no progress line unless --progress")
  boolean quiet;

  @Option(names = "--progress", negatable = true,
      description = "--progress draws the progress line on standard error, --no-progress does not; by default it is "
          + "drawn when standard error is a terminal (on Linux, when /proc/self/fd/2 names a /dev/pts or /dev/tty "
          + "device; elsewhere, when the JVM has a console) and --quiet is not given")
  @Nullable Boolean progress;

  FetchCommand(Main.Streams streams) {
    this.streams = streams;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    // Every usage error is found before anything is fetched.
    List<String> targets = targets();
    CallContext context = pacing.context();
    java.time.Duration timeout = pacing.timeout();
    long bodyCap = maxBody(pacing, "--max-body", maxBody);
    byte[] body = body();
    String verb = method != null ? method.strip().toUpperCase(Locale.ROOT) : body != null ? "POST" : "GET";
    if (!verb.matches("[A-Z][A-Z0-9_-]*")) {
      throw pacing.usage("--method '" + method + "' is not a method name: " + METHODS);
    }
    if (verb.equals("CONNECT")) {
      // The JDK client refuses to build it: CONNECT opens a tunnel through a proxy, which it does itself.
      throw pacing.usage("--method '" + method + "' cannot be used: Java's HTTP client does not send CONNECT; " + METHODS);
    }
    List<String[]> requestHeaders = headers();
    if (output != null && output.toString().equals("-")) {
      output = null; // standard output, as '-' is standard input for --input
    }
    if (resume && output == null) {
      throw pacing.usage("--resume needs --output FILE: it reads the records of the run it goes on with there, "
          + "and appends to them");
    }
    if (output != null) {
      FileOption.writableWithFoldersMade("--output", output, pacing::usage);
    }
    FetchLog done = resume && output != null ? FetchLog.read(output, pacing::usage) : null;
    SaveFolder folder = save != null ? SaveFolder.of("--save", save, pacing::usage) : null;
    int given = targets.size();
    int skipped = 0;
    int twice = 0;
    java.util.Set<String> seen = new java.util.HashSet<>();
    List<String> todo = new ArrayList<>();
    for (String target : targets) {
      if (done != null && done.done(io.hostpace.internal.Redaction.userInfo(target), folder)) {
        skipped++;
      } else if (folder != null && !seen.add(target)) {
        twice++; // one URL, one file: fetched and saved once
      } else {
        todo.add(target);
      }
    }
    targets = todo;
    if (folder != null && resume) {
      folder.deleteLeftovers(); // the bodies the stopped run was writing
    }
    HostSummary summary = new HostSummary();
    HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).build();
    // With the adaptive policy, a host held down is probed with a HEAD of its root (SPEC D6).
    Hostpace engine = pacing.engine(summary, io.hostpace.jdk.HttpProbe.head(http));

    OutputStream sink = output == null ? streams.out() : done != null ? done.append(output) : Files.newOutputStream(output);
    long start = System.nanoTime();
    // The calls as sent, to cancel on Ctrl-C: what waits leaves its queue, what is in flight its place.
    List<CompletableFuture<?>> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (SaveFolder saving = folder; PrintStream records = new PrintStream(sink, true, StandardCharsets.UTF_8);
        InterruptHook interrupt = InterruptHook.install(() -> sent.forEach(call -> call.cancel(true)))) {
      // Each attempt's whole answer is held to --timeout, the request's, and its body to --max-body (SPEC T7).
      PacedHttpClient client = PacedHttpClient.wrap(http, engine).withMaxBodyBytes(bodyCap);
      int width = Terminal.columns(System.getenv());
      boolean drawn = progress != null ? progress : !quiet && Terminal.ofThisProcess().standardErrorIsTerminal();
      Progress shown = Progress.start(engine, targets.size(), drawn ? streams.err() : null, io.hostpace.Clock.system(), width);
      AtomicInteger incomplete = new AtomicInteger();
      List<CompletableFuture<Void>> calls = new ArrayList<>();
      java.util.function.Consumer<CompletableFuture<?>> onSent = call -> {
        sent.add(call);
        if (interrupt.interrupted()) {
          call.cancel(true); // sent as the hook cancelled the others
        }
      };
      RobotsPace robots = respectRobots ? new RobotsPace(engine, client, context, timeout, pacing::context, onSent) : null;
      for (String target : targets) {
        if (interrupt.interrupted()) {
          break; // Ctrl-C: nothing more is sent
        }
        // With --respect-robots, a host's URLs wait for its robots.txt, and go with the context it gave.
        CompletableFuture<CallContext> hostContext =
            robots == null ? CompletableFuture.completedFuture(context) : robots.contextOf(target);
        calls.add(hostContext.thenCompose(paced -> interrupt.interrupted()
                ? CompletableFuture.completedFuture(CANCELLED) // Ctrl-C while the robots.txt was awaited
                : fetch(client, paced, target, verb, requestHeaders, body, timeout, summary, saving, onSent))
            .thenAccept(record -> {
              if (record == CANCELLED) {
                return; // not done: stopped by Ctrl-C
              }
              if (!record.complete()) {
                incomplete.incrementAndGet();
              }
              synchronized (records) {
                records.println(record.toJson());
              }
              summary.finished(record);
              shown.done();
            }));
      }
      CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).join();
      shown.stop();
      if (saving != null) {
        saving.close(); // the bodies of calls cancelled by Ctrl-C are not kept
      }
      boolean saved = pacing.endRun(streams.err());
      if (!quiet) {
        if (resume) {
          streams.err().println("resumed: " + skipped + " of " + Counted.of(given, "URL", "URLs")
              + " were done in " + Printable.line(String.valueOf(output)) + " and were skipped");
        }
        if (twice > 0) {
          streams.err().println("saved once: " + Counted.of(twice, "URL was", "URLs were") + " given again");
        }
        summary.print(streams.err(), width, java.time.Duration.ofNanos(System.nanoTime() - start), targets.size());
      }
      if (interrupt.interrupted()) {
        streams.err().println("hostpace: interrupted: the URLs not done were not fetched"
            + (pacing.state != null && saved ? "; what hosts taught is saved in " + Printable.line(pacing.state.toString()) : ""));
        return Main.INTERRUPTED;
      }
      // What hosts taught that --state could not keep is a failure too: the next run pays for it again.
      return incomplete.get() == 0 && saved ? Main.OK : Main.FAILED;
    }
  }

  /** The methods {@code --method} takes, for its usage errors. */
  private static final String METHODS = "expected GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE or another "
      + "name of letters, digits, '-' and '_', in any case";

  /** What a call stopped by Ctrl-C gives: not a record, as it was not done. */
  private static final FetchRecord CANCELLED = new FetchRecord("", FetchRecord.NO_ANSWER, 0, 0, 0, 0, "cancelled");

  private CompletableFuture<FetchRecord> fetch(PacedHttpClient client, CallContext context, String target,
      String verb, List<String[]> requestHeaders, byte @Nullable [] body, java.time.Duration timeout,
      HostSummary summary, @Nullable SaveFolder folder, java.util.function.Consumer<CompletableFuture<?>> onSent) {
    long start = System.nanoTime();
    AttemptClock clock = new AttemptClock(start);
    URI uri;
    HttpRequest request;
    try {
      uri = uri(target);
      HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(timeout)
          .method(verb, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
      for (String[] header : requestHeaders) {
        builder.header(header[0], header[1]);
      }
      request = builder.build();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(new FetchRecord(target, FetchRecord.NO_ANSWER, 0, 0, 0, 0, e.getMessage()));
    }
    CallContext timed = context.toBuilder().attemptListener(clock).build();
    String name = folder == null ? null : SavedName.of(target);
    CompletableFuture<java.net.http.HttpResponse<Long>> call = client.withContext(timed)
        .sendAsync(request, folder == null || name == null ? ByteCounter.HANDLER : folder.handler(name));
    onSent.accept(call);
    return call.handle((response, failure) -> {
          if (failure instanceof java.util.concurrent.CancellationException) {
            return CANCELLED;
          }
          FetchRecord record;
          if (failure == null) {
            record = new FetchRecord(target, response.statusCode(), clock.attempts(), clock.elapsedMillis(),
                clock.waitedMillis(), response.body(), name, null);
          } else {
            // A body cut at its deadline or its cap keeps the status its headers had, and its count.
            io.hostpace.jdk.BodyCut cut = FailureMessage.cutOf(failure);
            record = new FetchRecord(target, cut != null ? cut.status() : FetchRecord.NO_ANSWER, clock.attempts(),
                clock.elapsedMillis(), clock.waitedMillis(), cut != null ? cut.bytes() : 0,
                FailureMessage.describe(failure, timeout));
          }
          summary.outcome(uri, record);
          return record;
        });
  }

  /**
   * The bytes of a size option such as {@code --max-body}, or a usage error that names the
   * option, {@code option}, and the value.
   */
  static long maxBody(PacingOptions pacing, String option, String value) {
    try {
      return ByteSize.parse(value);
    } catch (IllegalArgumentException e) {
      throw pacing.usage(option + " " + e.getMessage());
    }
  }

  /** A URL as the user wrote it, or a usage of its own: an invalid URL is its record's error. */
  private static URI uri(String target) {
    URI uri;
    try {
      uri = new URI(target);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("invalid URL: " + e.getMessage());
    }
    String scheme = uri.getScheme();
    if (scheme == null) {
      throw new IllegalArgumentException("invalid URL: no scheme, expected http:// or https://");
    }
    if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")) {
      throw new IllegalArgumentException("unsupported scheme '" + scheme + "': expected http or https");
    }
    if (uri.getRawAuthority() == null || uri.getRawAuthority().isEmpty()) {
      throw new IllegalArgumentException("invalid URL: no host");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("invalid URL: " + unreadableAuthority(uri.getRawAuthority()));
    }
    return uri;
  }

  /**
   * Why Java's HTTP client refuses a URL whose authority {@link URI} could not read as a host and
   * a port (it then has no host, and the client says only "unsupported URI"), in the user's
   * terms: {@code 127.1} is an address that browsers and {@code ping} widen to 127.0.0.1, which
   * Java does not; a host name of {@code _}, or of other letters than ASCII's, is not one either.
   */
  static String unreadableAuthority(String authority) {
    String hostAndPort = authority.substring(authority.lastIndexOf('@') + 1);
    int colon = hostAndPort.lastIndexOf(':');
    String host = hostAndPort;
    if (colon >= 0 && !hostAndPort.startsWith("[")) {
      host = hostAndPort.substring(0, colon);
      String port = hostAndPort.substring(colon + 1);
      if (!port.matches("[0-9]*")) {
        return "the port '" + port + "' is not a number";
      }
    }
    String refused = "the host '" + host + "' is not one Java's HTTP client accepts: ";
    if (host.matches("[0-9.]+")) {
      return refused + "write the IP address in full, four numbers such as 127.0.0.1";
    }
    if (!host.chars().allMatch(c -> c < 0x80)) {
      return refused + "write the name in its ASCII form (xn--...)";
    }
    return refused + "a host name is letters, digits and '-' between dots, its last part starting with a letter";
  }

  private List<String> targets() throws IOException {
    List<String> targets = new ArrayList<>(urls);
    if (input != null) {
      BufferedReader reader;
      if (input.equals("-")) {
        reader = new BufferedReader(new InputStreamReader(streams.in(), StandardCharsets.UTF_8));
      } else {
        Path file = FileOption.readable("--input", FileOption.path("--input", input, pacing::usage), pacing::usage);
        reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
      }
      int lines = 0;
      try (reader) {
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          lines++;
          String url = line.strip();
          if (!url.isEmpty() && !url.startsWith("#")) {
            targets.add(url);
          }
        }
      } catch (java.nio.charset.CharacterCodingException e) {
        throw pacing.usage("--input '" + input + "' is not UTF-8 text: line " + (lines + 1));
      } catch (IOException e) {
        throw pacing.usage("--input '" + input + "' cannot be read: " + Main.failure(e));
      }
    }
    if (targets.isEmpty()) {
      throw pacing.usage("no URL to fetch: give URLs as arguments or --input FILE");
    }
    return targets;
  }

  private byte @Nullable [] body() throws IOException {
    if (data == null) {
      return null;
    }
    if (!data.startsWith("@")) {
      return data.getBytes(StandardCharsets.UTF_8);
    }
    return FileOption.bytes("--data", FileOption.path("--data", data.substring(1), pacing::usage), pacing::usage);
  }

  private List<String[]> headers() {
    List<String[]> parsed = new ArrayList<>();
    for (String text : headers) {
      HeaderOption header = HeaderOption.parse("--header", text, pacing::usage);
      parsed.add(new String[] {header.name(), header.value()});
    }
    return parsed;
  }
}

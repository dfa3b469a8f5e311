package io.hostpace.cli;

import io.hostpace.CallContext;
import io.hostpace.HostSnapshot;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * {@code --max-body}, SPEC T7); 2 for a usage error, before anything is fetched.
 */
@Command(name = "fetch", mixinStandardHelpOptions = true,
    description = "Fetch URLs through Hostpace: paced per host, refusals retried, a JSON line per URL.")
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

  @Option(names = "--output", paramLabel = "FILE", description = "where the JSON lines go (default: standard output)")
  @Nullable Path output;

  @Option(names = "--quiet", description = "no progress and no summary")
  boolean quiet;

  FetchCommand(Main.Streams streams) {
    this.streams = streams;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    // Every usage error is found before anything is fetched.
    List<String> targets = targets();
    CallContext context = pacing.context();
    java.time.Duration timeout = pacing.timeout();
    long bodyCap = maxBody(pacing, maxBody);
    byte[] body = body();
    String verb = method != null ? method.strip().toUpperCase(Locale.ROOT) : body != null ? "POST" : "GET";
    if (!verb.matches("[A-Z][A-Z0-9_-]*")) {
      throw pacing.usage("--method '" + method + "' is not a method name");
    }
    List<String[]> requestHeaders = headers();
    if (output != null) {
      FileOption.writable("--output", output, pacing::usage);
    }
    HostSummary summary = new HostSummary();
    BoundedHttpClient bounded = new BoundedHttpClient(
        HttpClient.newBuilder().connectTimeout(timeout).build(), timeout, bodyCap);
    // With the adaptive policy, a host held down is probed with a HEAD of its root (SPEC D6).
    Hostpace engine;
    try {
      engine = pacing.engine(summary, io.hostpace.jdk.HttpProbe.head(bounded));
    } catch (RuntimeException e) {
      bounded.close();
      throw e;
    }

    OutputStream sink = output != null ? Files.newOutputStream(output) : streams.out();
    try (bounded; PrintStream records = new PrintStream(sink, true, StandardCharsets.UTF_8)) {
      PacedHttpClient client = PacedHttpClient.wrap(bounded, engine);
      Progress progress = new Progress(engine, targets.size(), quiet || System.console() == null ? null : streams.err());
      AtomicInteger incomplete = new AtomicInteger();
      List<CompletableFuture<Void>> calls = new ArrayList<>();
      for (String target : targets) {
        calls.add(fetch(client, context, target, verb, requestHeaders, body, timeout, summary).thenAccept(record -> {
          if (!record.complete()) {
            incomplete.incrementAndGet();
          }
          synchronized (records) {
            records.println(record.toJson());
          }
          progress.done();
        }));
      }
      CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).join();
      progress.stop();
      pacing.endRun(streams.err());
      if (!quiet) {
        summary.print(streams.err());
      }
      return incomplete.get() == 0 ? Main.OK : Main.FAILED;
    }
  }

  private CompletableFuture<FetchRecord> fetch(PacedHttpClient client, CallContext context, String target,
      String verb, List<String[]> requestHeaders, byte @Nullable [] body, java.time.Duration timeout,
      HostSummary summary) {
    long start = System.nanoTime();
    AttemptClock clock = new AttemptClock(start);
    URI uri;
    HttpRequest request;
    try {
      uri = uri(target);
      HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(BoundedHttpClient.backstop(timeout))
          .method(verb, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
      for (String[] header : requestHeaders) {
        builder.header(header[0], header[1]);
      }
      request = builder.build();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(new FetchRecord(target, FetchRecord.NO_ANSWER, 0, 0, 0, 0, e.getMessage()));
    }
    CallContext timed = context.toBuilder().attemptListener(clock).build();
    return client.withContext(timed)
        .sendAsync(request, ByteCounter.HANDLER)
        .handle((response, failure) -> {
          FetchRecord record;
          if (failure == null) {
            record = new FetchRecord(target, response.statusCode(), clock.attempts(), clock.elapsedMillis(),
                clock.waitedMillis(), response.body(), null);
          } else {
            // A body cut at its deadline or its cap keeps the status its headers had, and its count.
            BodyCutException cut = FailureMessage.cause(failure, BodyCutException.class);
            record = new FetchRecord(target, cut != null ? cut.status() : FetchRecord.NO_ANSWER, clock.attempts(),
                clock.elapsedMillis(), clock.waitedMillis(), cut != null ? cut.bytes() : 0,
                FailureMessage.describe(failure, timeout));
          }
          summary.outcome(uri, record);
          return record;
        });
  }

  /** The bytes of {@code --max-body}, or a usage error that names the option and the value. */
  static long maxBody(PacingOptions pacing, String value) {
    try {
      return ByteSize.parse(value);
    } catch (IllegalArgumentException e) {
      throw pacing.usage("--max-body " + e.getMessage());
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
    return uri;
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

  /** A progress line on standard error, while it runs, when that is a terminal. */
  private static final class Progress {
    private final Hostpace engine;
    private final int total;
    private final @Nullable PrintStream terminal;
    private final AtomicInteger done = new AtomicInteger();
    private final @Nullable ScheduledExecutorService ticker;

    Progress(Hostpace engine, int total, @Nullable PrintStream terminal) {
      this.engine = engine;
      this.total = total;
      this.terminal = terminal;
      if (terminal == null) {
        ticker = null;
        return;
      }
      ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "hostpace-progress");
        thread.setDaemon(true);
        return thread;
      });
      ticker.scheduleAtFixedRate(this::print, 200, 200, TimeUnit.MILLISECONDS);
    }

    void done() {
      done.incrementAndGet();
    }

    private void print() {
      // Only a terminal starts the ticker that calls this.
      PrintStream out = terminal;
      if (out == null) {
        return;
      }
      int inFlight = 0;
      int waiting = 0;
      for (HostSnapshot host : engine.snapshot()) {
        if (!host.group()) {
          inFlight += host.inFlight();
          waiting += host.waiting();
        }
      }
      out.printf("\r%d of %d done, %d in flight, %d waiting   ", done.get(), total, inFlight, waiting);
      out.flush();
    }

    void stop() {
      if (ticker != null && terminal != null) {
        ticker.shutdownNow();
        print();
        terminal.println();
      }
    }
  }
}

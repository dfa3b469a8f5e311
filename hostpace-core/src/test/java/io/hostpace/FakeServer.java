package io.hostpace;

import io.hostpace.testing.ScriptedExchange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Servers in virtual time, for the engine's tests: each request is answered by a script after
 * a latency, and every start is written to a log that reads like a trace, {@code "0.000 GET
 * http://a.test/1"}, in seconds since the server was made.
 */
final class FakeServer {

  /** A response as the fake exchange hands it to the engine. */
  record Response(URI uri, int status, Map<String, String> headers, int attempt) {
    boolean discarded(FakeServer server) {
      return server.discarded.contains(this);
    }
  }

  /** What the script answers: a status and headers after a latency, a failure, or nothing ever. */
  record Reply(int status, Map<String, String> headers, Duration latency, @Nullable RuntimeException failure,
      boolean hang) {
    static Reply ok() {
      return status(200);
    }

    static Reply status(int status) {
      return new Reply(status, Map.of(), Duration.ofMillis(100), null, false);
    }

    static Reply refuse(int status, String retryAfter) {
      return new Reply(status, Map.of("retry-after", retryAfter), Duration.ofMillis(100), null, false);
    }

    static Reply fail(RuntimeException failure) {
      return new Reply(0, Map.of(), Duration.ofMillis(100), failure, false);
    }

    /** The attempt's connection dies before any byte of an answer, as a pooled one the server closed while idle. */
    static Reply deadConnection() {
      return fail(new DeadConnection());
    }

    static Reply never() {
      return new Reply(0, Map.of(), Duration.ZERO, null, true);
    }

    Reply after(Duration latency) {
      return new Reply(status, headers, latency, failure, hang);
    }

    Reply header(String name, String value) {
      Map<String, String> more = new HashMap<>(headers);
      more.put(name.toLowerCase(Locale.ROOT), value);
      return new Reply(status, Map.copyOf(more), latency, failure, hang);
    }
  }

  /** The failure of {@link Reply#deadConnection()}, which the fake exchange says died before any answer (SPEC T6). */
  static final class DeadConnection extends UncheckedIOException {
    DeadConnection() {
      super(new IOException("unexpected end of stream"));
    }
  }

  final VirtualTime time;
  private final long origin;
  private Function<FakeExchange, Reply> script;
  final List<String> log = new ArrayList<>();
  final List<Response> discarded = new ArrayList<>();
  final Map<String, Integer> inFlight = new HashMap<>();
  final Map<String, Integer> maxInFlight = new HashMap<>();
  final Map<String, List<Long>> startsByHost = new HashMap<>();

  /** The virtual time the server started at; its log's times count from it. */
  long origin() {
    return origin;
  }

  FakeServer(VirtualTime time, Function<FakeExchange, Reply> script) {
    this.time = time;
    this.origin = time.nanoTime();
    this.script = script;
  }

  void script(Function<FakeExchange, Reply> script) {
    this.script = script;
  }

  FakeExchange get(String uri) {
    return new FakeExchange(URI.create(uri), "GET", true);
  }

  FakeExchange post(String uri, boolean canResend) {
    return new FakeExchange(URI.create(uri), "POST", canResend);
  }

  /** Seconds since the server was made, as the log writes them. */
  String now() {
    return String.format(Locale.ROOT, "%.3f", (time.nanoTime() - origin) / 1e9);
  }

  /** The starts of the log, as "seconds path" of each, e.g. {@code "1.000 /2"}. */
  List<String> starts() {
    List<String> starts = new ArrayList<>();
    for (String line : log) {
      String[] parts = line.split(" ");
      starts.add(parts[0] + " " + URI.create(parts[2]).getPath());
    }
    return starts;
  }

  /** The times in seconds of the starts whose URI contains {@code part}. */
  List<String> startTimes(String part) {
    List<String> times = new ArrayList<>();
    for (String line : log) {
      if (line.contains(part)) {
        times.add(line.split(" ")[0]);
      }
    }
    return times;
  }

  /** One call's exchange with this server. */
  class FakeExchange extends ScriptedExchange<Response> {
    final URI uri;
    final String method;
    int sends;
    @Nullable CompletableFuture<Response> pending;

    FakeExchange(URI uri, String method, boolean canResend) {
      super(ScriptedExchange.builder(uri, Response::status).method(method).canResend(canResend)
          .headers((response, name) -> response.headers().get(name.toLowerCase(Locale.ROOT))));
      this.uri = uri;
      this.method = method;
    }

    @Override
    public CompletableFuture<Response> send() {
      sends++;
      int attempt = sends;
      String host = uri.getAuthority().toLowerCase(Locale.ROOT);
      log.add(now() + " " + method + " " + uri);
      int now = inFlight.merge(host, 1, Integer::sum);
      maxInFlight.merge(host, now, Math::max);
      startsByHost.computeIfAbsent(host, h -> new ArrayList<>()).add(time.nanoTime());
      Reply reply = script.apply(this);
      CompletableFuture<Response> future = new CompletableFuture<>();
      pending = future;
      boolean[] served = {false};
      future.whenComplete((r, t) -> {
        if (!served[0]) {
          inFlight.merge(host, -1, Integer::sum); // cancelled by the engine
        }
      });
      if (reply.hang()) {
        return future;
      }
      time.schedule(() -> {
        if (future.isDone()) {
          return;
        }
        served[0] = true;
        inFlight.merge(host, -1, Integer::sum); // the server is done before its answer is heard
        if (reply.failure() != null) {
          future.completeExceptionally(reply.failure());
        } else {
          future.complete(new Response(uri, reply.status(), reply.headers(), attempt));
        }
      }, reply.latency().toNanos());
      return future;
    }

    @Override
    public void discard(Response response) {
      discarded.add(response);
    }

    @Override
    public boolean diedBeforeAnswer(Throwable failure) {
      return failure instanceof DeadConnection;
    }
  }
}

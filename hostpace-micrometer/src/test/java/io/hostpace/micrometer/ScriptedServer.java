package io.hostpace.micrometer;

import io.hostpace.VirtualTime;
import io.hostpace.spi.Exchange;
import io.hostpace.testing.ScriptedExchange;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Servers in virtual time for the metrics' tests: each attempt is answered by a script, given
 * the URI and the attempt's number, after the reply's latency.
 */
final class ScriptedServer {

  /** An answer: a status and headers, after a latency. */
  record Reply(int status, Map<String, String> headers, Duration latency) {
    static Reply ok() {
      return new Reply(200, Map.of(), Duration.ofMillis(100));
    }

    static Reply status(int status) {
      return new Reply(status, Map.of(), Duration.ofMillis(100));
    }

    static Reply refuse(int status, String retryAfter) {
      return new Reply(status, Map.of("retry-after", retryAfter), Duration.ofMillis(100));
    }

    Reply after(Duration latency) {
      return new Reply(status, headers, latency);
    }
  }

  /** A response as the exchange hands it to the engine. */
  record Response(int status, Map<String, String> headers) {}

  private final VirtualTime time;
  private final BiFunction<URI, Integer, Reply> script;

  ScriptedServer(VirtualTime time, BiFunction<URI, Integer, Reply> script) {
    this.time = time;
    this.script = script;
  }

  Exchange<Response> get(String uri) {
    URI target = URI.create(uri);
    return ScriptedExchange.builder(target, Response::status)
        .headers((response, name) -> response.headers().get(name.toLowerCase(Locale.ROOT)))
        .answers(attempt -> {
          Reply reply = script.apply(target, attempt);
          return ScriptedExchange.after(time, reply.latency().toNanos(), new Response(reply.status(), reply.headers()));
        })
        .build();
  }
}

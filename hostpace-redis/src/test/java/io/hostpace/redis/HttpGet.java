package io.hostpace.redis;

import io.hostpace.testing.ScriptedExchange;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A GET over the JDK's own HTTP client, as the engine's exchange: what the tests of fleets send to
 * a real server on 127.0.0.1 without depending on an adapter's module. The future completes once
 * the whole (small) body is read, so the engine holds the request's place a little longer than the
 * server counts it in flight, never shorter.
 */
final class HttpGet extends ScriptedExchange<HttpResponse<String>> {

  HttpGet(HttpClient client, URI uri) {
    super(ScriptedExchange.builder(uri, HttpResponse<String>::statusCode)
        .headers((response, name) -> response.headers().firstValue(name).orElse(null))
        .answers(attempt -> client.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
            HttpResponse.BodyHandlers.ofString())));
  }

  /** A client for these tests: HTTP/1.1, a connect timeout of 5 s. */
  static HttpClient client() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  }
}

package io.hostpace.redis;

import io.hostpace.spi.Exchange;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A GET over the JDK's own HTTP client, as the engine's exchange: what the tests of fleets send to
 * a real server on 127.0.0.1 without depending on an adapter's module. The future completes once
 * the whole (small) body is read, so the engine holds the request's place a little longer than the
 * server counts it in flight, never shorter.
 */
final class HttpGet implements Exchange<HttpResponse<String>> {

  private final HttpClient client;
  private final URI uri;

  HttpGet(HttpClient client, URI uri) {
    this.client = client;
    this.uri = uri;
  }

  /** A client for these tests: HTTP/1.1, a connect timeout of 5 s. */
  static HttpClient client() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  }

  @Override
  public URI uri() {
    return uri;
  }

  @Override
  public String method() {
    return "GET";
  }

  @Override
  public boolean canResend() {
    return true;
  }

  @Override
  public CompletableFuture<HttpResponse<String>> send() {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build();
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public int status(HttpResponse<String> response) {
    return response.statusCode();
  }

  @Override
  public @Nullable String header(HttpResponse<String> response, String name) {
    return response.headers().firstValue(name).orElse(null);
  }

  @Override
  public void discard(HttpResponse<String> response) {
    // the body was read already
  }

  @Override
  public String toString() {
    return "GET " + uri;
  }
}

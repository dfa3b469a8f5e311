package io.hostpace.jdk;

import io.hostpace.internal.UserAgent;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.Probe;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;

/**
 * The probe a plain HTTP endpoint is sent while the engine's timeout policy holds it down or
 * degraded (SPEC D6): a {@code HEAD} of its server's root, or a request the caller names. Given to
 * the engine with its timeout policy:
 *
 * <pre>{@code
 * HttpClient http = HttpClient.newHttpClient();
 * Hostpace engine = Hostpace.builder()
 *     .timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().probe(Duration.ofSeconds(2)).build()))
 *     .probe(HttpProbe.head(http))                                    // or HttpProbe.of(http, ...)
 *     .build();
 * HttpClient client = PacedHttpClient.wrap(http, engine);
 * }</pre>
 *
 * <p>The probe is sent through {@code client} as the engine sends it: through the host's queue,
 * cut off at the policy's probe budget, its body thrown away unread. It carries the engine's
 * User-Agent unless the caller's own request names one. Given a {@link PacedHttpClient}, it sends
 * through that client's delegate, since the engine queues the probe itself.
 */
public final class HttpProbe implements Probe {

  private final HttpClient client;
  private final Function<URI, HttpRequest> request;
  private final IntPredicate healthy;
  private final String name;

  private HttpProbe(HttpClient client, Function<URI, HttpRequest> request, IntPredicate healthy, String name) {
    Objects.requireNonNull(client, "client");
    this.client = client instanceof PacedHttpClient paced ? paced.delegate() : client;
    this.request = Objects.requireNonNull(request, "request");
    this.healthy = healthy;
    this.name = name;
  }

  /**
   * A {@code HEAD} of the root of the endpoint's server ({@code https://example.org/} for
   * {@code https://example.org/api/items?page=2}). Any answer below 500 but a 429 counts healthy:
   * a root that answers {@code HEAD} with 404 or 405 is still a server that answers at once.
   */
  public static HttpProbe head(HttpClient client) {
    return new HttpProbe(client, seen -> HttpRequest.newBuilder(root(seen))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
        status -> status >= 200 && status < 500 && status != 429, "HEAD /");
  }

  /**
   * The caller's own probe: {@code request} builds it from the URI of the endpoint's latest
   * request ({@code seen -> HttpRequest.newBuilder(seen.resolve("/health")).build()}). A 2xx or
   * 3xx answer counts healthy.
   */
  public static HttpProbe of(HttpClient client, Function<URI, HttpRequest> request) {
    return new HttpProbe(client, request, status -> status >= 200 && status < 400, "the caller's");
  }

  /** The root of {@code uri}'s server: its scheme and authority, path {@code /}. */
  static URI root(URI uri) {
    try {
      return new URI(uri.getScheme(), uri.getRawAuthority(), "/", null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("no root for " + uri + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Exchange<?> exchange(URI seen, String userAgent) {
    HttpRequest built = request.apply(seen);
    if (built.headers().firstValue(UserAgent.HEADER).isEmpty()) {
      built = HttpRequest.newBuilder(built, (header, value) -> true).setHeader(UserAgent.HEADER, userAgent).build();
    }
    return new ProbeExchange(client, built);
  }

  @Override
  public boolean healthy(int status) {
    return healthy.test(status);
  }

  @Override
  public String toString() {
    return "HttpProbe(" + name + ")";
  }

  /** One probe: sent once, its body discarded as it arrives. */
  private record ProbeExchange(HttpClient client, HttpRequest request) implements Exchange<HttpResponse<Void>> {

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public String method() {
      return request.method();
    }

    @Override
    public boolean canResend() {
      return true;
    }

    @Override
    public CompletableFuture<HttpResponse<Void>> send() {
      return client.sendAsync(request, BodyHandlers.discarding());
    }

    @Override
    public int status(HttpResponse<Void> response) {
      return response.statusCode();
    }

    @Override
    public @Nullable String header(HttpResponse<Void> response, String name) {
      return response.headers().firstValue(name).orElse(null);
    }

    @Override
    public void discard(HttpResponse<Void> response) {
      // discarded as it arrived
    }
  }
}

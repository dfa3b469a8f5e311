package io.hostpace.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.hostpace.AttemptTimeoutException;
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.spi.Exchange;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC D6 for plain HTTP: the probe hostpace-jdk names, a {@code HEAD} of the server's root or
 * the caller's own, against a server on 127.0.0.1 that logs what it is sent.
 */
class HttpProbeTest {

  HttpServer server;
  final List<String> log = new CopyOnWriteArrayList<>();
  /** Holds {@code /slow} until the test ends. */
  final CountDownLatch release = new CountDownLatch(1);
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      log.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
          + exchange.getRequestHeaders().getFirst("User-Agent"));
      try {
        if (exchange.getRequestURI().getPath().equals("/slow")) {
          release.await(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      int status = exchange.getRequestURI().getPath().equals("/") ? 404 : 200;
      exchange.sendResponseHeaders(status, exchange.getRequestMethod().equals("HEAD") ? -1 : 2);
      if (!exchange.getRequestMethod().equals("HEAD")) {
        exchange.getResponseBody().write("ok".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      }
      exchange.close();
    });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.stop(0);
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery);
  }

  @SuppressWarnings("unchecked")
  static int send(Exchange<?> exchange) {
    Exchange<HttpResponse<Void>> sent = (Exchange<HttpResponse<Void>>) exchange;
    return sent.status(sent.send().join());
  }

  @Test
  void D6_theHeadProbeAsksTheRootOfTheEndpointsServerWithTheEnginesUserAgent() throws Exception {
    HttpProbe probe = HttpProbe.head(http);

    int status = send(probe.exchange(uri("/api/items?page=2"), "test-agent/1"));

    assertThat(log).containsExactly("HEAD / test-agent/1");
    assertThat(status).isEqualTo(404);
    assertThat(probe.healthy(404)).as("a root that answers 404 answers").isTrue();
    assertThat(List.of(probe.healthy(200), probe.healthy(405), probe.healthy(429), probe.healthy(503)))
        .containsExactly(true, true, false, false);
  }

  @Test
  void D6_theCallersOwnProbeIsSentAsBuiltAndKeepsItsUserAgent() throws Exception {
    List<Object> heard = new CopyOnWriteArrayList<>();
    HttpProbe probe = HttpProbe.of(PacedHttpClient.wrap(http, Hostpace.builder().addListener(heard::add).build()),
        seen -> HttpRequest.newBuilder(seen.resolve("/health")).header("User-Agent", "mine").build());

    send(probe.exchange(uri("/api/items"), "test-agent/1"));

    assertThat(log).containsExactly("GET /health mine");
    assertThat(heard).as("sent through the paced client's delegate: the engine queues its probes itself").isEmpty();
    assertThat(List.of(probe.healthy(200), probe.healthy(404))).containsExactly(true, false);
  }

  @Test
  void D6_aDegradedEndpointIsProbedBeforeARequestGetsTheFullBudgetAgain() throws Exception {
    Hostpace engine = Hostpace.builder()
        .timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().defaultBudget(Duration.ofMillis(500))
            .degradeAfterKinds(1).probe(Duration.ofSeconds(2)).build()))
        .probe(HttpProbe.head(http)).build();
    PacedHttpClient client = PacedHttpClient.wrap(http, engine);

    // Cut off at the full budget: with one kind enough here, the endpoint is degraded.
    Assertions.assertThatThrownBy(() -> client.withContext(CallContext.builder().kind("slow").build())
        .send(HttpRequest.newBuilder(uri("/slow")).build(), BodyHandlers.ofString()))
        .isInstanceOf(AttemptTimeoutException.class);
    HttpResponse<String> next = client.withContext(CallContext.builder().kind("next").build())
        .send(HttpRequest.newBuilder(uri("/next")).build(), BodyHandlers.ofString());
    assertThat(next.body()).isEqualTo("ok");

    // The budget runs on the wall clock: on a busy machine it can end before the server has read
    // /slow's head, which may then come later, or never; the probe goes before /next either way.
    List<String> heads = log.stream().map(line -> line.split(" ")[0] + " " + line.split(" ")[1]).toList();
    assertThat(heads).filteredOn(head -> !head.equals("GET /slow")).containsExactly("HEAD /", "GET /next");
    assertThat(heads).filteredOn("GET /slow"::equals).hasSizeLessThanOrEqualTo(1);
    assertThat(log).filteredOn(line -> line.startsWith("HEAD ")).singleElement().asString().endsWith(engine.userAgent());
  }
}

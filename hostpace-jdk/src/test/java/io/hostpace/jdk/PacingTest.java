package io.hostpace.jdk;

import static io.hostpace.jdk.Waiting.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.AttemptListener;
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.HeardAttempts;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.Refusing;
import io.hostpace.testkit.SlowBody;
import io.hostpace.testkit.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** SPEC P2, P3, U1 and A1 through a real HttpClient: places, contexts, identity and attempt events. */
class PacingTest {

  // The whole in-flight limit at once to a new host (SPEC P3), as these tests count on.
  final Hostpace engine = Hostpace.builder().widenFirstContact(false).build();
  final PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
  TestServer server;

  @AfterEach
  void stop() {
    Waiting.stop(server, client);
  }

  CallContext oneAtATime() {
    return CallContext.builder().addLimit(server.hostKey(), Limits.inFlight(1)).build();
  }

  List<HttpResponse<String>> getAll(PacedHttpClient through, String path, int n) {
    List<CompletableFuture<HttpResponse<String>>> calls = IntStream.range(0, n)
        .mapToObj(i -> through.sendAsync(get(server.uri(path)), BodyHandlers.ofString()))
        .collect(Collectors.toList());
    return calls.stream().map(call -> call.orTimeout(10, TimeUnit.SECONDS).join()).collect(Collectors.toList());
  }

  @Test
  void P2_thePlaceIsFreedWhenHeadersArriveAndTheBodyIsReadAfter() throws Exception {
    // Headers now; the body over a second, ten parts 100 ms apart. /fast is answered at once.
    SlowBody slowBody = new SlowBody(10, Duration.ofMillis(100));
    server = TestServer.start(slowBody);
    PacedHttpClient oneAtATime = client.withContext(oneAtATime());

    CompletableFuture<HttpResponse<String>> slow = oneAtATime.sendAsync(get(server.uri("/slow")), BodyHandlers.ofString());
    EngineState.until(() -> !server.requests("/slow").isEmpty());
    CompletableFuture<HttpResponse<String>> fast = oneAtATime.sendAsync(get(server.uri("/fast")), BodyHandlers.ofString());

    assertThat(fast.get(10, TimeUnit.SECONDS).body()).isEqualTo("fast");
    assertThat(slow.get(10, TimeUnit.SECONDS).body()).startsWith("part 0\n").endsWith("part 9\n");
    assertThat(slowBody.trace()).containsExactly("/fast arrives", "/slow body complete");
  }

  @Test
  void P3_aViewBoundToAContextHoldsItsRequestsToItsLimitsWhileTheUnboundClientIsNotHeld() throws Exception {
    // The unbound requests are answered only once all three are in (or after 10 s), so that they
    // are in flight together however slowly a busy machine sends them; the bound ones after 150 ms,
    // time enough for a second to arrive were the limit not kept.
    CountDownLatch allUnbound = new CountDownLatch(3);
    server = TestServer.start((request, exchange) -> {
      if (request.path().equals("/unbound")) {
        allUnbound.countDown();
        allUnbound.await(10, TimeUnit.SECONDS);
      } else {
        Thread.sleep(150);
      }
      TestServer.reply(exchange, 200, "ok");
    });

    List<HttpResponse<String>> bound = getAll(client.withContext(oneAtATime()), "/bound", 3);
    int boundConcurrency = server.maxConcurrent();
    server.resetConcurrency();
    List<HttpResponse<String>> unbound = getAll(client, "/unbound", 3);

    assertThat(bound).extracting(HttpResponse::statusCode).containsOnly(200);
    assertThat(unbound).extracting(HttpResponse::statusCode).containsOnly(200);
    assertThat(boundConcurrency).isEqualTo(1);
    assertThat(server.maxConcurrent()).isEqualTo(3);
  }

  @Test
  void U1_aRequestWithoutUserAgentIsSentWithTheEnginesAndOneThatNamesItsOwnKeepsIt() throws Exception {
    server = TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "ok"));
    PacedHttpClient named = PacedHttpClient.wrap(HttpClient.newHttpClient(),
        Hostpace.builder().userAgent("my-pipeline/1.0 (+https://example.org; ops@example.org)").build());

    client.send(get(server.uri("/default")), BodyHandlers.discarding());
    named.send(get(server.uri("/configured")), BodyHandlers.discarding());
    client.send(HttpRequest.newBuilder(server.uri("/own")).header("User-Agent", "my-bot/2.0").build(), BodyHandlers.discarding());

    assertThat(server.requests("/default").get(0).header("User-Agent")).isEqualTo(Hostpace.DEFAULT_USER_AGENT);
    assertThat(Hostpace.DEFAULT_USER_AGENT).startsWith("hostpace/");
    assertThat(server.requests("/configured").get(0).header("User-Agent"))
        .isEqualTo("my-pipeline/1.0 (+https://example.org; ops@example.org)");
    assertThat(server.requests("/own").get(0).headers("User-Agent")).containsExactly("my-bot/2.0");
  }

  @Test
  void A1_theContextsAttemptListenerHearsEachAttemptSentSettledAndRetried() throws Exception {
    server = TestServer.start(Refusing.first(1, 429, "0"));
    HeardAttempts listener = new HeardAttempts();
    List<String> heard = listener.heard();
    PacedHttpClient listened = client.withContext(CallContext.builder().attemptListener(listener).build());

    HttpResponse<String> response = listened.send(get(server.uri("/")), BodyHandlers.ofString());

    assertThat(response.body()).isEqualTo("answer 2");
    assertThat(heard).containsExactly("sent 1", "settled 1 429", "retrying 1", "sent 2", "settled 2 200");
  }

  @Test
  void A1_aFailedAttemptIsHeardAsSettledWithItsFailure() throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    AttemptListener listener = new AttemptListener() {
      @Override
      public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
        // A timeout of either kind: on a busy machine the connection itself may take the 200 ms
        // (HttpConnectTimeoutException, a kind of HttpTimeoutException).
        heard.add("settled " + attempt + " " + status + " "
            + (failure instanceof HttpTimeoutException ? "HttpTimeoutException" : failure));
      }
    };
    try (RawServer raw = RawServer.start()) {
      HttpRequest request = HttpRequest.newBuilder(raw.uri("/hang")).timeout(Duration.ofMillis(200)).build();
      CompletableFuture<HttpResponse<String>> call = client.withContext(CallContext.builder().attemptListener(listener).build())
          .sendAsync(request, BodyHandlers.ofString());
      assertThat(call).failsWithin(Duration.ofSeconds(10));
    }
    assertThat(heard).containsExactly("settled 1 -1 HttpTimeoutException");
  }
}

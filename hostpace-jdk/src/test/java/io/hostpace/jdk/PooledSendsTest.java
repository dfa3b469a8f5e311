package io.hostpace.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.testkit.ClosedPorts;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.TestServer;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What sends each attempt of a {@link PacedHttpClient} where the JDK's client would start a thread
 * for each answer: its {@code sendAsync} gives what the JDK's gives (the answer, the failure as the
 * JDK names it), and cancelling it aborts the exchange (SPEC T5), whether or not this JVM needs
 * it. {@code SendThreadsTest} counts the threads it saves.
 */
class PooledSendsTest {

  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final PooledSends client = new PooledSends(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), threads);

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  @Test
  void X1_anAnswerAndAFailureComeAsTheJdksSendAsyncGivesThem() throws Exception {
    try (TestServer upstream = TestServer.start((request, exchange) -> TestServer.reply(exchange, 201, "made"));
        RawServer raw = RawServer.start()) {
      HttpResponse<String> answer = client.sendAsync(HttpRequest.newBuilder(upstream.uri("/a")).build(),
          BodyHandlers.ofString()).get();
      assertThat(answer.statusCode()).isEqualTo(201);
      assertThat(answer.body()).isEqualTo("made");

      int closed = ClosedPorts.next();
      CompletableFuture<HttpResponse<String>> refused = client.sendAsync(
          HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + closed + "/")).build(), BodyHandlers.ofString());
      assertThatThrownBy(refused::get).isInstanceOf(ExecutionException.class).cause().isInstanceOf(ConnectException.class);

      CompletableFuture<HttpResponse<String>> late = client.sendAsync(
          HttpRequest.newBuilder(raw.uri("/hang")).timeout(Duration.ofMillis(200)).build(), BodyHandlers.ofString());
      assertThatThrownBy(late::get).isInstanceOf(ExecutionException.class).cause().isInstanceOf(HttpTimeoutException.class);
    }
  }

  @Test
  void T5_cancellingTheFutureAbortsTheExchangeAndFreesItsThread() throws Exception {
    try (RawServer raw = RawServer.start(); TestServer upstream = TestServer.start((request, exchange) ->
        TestServer.reply(exchange, 200, "next"))) {
      CompletableFuture<HttpResponse<String>> hanging = client.sendAsync(HttpRequest.newBuilder(raw.uri("/hang")).build(),
          BodyHandlers.ofString());
      EngineState.until(() -> raw.paths().contains("/hang"));

      assertThat(hanging.cancel(true)).isTrue();
      EngineState.until(() -> raw.abandoned().contains("/hang")); // the connection closed: the exchange aborted

      // The thread that sent it goes on to the next, its interrupt cleared.
      assertThat(client.sendAsync(HttpRequest.newBuilder(upstream.uri("/next")).build(), BodyHandlers.ofString()).get().body())
          .isEqualTo("next");
    }
  }
}

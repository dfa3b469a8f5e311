package io.hostpace.jdk;

import static io.hostpace.jdk.Waiting.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.RawServer;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC T5 and T6 against a server that misbehaves: failures reach the caller as the JDK raises
 * them, are never retried, and free the place; so does a caller who gives up. The engine allows
 * the server one request in flight, so the next request starting shows the place is free.
 */
class FailuresTest {

  RawServer server;
  Hostpace engine;
  PacedHttpClient client;
  final List<HostpaceEvent> events = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = RawServer.start();
    engine = Hostpace.builder().addLimit(server.hostKey(), Limits.inFlight(1)).addListener(events::add).build();
    client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
    client.shutdownNow();
  }

  /** The attempts the engine started, as "path attempt". */
  List<String> started() {
    return events.stream().filter(e -> e instanceof HostpaceEvent.Started).map(e -> (HostpaceEvent.Started) e)
        .map(e -> e.uri().getPath() + " " + e.attempt()).collect(Collectors.toList());
  }

  void theNextRequestStarts() throws Exception {
    HttpResponse<String> next = client.sendAsync(get(server.uri("/ok")), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);
    assertThat(next.body()).isEqualTo("ok");
    assertThat(EngineState.inFlight(engine)).isZero();
  }

  @Test
  void T6_aResetConnectionReachesTheCallerAsAnIOExceptionAndIsNotRetried() throws Exception {
    // A POST: the JDK itself sends a GET once more when its connection closes before any answer.
    HttpRequest request = HttpRequest.newBuilder(server.uri("/reset"))
        .POST(BodyPublishers.ofString("INSERT DATA { <a> <b> <c> }"))
        .build();

    assertThatThrownBy(() -> client.send(request, BodyHandlers.ofString()))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(HttpTimeoutException.class);

    assertThat(started()).containsExactly("/reset 1");
    assertThat(server.paths()).containsExactly("/reset");
    theNextRequestStarts();
  }

  @Test
  void T6_aPostThatTimesOutFailsWithHttpTimeoutExceptionAndIsNotRetried() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(server.uri("/hang"))
        .timeout(Duration.ofMillis(300))
        .POST(BodyPublishers.ofString("INSERT DATA { <a> <b> <c> }"))
        .build();

    // The server never answers: only the request's own timeout ends it.
    assertThatThrownBy(() -> client.send(request, BodyHandlers.ofString())).isInstanceOf(HttpTimeoutException.class);

    assertThat(started()).containsExactly("/hang 1");
    assertThat(server.paths()).containsExactly("/hang");
    theNextRequestStarts();
  }

  @Test
  void T5_cancellingTheFutureFreesThePlaceForTheRequestQueuedBehindIt() throws Exception {
    CompletableFuture<HttpResponse<String>> hanging = client.sendAsync(get(server.uri("/hang")), BodyHandlers.ofString());
    EngineState.until(() -> server.paths().contains("/hang"));
    CompletableFuture<HttpResponse<String>> next = client.sendAsync(get(server.uri("/ok")), BodyHandlers.ofString());
    EngineState.until(() -> EngineState.waiting(engine) == 1);
    assertThat(next).isNotDone();

    hanging.cancel(true);

    assertThat(next.get(10, TimeUnit.SECONDS).body()).isEqualTo("ok");
    assertThat(hanging).isCancelled();
    EngineState.until(() -> server.abandoned().contains("/hang")); // the JDK let the exchange go
    assertThat(server.paths()).containsExactly("/hang", "/ok");
  }

  @Test
  void T5_cancellingAQueuedRequestTakesItOutOfItsQueue() throws Exception {
    CompletableFuture<HttpResponse<String>> hanging = client.sendAsync(get(server.uri("/hang")), BodyHandlers.ofString());
    EngineState.until(() -> server.paths().contains("/hang"));
    CompletableFuture<HttpResponse<String>> queued = client.sendAsync(get(server.uri("/queued")), BodyHandlers.ofString());
    EngineState.until(() -> EngineState.waiting(engine) == 1);

    queued.cancel(true);
    EngineState.until(() -> EngineState.waiting(engine) == 0);
    hanging.cancel(true);

    theNextRequestStarts();
    assertThat(server.paths()).containsExactly("/hang", "/ok");
    assertThatThrownBy(queued::join).isInstanceOf(CancellationException.class);
  }

  @Test
  void T5_cancellingAStageDerivedFromTheFutureTakesTheCallOutOfItsQueue() throws Exception {
    // As Jena does: it holds a stage derived from sendAsync's future, and cancels that one.
    CompletableFuture<HttpResponse<String>> hanging = client.sendAsync(get(server.uri("/hang")), BodyHandlers.ofString());
    EngineState.until(() -> server.paths().contains("/hang"));
    CompletableFuture<HttpResponse<String>> queued = client.sendAsync(get(server.uri("/queued")), BodyHandlers.ofString());
    CompletableFuture<String> derived = queued.thenApply(HttpResponse::body).whenComplete((body, failure) -> { });
    EngineState.until(() -> EngineState.waiting(engine) == 1);

    derived.cancel(true);
    EngineState.until(() -> EngineState.waiting(engine) == 0);
    hanging.cancel(true);

    theNextRequestStarts();
    assertThat(server.paths()).containsExactly("/hang", "/ok");
    assertThat(derived).isCancelled();
    assertThat(queued).isCancelled();
  }

  @Test
  void T5_cancellingAStageDerivedFromTheFutureFreesThePlaceAndAbortsTheExchange() throws Exception {
    CompletableFuture<HttpResponse<String>> hanging = client.sendAsync(get(server.uri("/hang")), BodyHandlers.ofString());
    CompletableFuture<HttpResponse<String>> derived = hanging.thenCompose(CompletableFuture::completedFuture);
    EngineState.until(() -> server.paths().contains("/hang"));

    derived.cancel(true);

    EngineState.until(() -> server.abandoned().contains("/hang")); // the JDK let the exchange go
    theNextRequestStarts();
    assertThat(hanging).isCancelled();
  }

  @Test
  void T5_aStageDerivedFromAnAnsweredCallCancelsOnlyItself() throws Exception {
    CompletableFuture<HttpResponse<String>> answered = client.sendAsync(get(server.uri("/ok")), BodyHandlers.ofString());
    answered.get(10, TimeUnit.SECONDS);
    CompletableFuture<HttpResponse<String>> later = answered.thenCompose(r -> new CompletableFuture<>());

    later.cancel(true);

    assertThat(later).isCancelled();
    assertThat(answered.join().body()).isEqualTo("ok");
  }

  @Test
  void T5_interruptingAThreadBlockedInSendCancelsTheCall() throws Exception {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        client.send(get(server.uri("/hang")), BodyHandlers.ofString());
      } catch (Throwable t) {
        thrown.set(t);
      }
    });
    caller.start();
    EngineState.until(() -> server.paths().contains("/hang"));

    caller.interrupt();
    caller.join(10_000);

    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    EngineState.until(() -> server.abandoned().contains("/hang")); // the JDK let the exchange go
    theNextRequestStarts();
  }
}

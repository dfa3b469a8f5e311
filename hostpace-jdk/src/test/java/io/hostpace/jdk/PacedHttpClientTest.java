package io.hostpace.jdk;

import static io.hostpace.jdk.Waiting.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.ConnectException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.Test;

/** SPEC I1: a drop-in HttpClient. What is the delegate's, views, exceptions, the lifecycle, and answers that come too soon. */
class PacedHttpClientTest {

  final Hostpace engine = Hostpace.create();

  @Test
  void I1_everythingButSendingIsTheDelegates() throws Exception {
    ExecutorService executor = Executors.newSingleThreadExecutor();
    CookieManager cookies = new CookieManager();
    HttpClient delegate = HttpClient.newBuilder()
        .followRedirects(HttpClient.Redirect.NORMAL)
        .connectTimeout(Duration.ofSeconds(3))
        .version(HttpClient.Version.HTTP_1_1)
        .cookieHandler(cookies)
        .executor(executor)
        .build();
    PacedHttpClient client = PacedHttpClient.wrap(delegate, engine);

    assertThat(client.followRedirects()).isEqualTo(HttpClient.Redirect.NORMAL);
    assertThat(client.connectTimeout()).contains(Duration.ofSeconds(3));
    assertThat(client.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(client.cookieHandler()).containsSame(cookies);
    assertThat(client.executor()).containsSame(executor);
    assertThat(client.proxy()).isEqualTo(delegate.proxy());
    assertThat(client.authenticator()).isEqualTo(delegate.authenticator());
    assertThat(client.sslContext()).isSameAs(delegate.sslContext());
    assertThat(client.sslParameters().getProtocols()).isEqualTo(delegate.sslParameters().getProtocols());
    assertThat(client.newWebSocketBuilder()).isNotNull();
    executor.shutdownNow();
  }

  @Test
  void I1_aViewBoundToAContextSharesTheEngineAndTheDelegate() {
    HttpClient delegate = HttpClient.newHttpClient();
    PacedHttpClient client = PacedHttpClient.wrap(delegate, engine);
    CallContext batch = CallContext.builder().limitsForEveryHost(Limits.inFlight(2)).retries(1).build();

    PacedHttpClient view = client.withContext(batch);

    assertThat(client.context()).isSameAs(CallContext.DEFAULT);
    assertThat(view.context()).isSameAs(batch);
    assertThat(view.engine()).isSameAs(client.engine()).isSameAs(engine);
    assertThat(view.delegate()).isSameAs(client.delegate()).isSameAs(delegate);
    assertThat(view).isNotSameAs(client);
  }

  @Test
  void T7_aViewWithABodyCapSharesTheRestAndANegativeCapIsRefusedWithWhatWasGiven() {
    PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);

    PacedHttpClient capped = client.withMaxBodyBytes(1024);

    assertThat(client.maxBodyBytes()).isEmpty();
    assertThat(capped.maxBodyBytes()).hasValue(1024);
    assertThat(capped.withContext(CallContext.DEFAULT).maxBodyBytes()).as("a view of a capped client").hasValue(1024);
    assertThat(capped.delegate()).isSameAs(client.delegate());
    assertThatThrownBy(() -> client.withMaxBodyBytes(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBytes is -1: expected 0 or more bytes of body");
  }

  @Test
  void I1_sendThrowsWhatHttpClientSendThrows() throws Exception {
    URI nobodyListens = Waiting.nobodyListens();
    PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);

    assertThatThrownBy(() -> HttpClient.newHttpClient().send(get(nobodyListens), BodyHandlers.ofString()))
        .isInstanceOf(ConnectException.class);
    assertThatThrownBy(() -> client.send(get(nobodyListens), BodyHandlers.ofString()))
        .isInstanceOf(ConnectException.class);
    assertThat(client.sendAsync(get(nobodyListens), BodyHandlers.ofString()))
        .failsWithin(Duration.ofSeconds(10))
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(ConnectException.class);

    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> client.send(get(nobodyListens), BodyHandlers.ofString()))
        .isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).isFalse();
  }

  @Test
  void I1_onJava21AndLaterTheLifecycleIsTheDelegatesAndOnJava17ItDoesNothing() throws Exception {
    HttpClient delegate = HttpClient.newHttpClient();
    PacedHttpClient client = PacedHttpClient.wrap(delegate, engine);

    assertThat(client.isTerminated()).isFalse();
    try (PacedHttpClient closing = client) {
      assertThat(closing.awaitTermination(Duration.ofMillis(1))).isEqualTo(!Lifecycle.supported());
    }

    if (Runtime.version().feature() >= 21) {
      assertThat(Lifecycle.supported()).isTrue();
      Method isTerminated = HttpClient.class.getMethod("isTerminated");
      assertThat((Boolean) isTerminated.invoke(delegate)).isTrue();
      assertThat(client.isTerminated()).isTrue();
      assertThat(client.awaitTermination(Duration.ZERO)).isTrue();
      // A closed delegate refuses new requests; the caller hears it as an IOException.
      assertThatThrownBy(() -> client.send(get(URI.create("http://127.0.0.1:9/")), BodyHandlers.ofString()))
          .isInstanceOf(IOException.class);
    } else {
      assertThat(Lifecycle.supported()).isFalse();
      assertThat(client.isTerminated()).isFalse();
      client.shutdown();
      client.shutdownNow();
      assertThat(client.awaitTermination(Duration.ZERO)).isTrue();
    }
    assertThatThrownBy(() -> client.awaitTermination(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void P2_anAnswerThatArrivesBeforeTheEngineListensIsStillJudgedBeforeItsBodyIsRead() throws Exception {
    InstantClient instant = new InstantClient(
        new InstantClient.Reply(429, "0", "refused"), new InstantClient.Reply(200, null, "answer"));
    PacedHttpClient client = PacedHttpClient.wrap(instant, engine);
    List<Integer> handled = new CopyOnWriteArrayList<>();
    BodyHandler<String> handler = info -> {
      handled.add(info.statusCode());
      return BodySubscribers.ofString(StandardCharsets.UTF_8);
    };

    HttpResponse<String> response = client.send(get(URI.create("http://a.test/")), handler);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("answer");
    assertThat(handled).as("the caller's handler sees only the answer the call ends with").containsExactly(200);
    assertThat(instant.subscribers).as("both answers came before the engine could judge them")
        .containsExactly("DeferredSubscriber", "DeferredSubscriber");
  }

  @Test
  void T3_aLastRefusalThatArrivesBeforeTheEngineListensReachesTheCallerWithItsBody() throws Exception {
    InstantClient instant = new InstantClient(new InstantClient.Reply(503, "0", "overloaded"));
    PacedHttpClient client = PacedHttpClient.wrap(instant, engine).withContext(CallContext.builder().retries(1).build());

    HttpResponse<String> response = client.send(get(URI.create("http://a.test/")), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).isEqualTo("overloaded");
    assertThat(instant.subscribers).hasSize(2);
  }

  @Test
  void I1_aBodyHandlerThatThrowsFailsTheCallAsTheJdkDoes() {
    InstantClient instant = new InstantClient(new InstantClient.Reply(200, null, "answer"));
    PacedHttpClient client = PacedHttpClient.wrap(instant, engine);
    IllegalStateException broken = new IllegalStateException("the handler broke");
    BodyHandler<String> handler = info -> {
      throw broken;
    };

    assertThatThrownBy(() -> client.send(get(URI.create("http://a.test/")), handler))
        .isInstanceOf(IOException.class)
        .hasCause(broken);
  }
}

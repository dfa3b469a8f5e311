package io.hostpace.httpclient5;

import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import static io.hostpace.testkit.EngineState.inFlight;
import static io.hostpace.testkit.EngineState.started;
import static io.hostpace.testkit.EngineState.until;
import static io.hostpace.testkit.EngineState.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.AttemptTimeoutException;
import io.hostpace.CallContext;
import io.hostpace.timeout.TimeoutPolicy;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.testkit.AdapterUnderTest;
import io.hostpace.testkit.CallerThread;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.HeardAttempts;
import io.hostpace.testkit.IdleClosingServer;
import io.hostpace.testkit.Opened;
import io.hostpace.testkit.Outcome;
import io.hostpace.testkit.Pending;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.Refusing;
import io.hostpace.testkit.ScriptedServer;
import io.hostpace.testkit.SlowBody;
import io.hostpace.testkit.TestRequest;
import io.hostpace.testkit.TestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.classic.RequestFailedException;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What is HttpClient's own around the handlers: its retry strategy, its redirects, the default context, interrupts, cancels. */
class HostpaceHttpClient5Test {

  final List<HostpaceEvent> events = new CopyOnWriteArrayList<>();
  final Hostpace engine = Hostpace.builder().addListener(events::add).build();
  @RegisterExtension final Opened opened = new Opened();

  CloseableHttpClient classic(CallContext context) {
    CloseableHttpClient client = HostpaceHttpClient5.pace(HttpClients.custom(), engine, context).build();
    opened.add((AutoCloseable) () -> client.close(CloseMode.IMMEDIATE));
    return client;
  }

  CloseableHttpClient classic(HttpClientBuilder builder) {
    CloseableHttpClient client = builder.build();
    opened.add((AutoCloseable) () -> client.close(CloseMode.IMMEDIATE));
    return client;
  }

  CloseableHttpAsyncClient async(HttpAsyncClientBuilder builder) {
    CloseableHttpAsyncClient client = builder.build();
    opened.add((AutoCloseable) () -> client.close(CloseMode.IMMEDIATE));
    client.start();
    return client;
  }

  static String get(CloseableHttpAsyncClient client, java.net.URI uri) throws Exception {
    SimpleHttpResponse response = client.execute(SimpleRequestBuilder.get(uri).build(), null)
        .get(EngineState.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    return response.getCode() + " " + response.getBodyText();
  }

  /** HttpClient's default strategy, one retry at once, that counts how often it is asked about an I/O failure. */
  static final class CountingStrategy extends DefaultHttpRequestRetryStrategy {
    final AtomicInteger askedAboutFailures = new AtomicInteger();

    CountingStrategy() {
      super(1, TimeValue.ZERO_MILLISECONDS);
    }

    @Override
    public boolean retryRequest(HttpRequest request, java.io.IOException exception, int execCount, HttpContext context) {
      askedAboutFailures.incrementAndGet();
      return execCount <= 1;
    }
  }

  static String get(CloseableHttpClient client, java.net.URI uri) throws Exception {
    try (ClassicHttpResponse response = client.executeOpen(null, new HttpGet(uri), null)) {
      return response.getCode() + " " + EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void I3_theClientsOwnRetryStrategyLeavesRefusalsToTheEngine() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(503, "0")));
    CloseableHttpClient client = classic(CallContext.builder().retries(1).build());

    assertThat(get(client, server.uri("/"))).isEqualTo("503 refused 2");

    // DefaultHttpRequestRetryStrategy alone would send each attempt twice: it retries a 503 once.
    assertThat(server.requests()).hasSize(2);
    assertThat(started(events)).containsExactly("/ 1", "/ 2");
  }

  @Test
  void I7_theAsyncClientsOwnRetryStrategyLeavesRefusalsToTheEngine() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(503, "0")));
    CallContext oneRetry = CallContext.builder().retries(1).build();

    assertThat(get(async(HostpaceHttpClient5.pace(HttpAsyncClients.custom(), engine, oneRetry)), server.uri("/")))
        .isEqualTo("503 refused 2");

    assertThat(server.requests()).hasSize(2);
    assertThat(started(events)).containsExactly("/ 1", "/ 2");
  }

  @Test
  void I7_aStrategySetAfterPaceLeavingRefusalsToHostpaceRetriesNoRefusal() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(503, "0")));
    CallContext oneRetry = CallContext.builder().retries(1).build();
    HttpRequestRetryStrategy mine = HostpaceHttpClient5.leavingRefusalsToHostpace(new DefaultHttpRequestRetryStrategy());

    assertThat(get(classic(HostpaceHttpClient5.pace(HttpClients.custom(), engine, oneRetry).setRetryStrategy(mine)),
        server.uri("/classic"))).isEqualTo("503 refused 2");
    assertThat(get(async(HostpaceHttpClient5.pace(HttpAsyncClients.custom(), engine, oneRetry).setRetryStrategy(mine)),
        server.uri("/async"))).as("%s", server.requests()).isEqualTo("503 refused 4");

    // DefaultHttpRequestRetryStrategy alone would retry each 503 once: four requests a client.
    assertThat(server.requests()).extracting(TestServer.Request::path).containsExactly("/classic", "/classic", "/async", "/async");
    assertThat(started(events)).containsExactly("/classic 1", "/classic 2", "/async 1", "/async 2");
  }

  @Test
  void I7_aStrategySetAfterPaceIsAskedAboutAResetAndItsResendGoesWithinTheAttempt() throws Exception {
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 1 ? new ScriptedServer.Reset() : new ScriptedServer.Answer(ScriptedServer.OK)));
    CountingStrategy mine = new CountingStrategy();

    assertThat(get(classic(HostpaceHttpClient5.pace(HttpClients.custom(), engine)
        .setRetryStrategy(HostpaceHttpClient5.leavingRefusalsToHostpace(mine))), server.uri("/a"))).isEqualTo("200 ok");

    assertThat(mine.askedAboutFailures).hasValue(1);
    assertThat(server.requests()).containsExactly("1 1 GET /a", "2 2 GET /a");
    assertThat(started(events)).containsExactly("/a 1");
  }

  @Test
  void I7_aStrategySetAfterPaceOnTheAsyncClientIsAskedAboutAResetAndItsResendGoesWithinTheAttempt() throws Exception {
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 1 ? new ScriptedServer.Reset() : new ScriptedServer.Answer(ScriptedServer.OK)));
    CountingStrategy mine = new CountingStrategy();

    assertThat(get(async(HostpaceHttpClient5.pace(HttpAsyncClients.custom(), engine)
        .setRetryStrategy(HostpaceHttpClient5.leavingRefusalsToHostpace(mine))), server.uri("/a"))).isEqualTo("200 ok");

    assertThat(mine.askedAboutFailures).hasValue(1);
    assertThat(server.requests()).containsExactly("1 1 GET /a", "2 2 GET /a");
    assertThat(started(events)).containsExactly("/a 1");
  }

  static final String REFUSED_HEAD = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\n";

  /** The first request is refused with a body of 64 MiB; the second is answered. */
  void aRefusalsLongBodyIsNotReadAndTheRetryGoesOnAnotherConnection(AdapterUnderTest adapter) throws Exception {
    long size = 64L * 1024 * 1024;
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 1
        ? new ScriptedServer.Body(REFUSED_HEAD + "Content-Length: " + size + "\r\n\r\n", size)
        : new ScriptedServer.Answer(ScriptedServer.OK)));

    Outcome outcome = adapter.start(TestRequest.get(server.uri("/big"))).await();

    assertThat(outcome).isEqualTo(Outcome.answer(200, "ok"));
    assertThat(server.requests()).containsExactly("1 1 GET /big", "2 2 GET /big");
    until(() -> server.log().size() == 3);
    assertThat(server.log()).contains("1 body cut by the client");
  }

  @Test
  void T7_aClassicRefusalsLongBodyIsNotReadAndTheRetryGoesOnAnotherConnection() throws Exception {
    aRefusalsLongBodyIsNotReadAndTheRetryGoesOnAnotherConnection(opened.add(HttpClient5Clients.classic(engine)));
  }

  @Test
  void T7_anAsyncRefusalsLongBodyIsNotReadAndTheRetryGoesOnAnotherConnection() throws Exception {
    aRefusalsLongBodyIsNotReadAndTheRetryGoesOnAnotherConnection(opened.add(HttpClient5Clients.async(engine)));
  }

  /** The first request is refused with a body that stops after 10 of its 1000 bytes; no timeout is set. */
  void aRefusalWhoseBodyStallsHoldsNoRetry(AdapterUnderTest adapter) throws Exception {
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 1
        ? new ScriptedServer.Stall(REFUSED_HEAD + "Content-Length: 1000\r\n\r\n0123456789")
        : new ScriptedServer.Answer(ScriptedServer.OK)));

    Outcome outcome = adapter.start(TestRequest.get(server.uri("/stall"))).await();

    assertThat(outcome).isEqualTo(Outcome.answer(200, "ok"));
    assertThat(server.requests()).containsExactly("1 1 GET /stall", "2 2 GET /stall");
    assertThat(started(events)).containsExactly("/stall 1", "/stall 2");
  }

  @Test
  void T7_aClassicRefusalWhoseBodyStallsHoldsNoRetry() throws Exception {
    aRefusalWhoseBodyStallsHoldsNoRetry(opened.add(HttpClient5Clients.classic(engine)));
  }

  @Test
  void T7_anAsyncRefusalWhoseBodyStallsHoldsNoRetry() throws Exception {
    aRefusalWhoseBodyStallsHoldsNoRetry(opened.add(HttpClient5Clients.async(engine)));
  }

  @Test
  void T7_anAsyncRefusalsShortBodyStillComingWhenTheRetryIsDueKeepsItsConnectionForTheRetry() throws Exception {
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 1
        ? new ScriptedServer.Answer("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: 7\r\n\r\nrefused")
        : new ScriptedServer.Answer(ScriptedServer.OK)));
    // A grace no busy machine outlasts: the body, on its way when the retry is due, is waited for.
    CloseableHttpAsyncClient client = async(HttpAsyncClients.custom().disableAutomaticRetries()
        .addExecInterceptorFirst(HostpaceHttpClient5.HANDLER_NAME, new AsyncHandler(engine, CallContext.DEFAULT, EngineState.PATIENCE)));

    assertThat(get(client, server.uri("/short"))).isEqualTo("200 ok");

    // Retry-After: 0 makes the retry due inside the refusal's handleResponse, before its body is read.
    assertThat(server.requests()).containsExactly("1 1 GET /short", "2 1 GET /short");
    assertThat(started(events)).containsExactly("/short 1", "/short 2");
  }

  @Test
  void I7_anAsyncRefusalCutShortIsNotSentAgainByAStrategySetAfterPace() throws Exception {
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 1
        ? new ScriptedServer.Stall(REFUSED_HEAD + "Content-Length: 1000\r\n\r\n0123456789")
        : new ScriptedServer.Answer(ScriptedServer.OK)));
    CountingStrategy mine = new CountingStrategy(); // would resend any failed attempt once

    assertThat(get(async(HostpaceHttpClient5.pace(HttpAsyncClients.custom(), engine)
        .setRetryStrategy(HostpaceHttpClient5.leavingRefusalsToHostpace(mine))), server.uri("/cut"))).isEqualTo("200 ok");

    // The stalled refusal's connection is closed a grace after the retry is due; the strategy is
    // not asked to send it again, and only the engine's retry follows.
    assertThat(server.requests()).containsExactly("1 1 GET /cut", "2 2 GET /cut");
    assertThat(started(events)).containsExactly("/cut 1", "/cut 2");
  }

  @Test
  void I7_anAsyncAnswerWhoseBodyBreaksOffIsNotSentAgainByAStrategySetAfterPace() throws Exception {
    RawServer raw = opened.add(RawServer.start()); // "/short": a Content-Length of 100, closed after 35 bytes
    CountingStrategy mine = new CountingStrategy(); // would resend any failed attempt once

    CloseableHttpAsyncClient client = async(HostpaceHttpClient5.pace(HttpAsyncClients.custom(), engine)
        .setRetryStrategy(HostpaceHttpClient5.leavingRefusalsToHostpace(mine)));

    // The caller's body broke off: it hears so, rather than the rest of another answer's body.
    assertThatThrownBy(() -> get(client, raw.uri("/short"))).isInstanceOf(java.util.concurrent.ExecutionException.class);
    assertThat(raw.paths()).containsExactly("/short");
    assertThat(mine.askedAboutFailures).hasValue(0);
  }

  @Test
  void D1_aRequestWhoseAttemptTheBudgetEndedCanBeExecutedAgain() throws Exception {
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 1 ? new ScriptedServer.Stall("") : new ScriptedServer.Answer(ScriptedServer.OK)));
    Hostpace budgeted = opened.add(Hostpace.builder().timeoutPolicy(TimeoutPolicy.fixed(Duration.ofMillis(300))).build());
    CloseableHttpClient client = classic(HostpaceHttpClient5.pace(HttpClients.custom(), budgeted));
    HttpGet get = new HttpGet(server.uri("/again"));

    assertThatThrownBy(() -> client.execute(get, response -> response.getCode())).isInstanceOf(AttemptTimeoutException.class);
    String again = client.execute(get, response -> response.getCode() + " " + EntityUtils.toString(response.getEntity()));

    assertThat(again).isEqualTo("200 ok");
    assertThat(get.isCancelled()).isFalse();
    assertThat(server.requests()).containsExactly("1 1 GET /again", "2 2 GET /again");
  }

  @Test
  void T7_anAnswerTimeoutThatIsNotPositiveIsRefusedWithWhatWasGiven() {
    assertThatThrownBy(() -> HostpaceHttpClient5.withAnswerTimeout(HttpClientContext.create(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("answer timeout PT0S is not positive: expected a duration above zero");
  }

  @Test
  void T7_aBodyReadWholeWithinTheAnswerTimeoutIsTheCallersAndItsConnectionIsKept() throws Exception {
    TestServer server = opened.add(TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "ok " + request.path())));
    CloseableHttpClient client = classic(CallContext.DEFAULT);
    HttpClientContext context = HostpaceHttpClient5.withAnswerTimeout(HttpClientContext.create(), Duration.ofMillis(300));

    for (int i = 1; i <= 3; i++) {
      try (ClassicHttpResponse response = client.executeOpen(null, new HttpGet(server.uri("/" + i)), context)) {
        assertThat(EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)).isEqualTo("ok /" + i);
      }
    }
    // Past the timeouts of all three: nothing drops the pooled connection or fails the next call.
    Thread.sleep(400);
    try (ClassicHttpResponse response = client.executeOpen(null, new HttpGet(server.uri("/4")), context)) {
      assertThat(EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8)).isEqualTo("ok /4");
    }
  }

  @Test
  void I3_aCallWhoseHttpContextCarriesNoCallContextGetsTheHandlersDefault() throws Exception {
    TestServer server = opened.add(TestServer.start((request, exchange) -> {
      Thread.sleep(100);
      TestServer.reply(exchange, 200, "ok");
    }));
    CloseableHttpClient client = classic(CallContext.builder().addLimit(server.hostKey(), Limits.inFlight(1)).build());
    List<Thread> callers = new ArrayList<>();
    List<String> answers = new CopyOnWriteArrayList<>();

    for (int i = 0; i < 3; i++) {
      Thread caller = new Thread(() -> {
        try {
          answers.add(get(client, server.uri("/")));
        } catch (Exception e) {
          answers.add(e.toString());
        }
      });
      caller.start();
      callers.add(caller);
    }
    for (Thread caller : callers) {
      caller.join(10_000);
    }

    assertThat(answers).containsExactly("200 ok", "200 ok", "200 ok");
    assertThat(server.maxConcurrent()).isEqualTo(1);
  }

  @Test
  void I3_aRedirectIsFollowedInsideOneAttempt() throws Exception {
    TestServer server = opened.add(TestServer.start((request, exchange) -> {
      if (request.path().equals("/old")) {
        TestServer.reply(exchange, 302, "moved", "Location", "/new");
      } else {
        TestServer.reply(exchange, 200, "here");
      }
    }));

    assertThat(get(classic(CallContext.DEFAULT), server.uri("/old"))).isEqualTo("200 here");

    assertThat(started(events)).containsExactly("/old 1");
    assertThat(server.requests()).extracting(TestServer.Request::path).containsExactly("/old", "/new");
  }

  @Test
  void T5_interruptingAClassicCallerWhoseCallWaitsFailsItAsHttpClientDoesAndKeepsTheInterrupt() throws Exception {
    RawServer raw = opened.add(RawServer.start());
    CloseableHttpClient client = classic(CallContext.builder().addLimit(raw.hostKey(), Limits.inFlight(1)).build());
    HttpGet hanging = new HttpGet(raw.uri("/hang"));
    Thread first = new Thread(() -> {
      try {
        client.executeOpen(null, hanging, null).close();
      } catch (Exception e) {
        // aborted below
      }
    });
    first.start();
    until(() -> raw.paths().contains("/hang"));
    CallerThread caller = CallerThread.start(() -> get(client, raw.uri("/ok")));
    AtomicReference<Throwable> thrown = caller.thrown();
    AtomicReference<Boolean> interruptKept = caller.interruptKept();
    until(() -> waiting(engine) == 1);

    caller.interrupt();
    caller.join(10_000);

    assertThat(thrown.get()).isInstanceOf(RequestFailedException.class).hasMessage("Request aborted");
    assertThat(interruptKept.get()).isTrue();
    assertThat(waiting(engine)).isZero();
    hanging.cancel();
    first.join(10_000);
    assertThat(raw.paths()).containsExactly("/hang");
  }

  @Test
  void T5_cancellingAnAsyncCallInFlightAlwaysReachesItsExchange() throws Exception {
    // HttpClient's AsyncConnectExec can leave a finished connect as the future's dependency, so
    // that its cancel misses the exchange; the handler keeps every dependency and cancels them all.
    RawServer raw = opened.add(RawServer.start());
    AdapterUnderTest async = opened.add(HttpClient5Clients.async(engine));
    CallContext oneAtATime = CallContext.builder().addLimit(raw.hostKey(), Limits.inFlight(1)).build();

    for (int i = 1; i <= 40; i++) {
      Pending hanging = async.start(TestRequest.get(raw.uri("/hang")).context(oneAtATime));
      int arrived = i;
      until(() -> raw.paths().stream().filter("/hang"::equals).count() == arrived);
      hanging.cancel();
      Outcome cancelled = hanging.await(Duration.ofSeconds(10));
      assertThat(cancelled.isFailure()).isTrue();
      until(() -> inFlight(engine) == 0);
      until(() -> raw.abandoned().size() == arrived);
    }
  }

  @Test
  void T5_cancellingAnAsyncCallWhoseBodyIsStillComingAbortsItsExchange() throws Exception {
    SlowBody slow = new SlowBody(10, Duration.ofMillis(100));
    // How the server's sending of the body ended: a write that failed (the client let the
    // connection go) or the last part out, which waits for a /fast that never comes (SlowBody's
    // patience), so the cancel comes first however slowly the machine runs.
    List<String> bodyEnded = new CopyOnWriteArrayList<>();
    TestServer server = opened.add(TestServer.start((request, exchange) -> {
      try {
        slow.handle(request, exchange);
        bodyEnded.add(request.path() + " sent whole");
      } catch (java.io.IOException e) {
        bodyEnded.add(request.path() + " aborted by the client");
        throw e;
      }
    }));
    AdapterUnderTest async = opened.add(HttpClient5Clients.async(engine));

    Pending call = async.start(TestRequest.get(server.uri("/slow")));
    until(() -> !server.requests("/slow").isEmpty() && inFlight(engine) == 0); // the headers arrived: the call is done for the engine
    call.cancel();

    assertThat(call.await(Duration.ofSeconds(10)).isFailure()).isTrue();
    until(() -> !bodyEnded.isEmpty());
    assertThat(bodyEnded).containsExactly("/slow aborted by the client");
    assertThat(slow.trace()).doesNotContain("/slow body complete");
  }

  static String send(CloseableHttpClient client, String method, java.net.URI uri, String body) throws Exception {
    HttpUriRequestBase request = new HttpUriRequestBase(method, uri);
    request.setEntity(new StringEntity(body));
    try (ClassicHttpResponse response = client.executeOpen(null, request, null)) {
      return response.getCode() + " " + EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void T6_aPostWhosePooledConnectionTheServerClosedAfterReadingItIsNotSentAgain() throws Exception {
    // The second request comes on the first one's connection, from the pool; the server reads it and closes.
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 2 ? new ScriptedServer.Close() : new ScriptedServer.Answer(ScriptedServer.OK)));
    CloseableHttpClient client = classic(CallContext.DEFAULT);
    assertThat(send(client, "POST", server.uri("/first"), "one")).isEqualTo("200 ok");

    assertThatThrownBy(() -> send(client, "POST", server.uri("/pay"), "charge")).isInstanceOf(NoHttpResponseException.class);

    assertThat(server.requests()).containsExactly("1 1 POST /first", "2 1 POST /pay");
    assertThat(started(events)).containsExactly("/first 1", "/pay 1");
  }

  @Test
  void T6_aPutWhosePooledConnectionTheServerClosedBeforeAnyAnswerIsSentAgainOnce() throws Exception {
    ScriptedServer server = opened.add(ScriptedServer.start(n -> n == 2 ? new ScriptedServer.Close() : new ScriptedServer.Answer(ScriptedServer.OK)));
    CloseableHttpClient client = classic(CallContext.DEFAULT);
    assertThat(send(client, "PUT", server.uri("/first"), "one")).isEqualTo("200 ok");

    assertThat(send(client, "PUT", server.uri("/doc"), "two")).isEqualTo("200 ok");

    assertThat(server.requests()).containsExactly("1 1 PUT /first", "2 1 PUT /doc", "3 2 PUT /doc");
    assertThat(started(events)).containsExactly("/first 1", "/doc 1", "/doc 2");
  }

  @Test
  void T6_aRetryAfterLongerThanTheServersKeepAliveIsSentAgainPacedWhenItsPooledConnectionDiedBeforeAnyAnswer()
      throws Exception {
    IdleClosingServer server = opened.add(IdleClosingServer.start(Duration.ofMillis(300)));
    HeardAttempts listener = new HeardAttempts();
    CallContext context = CallContext.builder().attemptListener(listener).build();

    // The 429's connection goes back to the pool; the server closes it idle before Retry-After ends.
    assertThat(get(classic(context), server.uri("/a"))).isEqualTo("200 ok");

    assertThat(server.requests()).containsExactly("1 GET /a", "2 GET /a");
    assertThat(server.closedIdle()).isGreaterThanOrEqualTo(1);
    assertThat(listener.heard()).containsExactly("sent 1", "settled 1 429", "retrying 1",
        "sent 2", "settled 2 NoHttpResponseException", "retrying 2", "sent 3", "settled 3 200");
    assertThat(events).filteredOn(HostpaceEvent.Started.class::isInstance).hasSize(3);
    assertThat(events).filteredOn(HostpaceEvent.Retried.class::isInstance).hasSize(2);
  }
}

package io.hostpace.okhttp;

import static io.hostpace.testkit.EngineState.started;
import static io.hostpace.testkit.EngineState.until;
import static io.hostpace.testkit.EngineState.waiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.testkit.CallerThread;
import io.hostpace.testkit.HeardAttempts;
import io.hostpace.testkit.IdleClosingServer;
import io.hostpace.testkit.Opened;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.Refusing;
import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What is OkHttp's own around the interceptor: tags, its place among interceptors, the dispatcher, call timeouts. */
class HostpaceInterceptorTest {

  final List<HostpaceEvent> events = new CopyOnWriteArrayList<>();
  final Hostpace engine = Hostpace.builder().addListener(events::add).build();
  @RegisterExtension final Opened opened = new Opened();

  static Request get(TestServer server, String path) {
    return new Request.Builder().url(server.uri(path).toString()).build();
  }

  static String body(Response response) throws IOException {
    try (response) {
      return response.code() + " " + response.body().string();
    }
  }

  @Test
  void I3_aRequestWithoutACallContextTagGetsTheInterceptorsDefaultContext() throws Exception {
    TestServer server = opened.add(TestServer.start((request, exchange) -> {
      Thread.sleep(100);
      TestServer.reply(exchange, 200, "ok");
    }));
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(HostpaceInterceptor.of(engine, CallContext.builder().addLimit(server.hostKey(), Limits.inFlight(1)).build()))
        .build();

    // A thread each, so that the three are sent at once (the common pool may have fewer threads).
    ExecutorService threads = Executors.newFixedThreadPool(3);
    opened.add(threads::shutdownNow);
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Call call = client.newCall(get(server, "/" + i));
      calls.add(CompletableFuture.supplyAsync(() -> {
        try {
          return body(call.execute());
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, threads));
    }

    assertThat(calls).allSatisfy(call -> assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("200 ok"));
    assertThat(server.maxConcurrent()).isEqualTo(1);
  }

  @Test
  void I3_interceptorsBeforeItSeeTheCallOnceAndThoseAfterItAndNetworkInterceptorsSeeEachAttempt() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.first(2, 429, "0")));
    AtomicInteger before = new AtomicInteger();
    AtomicInteger after = new AtomicInteger();
    List<String> userAgents = new CopyOnWriteArrayList<>();
    Interceptor network = chain -> {
      userAgents.add(chain.request().header("User-Agent"));
      return chain.proceed(chain.request());
    };
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(chain -> {
          before.incrementAndGet();
          return chain.proceed(chain.request());
        })
        .addInterceptor(HostpaceInterceptor.of(engine))
        .addInterceptor(chain -> {
          after.incrementAndGet();
          return chain.proceed(chain.request());
        })
        .addNetworkInterceptor(network)
        .build();

    assertThat(body(client.newCall(get(server, "/")).execute())).isEqualTo("200 answer 3");

    assertThat(before).hasValue(1);
    assertThat(after).hasValue(3);
    assertThat(userAgents).as("OkHttp's bridge keeps the engine's User-Agent").containsExactly(
        Hostpace.DEFAULT_USER_AGENT, Hostpace.DEFAULT_USER_AGENT, Hostpace.DEFAULT_USER_AGENT);
  }

  @Test
  void I3_okHttpItselfRepeatsA503WithRetryAfterZeroOnceInsideOneAttempt() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(503, "0")));
    OkHttpClient client = new OkHttpClient.Builder().addInterceptor(HostpaceInterceptor.of(engine)).build();
    Request request = get(server, "/").newBuilder().tag(CallContext.class, CallContext.builder().retries(1).build()).build();

    assertThat(body(client.newCall(request).execute())).isEqualTo("503 refused 4");

    assertThat(started(events)).as("the engine's attempts").containsExactly("/ 1", "/ 2");
    assertThat(server.requests()).as("OkHttp's RetryAndFollowUpInterceptor sends each attempt twice").hasSize(4);
  }

  @Test
  void T5_okHttpsCallTimeoutSpansTheWaitAndTakesAWaitingCallOutOfItsQueue() throws Exception {
    RawServer raw = opened.add(RawServer.start());
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(HostpaceInterceptor.of(engine, CallContext.builder().addLimit(raw.hostKey(), Limits.inFlight(1)).build()))
        .build();
    Call hanging = client.newCall(new Request.Builder().url(raw.uri("/hang").toString()).build());
    hanging.enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {}

      @Override
      public void onResponse(Call call, Response response) {
        response.close();
      }
    });
    until(() -> raw.paths().contains("/hang"));
    Call waiting = client.newBuilder().callTimeout(300, TimeUnit.MILLISECONDS).build()
        .newCall(new Request.Builder().url(raw.uri("/ok").toString()).build());

    // The place never frees while the hanging call holds it: only the call timeout ends the wait.
    assertThatThrownBy(waiting::execute).isInstanceOf(InterruptedIOException.class).hasMessage("timeout");

    // OkHttp's watchdog thread cancels the call while the caller's thread throws: the two race,
    // so wait (at most 10 s) for the call to leave its queue rather than expect it already gone.
    until(() -> waiting(engine) == 0);
    assertThat(raw.paths()).containsExactly("/hang");
    hanging.cancel();
  }

  @Test
  void T5_interruptingAThreadWhoseCallWaitsFailsItWithInterruptedIOExceptionAndKeepsTheInterrupt() throws Exception {
    RawServer raw = opened.add(RawServer.start());
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(HostpaceInterceptor.of(engine, CallContext.builder().addLimit(raw.hostKey(), Limits.inFlight(1)).build()))
        .build();
    Call hanging = client.newCall(new Request.Builder().url(raw.uri("/hang").toString()).build());
    CompletableFuture.runAsync(() -> {
      try {
        hanging.execute().close();
      } catch (IOException e) {
        // cancelled below
      }
    });
    until(() -> raw.paths().contains("/hang"));
    CallerThread caller = CallerThread.start(() -> client.newCall(new Request.Builder().url(raw.uri("/ok").toString()).build()).execute().close());
    AtomicReference<Throwable> thrown = caller.thrown();
    AtomicReference<Boolean> interruptKept = caller.interruptKept();
    until(() -> waiting(engine) == 1);

    caller.interrupt();
    caller.join(10_000);

    assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
    assertThat(interruptKept.get()).isTrue();
    assertThat(waiting(engine)).isZero();
    hanging.cancel();
    assertThat(raw.paths()).containsExactly("/hang");
  }

  @Test
  void I3_enqueuedCallsThatWaitHoldDispatcherThreadsUpToMaxRequestsPerHostAndTheRestWaitInTheDispatcher() throws Exception {
    AtomicInteger inInterceptor = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    // Answered once a second dispatcher thread is in the interceptor beside the first, however
    // slowly a busy machine runs them (never, if a waiting call held none).
    TestServer server = opened.add(TestServer.start((request, exchange) -> {
      until(() -> most.get() > 1);
      TestServer.reply(exchange, 200, "ok");
    }));
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(chain -> {
          most.accumulateAndGet(inInterceptor.incrementAndGet(), Math::max);
          try {
            return chain.proceed(chain.request());
          } finally {
            inInterceptor.decrementAndGet();
          }
        })
        .addInterceptor(HostpaceInterceptor.of(engine, CallContext.builder().addLimit(server.hostKey(), Limits.inFlight(1)).build()))
        .build();
    List<CompletableFuture<String>> calls = new ArrayList<>();

    for (int i = 0; i < 10; i++) {
      CompletableFuture<String> outcome = new CompletableFuture<>();
      client.newCall(get(server, "/" + i)).enqueue(new Callback() {
        @Override
        public void onFailure(Call call, IOException e) {
          outcome.completeExceptionally(e);
        }

        @Override
        public void onResponse(Call call, Response response) throws IOException {
          outcome.complete(body(response));
        }
      });
      calls.add(outcome);
    }

    assertThat(calls).allSatisfy(call -> assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("200 ok"));
    assertThat(server.maxConcurrent()).isEqualTo(1);
    assertThat(most.get()).as("dispatcher threads in the interceptor at once")
        .isGreaterThan(1).isLessThanOrEqualTo(client.dispatcher().getMaxRequestsPerHost());
  }

  @Test
  void T6_aRetryAfterLongerThanTheServersKeepAliveIsSentAgainPacedWhenItsPooledConnectionDiedBeforeAnyAnswer()
      throws Exception {
    IdleClosingServer server = opened.add(IdleClosingServer.start(Duration.ofMillis(300)));
    HeardAttempts listener = new HeardAttempts();
    CallContext context = CallContext.builder().attemptListener(listener).build();
    OkHttpClient client = HostpaceInterceptor.pace(new OkHttpClient.Builder(), engine, context).build();

    // The 429's connection goes back to OkHttp's pool; the server closes it idle before Retry-After ends.
    Response response = client.newCall(new Request.Builder().url(server.uri("/a").toString()).build()).execute();

    assertThat(body(response)).isEqualTo("200 ok");
    assertThat(server.requests()).containsExactly("1 GET /a", "2 GET /a");
    assertThat(server.closedIdle()).isGreaterThanOrEqualTo(1);
    assertThat(listener.heard()).containsExactly("sent 1", "settled 1 429", "retrying 1",
        "sent 2", "settled 2 IOException", "retrying 2", "sent 3", "settled 3 200");
    assertThat(events).filteredOn(HostpaceEvent.Started.class::isInstance).hasSize(3);
    assertThat(events).filteredOn(HostpaceEvent.Retried.class::isInstance).hasSize(2);
  }

  @Test
  void I7_aRetryAfterBeyondAnIntIsReturnedAsTheServerSentItNotAFailureOfOkHttpsReading() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(503, "99999999999")));
    OkHttpClient client = HostpaceInterceptor.pace(new OkHttpClient.Builder(), engine).build();

    try (Response response = client.newCall(get(server, "/")).execute()) {
      assertThat(response.code()).isEqualTo(503);
      assertThat(response.header("Retry-After")).isEqualTo("99999999999");
      assertThat(response.header(RetryAfterZeroGuard.SET_ASIDE)).isNull();
    }
    assertThat(server.requests()).as("a pause beyond the engine's longest is returned at once").hasSize(1);
  }

  @Test
  void I7_a408WithARetryAfterBeyondAnIntIsNotRepeatedWhereOkHttpWouldRepeatOne() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(408, "99999999999")));
    // OkHttp repeats a 408 itself only with retryOnConnectionFailure, which pace turned off.
    OkHttpClient client = HostpaceInterceptor.pace(new OkHttpClient.Builder(), engine).retryOnConnectionFailure(true).build();

    try (Response response = client.newCall(get(server, "/")).execute()) {
      assertThat(response.code()).isEqualTo(408);
      assertThat(response.header("Retry-After")).isEqualTo("99999999999");
    }
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void I3_theInterceptorAddedTwiceForOneEnginePacesEachCallOnceAndDoesNotWaitForItself() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.first(1, 429, "0")));
    Hostpace oneAtATime = opened.add(Hostpace.builder().addListener(events::add).addLimit(server.hostKey(), Limits.inFlight(1)).build());
    OkHttpClient client = HostpaceInterceptor.pace(HostpaceInterceptor.pace(new OkHttpClient.Builder(), oneAtATime), oneAtATime)
        .build();

    Call call = client.newCall(get(server, "/"));
    CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
      try {
        return body(call.execute());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });

    assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo("200 answer 2");
    assertThat(started(events)).as("the engine's attempts").containsExactly("/ 1", "/ 2");
    assertThat(server.requests()).hasSize(2);
  }
}

package io.hostpace.spring;

import static io.hostpace.testkit.EngineState.until;
import static io.hostpace.testkit.EngineState.waiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.testkit.CallerThread;
import io.hostpace.testkit.Opened;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.Refusing;
import io.hostpace.testkit.TestServer;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.LoopResources;

/** What is Spring's own around the interceptor and the filter: event loops, its exceptions, its interceptor chain, interrupts. */
class SpringAdaptersTest {

  final Hostpace engine = Hostpace.create();
  @RegisterExtension final Opened opened = new Opened();

  RestClient.Builder restClient() {
    return RestClient.builder().requestFactory(new JdkClientHttpRequestFactory(java.net.http.HttpClient.newHttpClient()));
  }

  @Test
  void I3_webClientsWaitingRequestsNeverBlockAnEventLoopBurstOfTenThroughOneLoopThread() throws Exception {
    TestServer server = opened.add(TestServer.start((request, exchange) -> {
      Thread.sleep(50);
      TestServer.reply(exchange, 200, "ok " + request.path());
    }));
    LoopResources oneLoop = LoopResources.create("one-loop", 1, true);
    opened.add(oneLoop::dispose);
    Set<String> attemptThreads = ConcurrentHashMap.newKeySet();
    WebClient client = WebClient.builder()
        .clientConnector(new ReactorClientHttpConnector(HttpClient.create().runOn(oneLoop)))
        .filter(HostpaceExchangeFilter.of(engine, CallContext.builder().addLimit(server.hostKey(), Limits.inFlight(1)).build()))
        .filter((request, next) -> {
          attemptThreads.add(Thread.currentThread().getName());
          return next.exchange(request);
        })
        .build();
    AtomicInteger mostWaiting = new AtomicInteger();

    // If a waiting request held the only event-loop thread, the answer that frees the place could
    // never be read: the burst would never finish.
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      calls.add(client.get().uri(server.uri("/" + i)).retrieve().bodyToMono(String.class).toFuture());
    }
    mostWaiting.set(waiting(engine));

    for (int i = 0; i < 10; i++) {
      assertThat(calls.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("ok /" + i);
    }
    assertThat(mostWaiting.get()).as("requests waiting in the engine after the burst").isEqualTo(9);
    assertThat(server.maxConcurrent()).isEqualTo(1);
    assertThat(attemptThreads).as("threads that sent an attempt").filteredOn(name -> name.startsWith("one-loop"))
        .hasSizeLessThanOrEqualTo(1);
  }

  @Test
  void T3_restClientsRetrieveRaisesSpringsOwnExceptionForTheLastRefusalWithItsBody() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(429, "0")));
    RestClient client = restClient().requestInterceptor(HostpaceRequestInterceptor.of(engine)).build();

    assertThatThrownBy(() -> client.get().uri(server.uri("/"))
            .attribute(HostpaceRequestInterceptor.CALL_CONTEXT, CallContext.builder().retries(1).build())
            .retrieve().body(String.class))
        .isInstanceOfSatisfying(HttpClientErrorException.TooManyRequests.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo("refused 2"));
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void T3_webClientsRetrieveRaisesSpringsOwnExceptionForTheLastRefusalWithItsBody() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(503, "0")));
    WebClient client = WebClient.builder().clientConnector(new ReactorClientHttpConnector())
        .filter(HostpaceExchangeFilter.of(engine, CallContext.builder().retries(1).build())).build();

    Mono<String> call = client.get().uri(server.uri("/")).retrieve().bodyToMono(String.class);

    assertThatThrownBy(() -> call.block(Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(WebClientResponseException.ServiceUnavailable.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo("refused 2"));
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void I3_interceptorsBeforeItSeeTheCallOnceAndThoseAfterItSeeEachAttempt() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.first(2, 429, "0")));
    AtomicInteger before = new AtomicInteger();
    AtomicInteger after = new AtomicInteger();
    RestClient client = restClient()
        .requestInterceptor((request, body, execution) -> {
          before.incrementAndGet();
          return execution.execute(request, body);
        })
        .requestInterceptor(HostpaceRequestInterceptor.of(engine))
        .requestInterceptor((request, body, execution) -> {
          after.incrementAndGet();
          return execution.execute(request, body);
        })
        .build();

    assertThat(client.post().uri(server.uri("/")).body("ASK {}").retrieve().body(String.class)).isEqualTo("answer 3");

    assertThat(before).hasValue(1);
    assertThat(after).hasValue(3);
    assertThat(server.requests()).allSatisfy(request -> assertThat(request.bodyText()).isEqualTo("ASK {}"));
  }

  @Test
  void T5_interruptingARestClientCallerWhoseCallWaitsCancelsItAndKeepsTheInterrupt() throws Exception {
    RawServer raw = opened.add(RawServer.start());
    RestClient client = restClient()
        .requestInterceptor(HostpaceRequestInterceptor.of(engine, CallContext.builder().addLimit(raw.hostKey(), Limits.inFlight(1)).build()))
        .build();
    Thread first = new Thread(() -> {
      try {
        client.get().uri(raw.uri("/hang")).retrieve().toBodilessEntity();
      } catch (RuntimeException e) {
        // interrupted below
      }
    });
    first.start();
    until(() -> raw.paths().contains("/hang"));
    CallerThread caller = CallerThread.start(() -> client.get().uri(raw.uri("/ok")).retrieve().body(String.class));
    AtomicReference<Throwable> thrown = caller.thrown();
    AtomicReference<Boolean> interruptKept = caller.interruptKept();
    until(() -> waiting(engine) == 1);

    caller.interrupt();
    caller.join(10_000);

    assertThat(thrown.get()).isInstanceOf(ResourceAccessException.class).hasCauseInstanceOf(InterruptedIOException.class);
    assertThat(interruptKept.get()).isTrue();
    assertThat(waiting(engine)).isZero();
    first.interrupt(); // the JDK request factory cancels the exchange in flight
    first.join(10_000);
    until(() -> raw.abandoned().contains("/hang"));
    assertThat(raw.paths()).containsExactly("/hang");
  }

  @Test
  void I7_springsRetryTemplateSendsEachOfItsRetriesThroughTheEngineAtTheHostsPace() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.always(503, "0")));
    List<String> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Long> startedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
    Hostpace listened = Hostpace.builder().addListener(event -> {
      if (event instanceof io.hostpace.HostpaceEvent.Started start) {
        started.add(start.uri().getPath());
        startedAt.add(start.atNanos());
      }
    }).build();
    // The engine retries nothing here; Spring's RetryTemplate retries twice, at once.
    CallContext fiveASecond = CallContext.builder().retries(0).addLimit(server.hostKey(), Limits.perSecond(5)).build();
    RestClient client = restClient().requestInterceptor(HostpaceRequestInterceptor.of(listened, fiveASecond)).build();
    org.springframework.core.retry.RetryTemplate retry = new org.springframework.core.retry.RetryTemplate(
        org.springframework.core.retry.RetryPolicy.builder().maxRetries(2).delay(Duration.ZERO).build());

    assertThatThrownBy(() -> retry.execute(() -> client.get().uri(server.uri("/busy")).retrieve().body(String.class)))
        .isInstanceOf(org.springframework.core.retry.RetryException.class)
        .hasRootCauseInstanceOf(org.springframework.web.client.HttpServerErrorException.ServiceUnavailable.class);

    // Each of Spring's attempts went through the engine: started by it, and spaced by the host's
    // rate on the engine's clock (the server's clock sees them arrive closer or further apart).
    assertThat(started).containsExactly("/busy", "/busy", "/busy");
    assertThat(server.requests()).hasSize(3);
    for (int i = 1; i < startedAt.size(); i++) {
      assertThat(Duration.ofNanos(startedAt.get(i) - startedAt.get(i - 1))).as("%s", startedAt)
          .isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }
  }

  @Test
  void T7_anAnswerTimeoutThatIsNotPositiveIsRefusedWithWhatWasGiven() {
    assertThatThrownBy(() -> HostpaceRequestInterceptor.of(engine).withAnswerTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("answer timeout PT-1S is not positive: expected a duration above zero");
  }

  @Test
  void T7_theInterceptorsAnswerTimeoutBoundsABodyThatStallsWhenTheRequestCarriesNone() throws Exception {
    RawServer raw = opened.add(RawServer.start());
    RestClient client = restClient()
        .requestInterceptor(HostpaceRequestInterceptor.of(engine).withAnswerTimeout(Duration.ofMillis(300))).build();

    // The headers come at once and promise 1 MiB, which never comes: only the answer timeout ends it.

    Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
        () -> client.get().uri(raw.uri("/stall")).retrieve().body(String.class));
    assertThat(failure).isInstanceOf(org.springframework.web.client.RestClientException.class);
    Throwable timeout = failure;
    while (timeout != null && !(timeout instanceof java.net.SocketTimeoutException)) {
      timeout = timeout.getCause();
    }
    assertThat(timeout).as("the SocketTimeoutException in the causes of %s", failure).isNotNull()
        .hasMessageContaining("/stall: the answer was not read whole within its answer timeout of PT0.3S");
  }

  @Test
  void I3_eachAttemptCarriesTheHeadersOfTheFirstNotThoseAnInterceptorAfterItAddedToTheOnesBefore() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.first(2, 429, "0")));
    RestClient client = restClient()
        .requestInterceptor(HostpaceRequestInterceptor.of(engine))
        .requestInterceptor((request, body, execution) -> {
          request.getHeaders().add("X-Trace", "t");
          return execution.execute(request, body);
        })
        .build();

    assertThat(client.get().uri(server.uri("/")).retrieve().body(String.class)).isEqualTo("answer 3");

    assertThat(server.requests()).hasSize(3)
        .allSatisfy(request -> assertThat(request.headers("X-Trace")).containsExactly("t"));
  }

  @Test
  void I3_theInterceptorAddedTwiceForOneEnginePacesEachCallOnceAndDoesNotWaitForItself() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.first(1, 429, "0")));
    Hostpace oneAtATime = opened.add(Hostpace.builder().addLimit(server.hostKey(), Limits.inFlight(1)).build());
    RestClient client = restClient()
        .requestInterceptor(HostpaceRequestInterceptor.of(oneAtATime))
        .requestInterceptor(HostpaceRequestInterceptor.of(oneAtATime))
        .build();

    CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> client.get().uri(server.uri("/")).retrieve().body(String.class));

    assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo("answer 2");
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void I3_theFilterAddedTwiceForOneEnginePacesEachCallOnceAndDoesNotWaitForItself() throws Exception {
    TestServer server = opened.add(TestServer.start(Refusing.first(1, 429, "0")));
    Hostpace oneAtATime = opened.add(Hostpace.builder().addLimit(server.hostKey(), Limits.inFlight(1)).build());
    WebClient client = WebClient.builder()
        .filter(HostpaceExchangeFilter.of(oneAtATime))
        .filter(HostpaceExchangeFilter.of(oneAtATime))
        .build();

    assertThat(client.get().uri(server.uri("/")).retrieve().bodyToMono(String.class).toFuture().get(10, TimeUnit.SECONDS))
        .isEqualTo("answer 2");
    assertThat(server.requests()).hasSize(2);
  }
}

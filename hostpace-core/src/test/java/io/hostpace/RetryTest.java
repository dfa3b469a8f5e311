package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** SPEC T1 to T6: retries, the last response, bodies, cancellation. */
class RetryTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok());

  Hostpace.Builder engine() {
    return Hostpace.builder().time(time);
  }

  @Test
  void T1_aRefusedRequestIsRetriedThroughItsQueueAheadOfRequestsThatArrivedAfterIt() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/1") && exchange.sends == 1
        ? Reply.refuse(429, "1")
        : Reply.ok());
    engine.execute(server.get("http://a.test/1"));
    engine.execute(server.get("http://a.test/2"));
    time.advance(Duration.ofMillis(500));
    engine.execute(server.get("http://a.test/3"));
    time.advance(Duration.ofSeconds(5));

    assertThat(server.starts()).containsExactly("0.000 /1", "1.100 /1", "1.200 /2", "1.300 /3");
  }

  @Test
  void T1_retriesAreFiveUnlessTheContextSetsACount() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.refuse(429, "0"));
    CompletableFuture<Response> byDefault = engine.execute(server.get("http://a.test/"));
    CompletableFuture<Response> two = engine.execute(server.get("http://b.test/"), CallContext.builder().retries(2).build());
    time.advance(Duration.ofSeconds(10));

    assertThat(byDefault.join().attempt()).isEqualTo(6);
    assertThat(two.join().attempt()).isEqualTo(3);
  }

  @Test
  void T2_withARetryCountInTheContextA504OrAListedStatusIsRetriedAfterTheFallbackDelay() {
    Hostpace engine = engine().build();
    AtomicInteger n = new AtomicInteger();
    server.script(exchange -> switch (n.incrementAndGet()) {
      case 1 -> Reply.status(504).after(Duration.ZERO);
      case 2 -> Reply.status(502).after(Duration.ZERO);
      default -> Reply.ok().after(Duration.ZERO);
    });
    CallContext context = CallContext.builder().retries(3).retryStatuses(Set.of(502))
        .retryFallbackDelay(Duration.ofSeconds(2)).build();
    CompletableFuture<Response> call = engine.execute(server.get("http://a.test/"), context);
    time.advance(Duration.ofSeconds(10));

    assertThat(call.join().status()).isEqualTo(200);
    assertThat(server.startTimes("a.test")).containsExactly("0.000", "2.000", "4.000");
  }

  @Test
  void T2_withoutARetryCountInTheContextA504IsReturnedAsItIs() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.status(504));
    CompletableFuture<Response> call = engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(10));
    assertThat(call.join().status()).isEqualTo(504);
    assertThat(server.log).hasSize(1);
  }

  @Test
  void T3_whenRetriesRunOutTheLastResponseIsReturnedAsItIs() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.refuse(503, "0").header("x-attempt", Integer.toString(exchange.sends)));
    CompletableFuture<Response> call = engine.execute(server.get("http://a.test/"), CallContext.builder().retries(1).build());
    time.advance(Duration.ofSeconds(5));

    Response last = call.join();
    assertThat(last.status()).isEqualTo(503);
    assertThat(last.headers()).containsEntry("x-attempt", "2");
    assertThat(last.discarded(server)).isFalse();
    assertThat(server.discarded).hasSize(1).allSatisfy(r -> assertThat(r.attempt()).isEqualTo(1));
  }

  @Test
  void T4_aBodyThatCanBeSentOnlyOnceIsSentOnce() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.refuse(429, "0"));
    FakeServer.FakeExchange stream = server.post("http://a.test/upload", false);
    CompletableFuture<Response> call = engine.execute(stream);
    time.advance(Duration.ofSeconds(5));

    assertThat(stream.sends).isEqualTo(1);
    assertThat(call.join().status()).isEqualTo(429);
  }

  @Test
  void T4_aBodyThatCanBeProducedAgainIsSentWholeOnEveryAttempt() {
    Hostpace engine = engine().build();
    server.script(RefusalTest.refuseFirst(2, Reply.refuse(429, "0")));
    FakeServer.FakeExchange replayable = server.post("http://a.test/sparql", true);
    CompletableFuture<Response> call = engine.execute(replayable);
    time.advance(Duration.ofSeconds(5));

    assertThat(replayable.sends).isEqualTo(3);
    assertThat(call.join().status()).isEqualTo(200);
  }

  @Test
  void T5_cancellingAWaitingRequestRemovesItAndFreesNothingItDoesNotHold() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    engine.execute(server.get("http://a.test/1"));
    CompletableFuture<Response> second = engine.execute(server.get("http://a.test/2"));
    engine.execute(server.get("http://a.test/3"));
    time.runDue();

    second.cancel(true);

    assertThat(engine.snapshot()).singleElement().satisfies(host -> {
      assertThat(host.inFlight()).isEqualTo(1);
      assertThat(host.waiting()).isEqualTo(1);
    });
    time.runDue();
    assertThat(server.log).hasSize(1); // /3 still waits for /1's place
    time.advance(Duration.ofSeconds(3));
    assertThat(server.starts()).containsExactly("0.000 /1", "1.000 /3");
  }

  @Test
  void T5_cancellingAStartedRequestFreesItsPlaceAndCancelsTheAttempt() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/1") ? Reply.never() : Reply.ok());
    FakeServer.FakeExchange hanging = server.get("http://a.test/1");
    CompletableFuture<Response> first = engine.execute(hanging);
    engine.execute(server.get("http://a.test/2"));
    time.advance(Duration.ofSeconds(5));
    assertThat(server.log).hasSize(1);

    first.cancel(true);
    time.runDue();

    assertThat(hanging.pending).isCancelled();
    assertThat(server.starts()).containsExactly("0.000 /1", "5.000 /2");
  }

  /**
   * The ways besides {@code cancel} a caller can end its call's future exceptionally (SPEC T5):
   * each, and the failure {@code join} then gives as its cause.
   */
  static Stream<Arguments> waysToEndAFutureExceptionally() {
    Consumer<CompletableFuture<Response>> timedOut =
        future -> future.completeExceptionally(new TimeoutException("the caller's own deadline"));
    Consumer<CompletableFuture<Response>> obtruded =
        future -> future.obtrudeException(new IllegalStateException("the caller's own recovery"));
    Consumer<CompletableFuture<Response>> supplied = future -> future.completeAsync(() -> {
      throw new IllegalStateException("the caller's own supplier");
    }, Runnable::run);
    return Stream.of(
        Arguments.of("completeExceptionally, as orTimeout does", timedOut, TimeoutException.class),
        Arguments.of("obtrudeException", obtruded, IllegalStateException.class),
        Arguments.of("completeAsync with a supplier that throws", supplied, IllegalStateException.class));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("waysToEndAFutureExceptionally")
  void T5_aFutureEndedExceptionallyByTheCallerEndsTheCallAsACancellationDoes(
      String way, Consumer<CompletableFuture<Response>> end, Class<? extends Throwable> cause) {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/1") ? Reply.never() : Reply.ok());
    FakeServer.FakeExchange hanging = server.get("http://a.test/1");
    CompletableFuture<Response> first = engine.execute(hanging);
    CompletableFuture<Response> waiting = engine.execute(server.get("http://a.test/2"));
    time.runDue();

    end.accept(first);
    time.runDue();

    assertThat(hanging.pending).isCancelled();
    assertThat(server.starts()).containsExactly("0.000 /1", "0.000 /2");
    assertThatThrownBy(first::join).isInstanceOf(CompletionException.class).hasCauseInstanceOf(cause);
    waiting.completeExceptionally(new TimeoutException());
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }

  @Test
  void T5_aDependentStageThatFailsDoesNotEndTheCall() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    CompletableFuture<Response> first = engine.execute(server.get("http://a.test/1"));
    CompletableFuture<Response> second = engine.execute(server.get("http://a.test/2"));
    CompletableFuture<Response> failing = first.thenApply(response -> {
      throw new IllegalStateException("the caller's own stage");
    });
    CompletableFuture<Response> dependent = second.thenApply(response -> response);
    time.runDue();

    dependent.cancel(true);
    dependent.completeExceptionally(new IllegalStateException("ended by the caller"));
    time.advance(Duration.ofSeconds(5));

    assertThat(failing).isCompletedExceptionally();
    assertThat(first.join().status()).isEqualTo(200);
    assertThat(second.join().status()).isEqualTo(200);
    assertThat(server.starts()).containsExactly("0.000 /1", "1.000 /2");
  }

  @Test
  void T5_cancellingARequestThatWaitsToBeRetriedTakesItOut() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.status(504).after(Duration.ZERO));
    CompletableFuture<Response> call = engine.execute(server.get("http://a.test/"),
        CallContext.builder().retries(3).retryFallbackDelay(Duration.ofSeconds(10)).build());
    time.advance(Duration.ofSeconds(1));
    call.cancel(true);
    time.advance(Duration.ofSeconds(30));
    assertThat(server.log).hasSize(1);
    // Nothing waits and no queue is held; the host, known by its answer, keeps what its opening
    // was widened to (SPEC P12).
    assertThat(engine.snapshot()).singleElement().satisfies(host -> {
      assertThat(host.queues()).isZero();
      assertThat(host.waiting()).isZero();
      assertThat(host.inFlight()).isZero();
    });
  }

  @Test
  void T6_aPostIsRetriedOnARefusalButNeverOnATimeoutOrAFailure() {
    Hostpace engine = engine().build();
    server.script(RefusalTest.refuseFirst(1, Reply.refuse(429, "0")));
    CompletableFuture<Response> refused = engine.execute(server.post("http://a.test/refused", true));
    time.advance(Duration.ofSeconds(1));
    assertThat(refused.join().status()).isEqualTo(200);

    server.script(exchange -> Reply.fail(new UncheckedIOException(new IOException("timed out"))));
    CompletableFuture<Response> failed = engine.execute(server.post("http://a.test/failed", true),
        CallContext.builder().retries(3).build());
    time.advance(Duration.ofSeconds(1));
    assertThatThrownBy(failed::join).isInstanceOf(CompletionException.class)
        .hasRootCauseMessage("timed out");

    server.script(exchange -> Reply.status(504));
    CompletableFuture<Response> gatewayTimeout = engine.execute(server.post("http://a.test/504", true),
        CallContext.builder().retries(3).build());
    time.advance(Duration.ofSeconds(10));
    assertThat(gatewayTimeout.join().status()).isEqualTo(504);
    assertThat(server.startTimes("/failed")).hasSize(1);
    assertThat(server.startTimes("/504")).hasSize(1);
  }

  @Test
  void T6_aRequestWhoseConnectionDiedBeforeAnyAnswerIsSentOnceMoreThroughItsQueuePacedAndCounted() {
    List<HostpaceEvent> events = new ArrayList<>();
    Hostpace engine = engine().addLimit("a.test", Limits.parse("inFlight:1,perSecond:1")).addListener(events::add).build();
    server.script(exchange -> exchange.uri.getPath().equals("/1") && exchange.sends == 1
        ? Reply.deadConnection()
        : Reply.ok());
    List<String> heard = new ArrayList<>();
    CallContext context = CallContext.builder().attemptListener(new AttemptListener() {
      @Override
      public void sent(URI uri, int attempt) {
        heard.add(server.now() + " sent " + uri.getPath() + " " + attempt);
      }

      @Override
      public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
        heard.add(server.now() + " settled " + uri.getPath() + " " + attempt + " " + status);
      }

      @Override
      public void retrying(URI uri, int attempt) {
        heard.add(server.now() + " retrying " + uri.getPath() + " " + attempt);
      }
    }).build();
    CompletableFuture<Response> first = engine.execute(server.get("http://a.test/1"), context);
    CompletableFuture<Response> second = engine.execute(server.get("http://a.test/2"), context);
    time.advance(Duration.ofMillis(1500));
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.retries()).isEqualTo(1));
    time.advance(Duration.ofSeconds(5));

    // at 0 s /1 goes and its connection dies; it goes again ahead of /2, at the host's pace (1 s and its margin)
    assertThat(first.join().status()).isEqualTo(200);
    assertThat(first.join().attempt()).isEqualTo(2);
    assertThat(second.join().status()).isEqualTo(200);
    assertThat(server.starts()).containsExactly("0.000 /1", "1.020 /1", "2.040 /2");
    assertThat(heard).containsExactly("0.000 sent /1 1", "0.100 settled /1 1 -1", "0.100 retrying /1 1",
        "1.020 sent /1 2", "1.120 settled /1 2 200", "2.040 sent /2 1", "2.140 settled /2 1 200");
    assertThat(events).filteredOn(event -> event instanceof HostpaceEvent.Retried).hasSize(1);
    assertThat(events).filteredOn(event -> event instanceof HostpaceEvent.Started).hasSize(3);
  }

  @Test
  void T6_aConnectionThatDiesBeforeAnyAnswerAgainReachesTheCallerWithTheClientsOwnFailure() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.deadConnection());
    FakeServer.FakeExchange exchange = server.get("http://a.test/");
    CompletableFuture<Response> call = engine.execute(exchange, CallContext.builder().retries(5).build());
    time.advance(Duration.ofSeconds(5));

    assertThatThrownBy(call::join).isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(FakeServer.DeadConnection.class);
    assertThat(exchange.sends).isEqualTo(2);
  }

  @Test
  void T6_aRequestThatCannotBeSentAgainIsNotSentAgainWhenItsConnectionDies() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.deadConnection());
    FakeServer.FakeExchange stream = server.post("http://a.test/upload", false);
    CompletableFuture<Response> call = engine.execute(stream);
    time.advance(Duration.ofSeconds(5));

    assertThatThrownBy(call::join).hasCauseInstanceOf(FakeServer.DeadConnection.class);
    assertThat(stream.sends).isEqualTo(1);
  }

  @Test
  void T6_aPostWithABodyThatCanBeProducedAgainIsSentAgainWhenItsConnectionDiesBeforeAnyAnswer() {
    Hostpace engine = engine().build();
    server.script(exchange -> exchange.sends == 1 ? Reply.deadConnection() : Reply.ok());
    FakeServer.FakeExchange post = server.post("http://a.test/sparql", true);
    CompletableFuture<Response> call = engine.execute(post);
    time.advance(Duration.ofSeconds(5));

    assertThat(call.join().status()).isEqualTo(200);
    assertThat(post.sends).isEqualTo(2);
  }

  @Test
  void T6_anyOtherFailureIsNotSentAgain() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.fail(new UncheckedIOException(new IOException("Connection reset"))));
    FakeServer.FakeExchange exchange = server.get("http://a.test/");
    CompletableFuture<Response> call = engine.execute(exchange, CallContext.builder().retries(5).build());
    time.advance(Duration.ofSeconds(5));

    assertThatThrownBy(call::join).hasRootCauseMessage("Connection reset");
    assertThat(exchange.sends).isEqualTo(1);
  }

  @Test
  void aUriWithoutAHostFailsTheCallAndHoldsNothing() {
    Hostpace engine = engine().build();
    CompletableFuture<Response> call = engine.execute(server.get("mailto:someone@example.org"));
    assertThatThrownBy(call::join).hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(engine.snapshot()).isEmpty();
  }

  @Test
  void anythingTheServerSendsNeverThrowsOutOfTheEngineOrLeavesAPlaceHeld() {
    List<Integer> statuses = List.of(-1, 0, 99, 100, 199, 304, 405, 429, 503, 600, 999, Integer.MAX_VALUE, Integer.MIN_VALUE);
    List<String> retryAfters = List.of("", " ", "-1", "1e9", "99999999999999999999999", "\u0000", "Sun, 31 Feb 2026 00:00:00 GMT",
        "0.0000000001", "9".repeat(10_000));
    Hostpace engine = engine().retries(1).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int status : statuses) {
      for (String retryAfter : retryAfters) {
        server.script(exchange -> Reply.refuse(status, retryAfter));
        calls.add(engine.execute(server.get("http://a.test/" + status)));
        time.advance(Duration.ofSeconds(61));
      }
    }
    time.advance(Duration.ofSeconds(120));
    assertThat(calls).allSatisfy(call -> assertThat(call).isCompleted());
    assertThat(engine.snapshot()).allSatisfy(h -> assertThat(h.inFlight()).isZero());
  }

  @Test
  void anExchangeThatThrowsReadingTheAnswerFailsTheCallAndFreesItsPlace() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    FakeServer.FakeExchange broken = server.new FakeExchange(java.net.URI.create("http://a.test/broken"), "GET", true) {
      @Override
      public int status(Response response) {
        throw new IllegalStateException("malformed status line");
      }
    };
    CompletableFuture<Response> call = engine.execute(broken);
    CompletableFuture<Response> next = engine.execute(server.get("http://a.test/next"));
    time.advance(Duration.ofSeconds(1));

    assertThatThrownBy(call::join).hasRootCauseMessage("malformed status line");
    assertThat(next.join().status()).isEqualTo(200);
    assertThat(server.discarded).hasSize(1);
  }

  /** An exchange whose attempts end with the futures it is handed, and which keeps the failures it judges. */
  static final class HandedExchange implements io.hostpace.spi.Exchange<Integer> {
    final URI uri;
    final List<CompletableFuture<Integer>> futures = new ArrayList<>();
    final List<Throwable> judged = new ArrayList<>();
    int sends;

    HandedExchange(String uri) {
      this.uri = URI.create(uri);
    }

    @Override public URI uri() { return uri; }
    @Override public String method() { return "GET"; }
    @Override public boolean canResend() { return true; }
    @Override public CompletableFuture<Integer> send() { return futures.get(sends++); }
    @Override public int status(Integer response) { return response; }
    @Override public @Nullable String header(Integer response, String name) { return null; }
    @Override public void discard(Integer response) {}

    @Override
    public boolean diedBeforeAnswer(Throwable failure) {
      judged.add(failure);
      return false;
    }
  }

  @Test
  void anAttemptAnsweredBeforeItsSendReturnedEndsAsOneAnsweredLater() {
    IOException io = new IOException("reset");
    CompletionException wrapped = new CompletionException(new IOException("wrapped"));
    CancellationException cancelled = new CancellationException("let go");
    List<java.util.function.Consumer<CompletableFuture<Integer>>> endings = List.of(
        future -> future.completeExceptionally(io),
        future -> future.completeExceptionally(wrapped),
        future -> future.completeExceptionally(cancelled),
        future -> future.cancel(true),
        future -> future.complete(null),
        future -> future.complete(404));
    for (var ending : endings) {
      HandedExchange atOnce = new HandedExchange("http://a.test/");
      CompletableFuture<Integer> done = new CompletableFuture<>();
      ending.accept(done);
      atOnce.futures.add(done);
      HandedExchange later = new HandedExchange("http://b.test/");
      CompletableFuture<Integer> pending = new CompletableFuture<>();
      later.futures.add(pending);
      Hostpace engine = engine().build();

      CompletableFuture<Integer> first = engine.execute(atOnce);
      CompletableFuture<Integer> second = engine.execute(later);
      time.runDue();
      ending.accept(pending);
      time.advance(Duration.ofSeconds(60));

      assertThat(atOnce.sends).isEqualTo(1);
      assertThat(later.sends).isEqualTo(1);
      assertThat(first).isDone();
      assertThat(second).isDone();
      assertThat(atOnce.judged).hasSameSizeAs(later.judged);
      for (int i = 0; i < atOnce.judged.size(); i++) {
        Throwable a = atOnce.judged.get(i);
        Throwable b = later.judged.get(i);
        assertThat(a).isInstanceOf(b.getClass());
        assertThat(a == b || a instanceof CancellationException && b instanceof CancellationException).isTrue();
      }
      Object firstEnd = first.handle((response, failure) -> failure != null ? failure : response).join();
      Object secondEnd = second.handle((response, failure) -> failure != null ? failure : response).join();
      if (firstEnd instanceof Throwable a) {
        assertThat(a).isInstanceOf(secondEnd.getClass());
        assertThat(a == secondEnd || a instanceof CancellationException || a instanceof NullPointerException).isTrue();
      } else {
        assertThat(firstEnd).isEqualTo(secondEnd);
      }
      assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
    }
  }
}

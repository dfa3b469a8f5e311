package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.Probe;
import io.hostpace.testing.LocalFleet;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** SPEC T8: closing the engine ends what waits, lets what is in flight answer, and holds nothing. */
class ClosingTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok());

  Hostpace.Builder engine() {
    return Hostpace.builder().time(time);
  }

  /** A probe of HEAD / to the server, which answers it as its script says. */
  Probe headOfRoot() {
    return new Probe() {
      @Override
      public Exchange<?> exchange(URI seen, String userAgent) {
        return server.new FakeExchange(seen.resolve("/"), "HEAD", true);
      }
    };
  }

  @Test
  void T8_aCallMadeAfterTheCloseFailsAtOnceAndTheMessageShowsNoPathNorQuery() {
    Hostpace engine = engine().build();
    engine.close();

    CompletableFuture<Response> call = engine.execute(server.get("https://user:pw@a.test:8443/data?key=secret"));

    assertThat(engine.isClosed()).isTrue();
    assertThat(call).isCompletedExceptionally();
    assertThatThrownBy(call::join).hasCauseInstanceOf(HostpaceClosedException.class)
        .hasRootCauseMessage("the Hostpace engine was closed: the call to https://a.test:8443 was ended before it was sent")
        .hasMessageNotContaining("secret").hasMessageNotContaining("/data").hasMessageNotContaining("pw");
    assertThatThrownBy(() -> engine.send(server.get("http://a.test/"))).isInstanceOf(HostpaceClosedException.class);
    assertThat(server.log).isEmpty();
  }

  @Test
  void T8_theMessageNamesAHostTheJdkDoesNotReadByItsAuthorityWithoutUserInfo() {
    Hostpace engine = engine().build();
    engine.close();

    CompletableFuture<Response> call = engine.execute(server.get("http://user:pw@a_b.test:8080/data?key=secret"));

    assertThatThrownBy(call::join).hasCauseInstanceOf(HostpaceClosedException.class)
        .hasRootCauseMessage("the Hostpace engine was closed: the call to http://a_b.test:8080 was ended before it was sent");
  }

  @Test
  void T8_callsWaitingInTheirQueueEndAtTheCloseAndTheOneInFlightGetsItsAnswer() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    CompletableFuture<Response> first = engine.execute(server.get("http://a.test/1"));
    CompletableFuture<Response> second = engine.execute(server.get("http://a.test/2"));
    CompletableFuture<Response> third = engine.execute(server.get("http://a.test/3"));
    time.advance(Duration.ofMillis(500));

    engine.close();

    assertThat(second).isCompletedExceptionally();

    assertThatThrownBy(second::join).hasCauseInstanceOf(HostpaceClosedException.class)
        .hasRootCauseMessage("the Hostpace engine was closed: the call to http://a.test was ended before it was sent");
    assertThat(third).isCompletedExceptionally();
    assertThatThrownBy(third::join).hasCauseInstanceOf(HostpaceClosedException.class);
    assertThat(first).isNotDone();
    time.advance(Duration.ofSeconds(5));
    assertThat(first.join().status()).isEqualTo(200);
    assertThat(server.starts()).containsExactly("0.000 /1");
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
  }

  @Test
  void T8_aRefusalAnsweredAfterTheCloseIsReturnedAsWhenRetriesRunOut() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.refuse(429, "1").after(Duration.ofSeconds(1)));
    CompletableFuture<Response> call = engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofMillis(500));

    engine.close();
    time.advance(Duration.ofSeconds(10));

    assertThat(call.join().status()).isEqualTo(429);
    assertThat(call.join().attempt()).isEqualTo(1);
    assertThat(call.join().discarded(server)).isFalse();
    assertThat(server.log).hasSize(1);
  }

  @Test
  void T8_callsWaitingOutARetryDelayOrAPauseEndAtTheClose() {
    Hostpace engine = engine().build();
    server.script(exchange -> exchange.uri.getHost().equals("late.test")
        ? Reply.status(504).after(Duration.ZERO)
        : Reply.refuse(429, "30").after(Duration.ZERO));
    CompletableFuture<Response> later = engine.execute(server.get("http://late.test/"),
        CallContext.builder().retries(3).retryFallbackDelay(Duration.ofSeconds(10)).build());
    CompletableFuture<Response> paused = engine.execute(server.get("http://paused.test/"));
    time.advance(Duration.ofSeconds(1));
    assertThat(later).isNotDone();
    assertThat(paused).isNotDone();

    engine.close();

    assertThat(later).isCompletedExceptionally();

    assertThatThrownBy(later::join).hasCauseInstanceOf(HostpaceClosedException.class)
        .hasRootCauseMessage("the Hostpace engine was closed: the call to http://late.test was ended before its next attempt");
    assertThat(paused).isCompletedExceptionally();
    assertThatThrownBy(paused::join).hasCauseInstanceOf(HostpaceClosedException.class)
        .hasRootCauseMessage("the Hostpace engine was closed: the call to http://paused.test was ended before its next attempt");
    time.advance(Duration.ofSeconds(60));
    assertThat(server.log).hasSize(2);
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.waiting()).isZero());
  }

  @Test
  void T8_aClosedEngineNoLongerHearsItsFleet() {
    LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(1));
    Hostpace closed = engine().fleet(fleet.join()).build();
    Hostpace open = engine().fleet(fleet.join()).build();
    Hostpace listening = engine().fleet(fleet.join()).build();
    server.script(exchange -> Reply.refuse(429, "30").after(Duration.ZERO));

    closed.close();
    open.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    // a Retry-After heard holds the host, paused, in an engine that listens (SPEC S2)
    assertThat(listening.snapshot()).extracting(HostSnapshot::key).containsExactly("a.test");
    assertThat(closed.snapshot()).isEmpty();
  }

  @Test
  void T8_aClosedEngineSendsNoMoreProbes() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().defaultBudget(Duration.ofSeconds(60))
            .probe(Duration.ofSeconds(2)).build()))
        .probe(headOfRoot()).build();
    server.script(exchange -> Reply.fail(new UncheckedIOException(new ConnectException("Connection refused")))
        .after(Duration.ofMillis(5)));
    for (int i = 0; i < 3; i++) { // down, its probe due at the end of a cool-down of 1 s (SPEC D6)
      engine.execute(server.get("http://dead.test/sparql?q=" + i));
      time.advance(Duration.ofMillis(10));
    }

    engine.close();

    // nothing is left to run: no probe is due any more (one that failed at the closed engine
    // would have the next scheduled, for ever)
    assertThat(time.pendingTasks()).isZero();
    assertThat(time.runUntilIdle(Duration.ofDays(1))).isEqualTo(Duration.ZERO);
    assertThat(server.startTimes("HEAD")).isEmpty();
    assertThat(server.log).hasSize(3);
  }

  @Test
  void T8_aCallWaitingForAProbeOutEndsAtTheClose() {
    // The probe never answers: its budget of 30 s would end it, but the call that waits for it
    // is ended by the close, as every call that waits is. (It once waited for the probe's end, and
    // then came to the closing engine, which released a lock it had not taken: the call waited for
    // good.)
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().failFastAfter(1)
            .coolDown(Duration.ofMillis(200), Duration.ofSeconds(10)).probe(Duration.ofSeconds(30)).build()))
        .probe(headOfRoot()).build();
    server.script(exchange -> exchange.method.equals("HEAD") ? Reply.never()
        : Reply.fail(new UncheckedIOException(new ConnectException("Connection refused"))).after(Duration.ofMillis(5)));
    engine.execute(server.get("http://dead.test/sparql?q=1"));
    time.advance(Duration.ofMillis(400)); // down, its probe out since 205 ms
    CompletableFuture<Response> waiting = engine.execute(server.get("http://dead.test/sparql?q=2"));
    time.advance(Duration.ofMillis(100));
    assertThat(waiting).isNotDone();

    engine.close();

    assertThat(waiting).isCompletedExceptionally();
    assertThatThrownBy(waiting::join).hasCauseInstanceOf(HostpaceClosedException.class);
    // The probe in flight goes on to its end, which changes nothing more.
    time.runUntilIdle(Duration.ofMinutes(5));
    assertThat(server.log).hasSize(2);
  }

  @Test
  void T8_closingTwiceDoesNothingMore() {
    Hostpace engine = engine().build();
    CompletableFuture<Response> call = engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    engine.close();
    engine.close();

    assertThat(call.join().status()).isEqualTo(200);
    assertThat(engine.isClosed()).isTrue();
  }
}

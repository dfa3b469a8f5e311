package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The engine applies its timeout policy to every attempt, in virtual time (SPEC D1 to D3). */
class TimeoutBudgetTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok());

  @Test
  void D1_anAttemptWithNoAnswerWithinItsBudgetEndsAsATimeoutFreesItsPlaceAndIsNotRetried() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).timeoutPolicy(TimeoutPolicy.fixed(Duration.ofSeconds(2)))
        .addLimit("a.test", Limits.inFlight(1)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/hang") ? Reply.never() : Reply.ok());
    FakeServer.FakeExchange hanging = server.get("http://a.test/hang");
    CompletableFuture<Response> call = engine.execute(hanging, CallContext.builder().retries(3).build());
    engine.execute(server.get("http://a.test/next"));

    time.advance(Duration.ofMillis(1999));
    assertThat(call).isNotDone();
    time.advance(Duration.ofMillis(1));

    assertThatThrownBy(call::join).isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(AttemptTimeoutException.class)
        .hasMessageContaining("no answer from a.test within 2 s");
    assertThat(hanging.pending).isCancelled();
    assertThat(server.starts()).containsExactly("0.000 /hang", "2.000 /next");
  }

  @Test
  void D2_aKindsBudgetFollowsItsSuccessesWhileAnotherKindKeepsTheFullBudget() {
    TimeoutPolicy policy = TimeoutPolicy.adaptive(AdaptiveTimeouts.builder()
        .defaultBudget(Duration.ofSeconds(60)).floor(Duration.ofSeconds(1)).margin(2).build());
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).timeoutPolicy(policy).build();
    CallContext fast = CallContext.builder().kind("fast").build();
    CallContext heavy = CallContext.builder().kind("heavy").build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(3)));
    for (int i = 0; i < 3; i++) {
      engine.execute(server.get("http://a.test/fast" + i), fast);
      time.advance(Duration.ofSeconds(5));
    }

    server.script(exchange -> Reply.never());
    CompletableFuture<Response> fastHang = engine.execute(server.get("http://a.test/fast-hang"), fast);
    CompletableFuture<Response> heavyHang = engine.execute(server.get("http://a.test/heavy-hang"), heavy);
    time.advance(Duration.ofSeconds(6));
    assertThat(fastHang).isCompletedExceptionally(); // 3 s seen, margin 2: a 6 s budget
    assertThat(heavyHang).isNotDone();
    time.advance(Duration.ofSeconds(54));
    assertThat(heavyHang).isCompletedExceptionally(); // never seen: the default 60 s
  }

  @Test
  void D8_a504AtTheServersLimitIsNotSentAgainWhileAQuickOneIs() {
    TimeoutPolicy policy = TimeoutPolicy.adaptive(AdaptiveTimeouts.builder()
        .defaultBudget(Duration.ofSeconds(300)).serverLimit(Duration.ofSeconds(120)).build());
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).timeoutPolicy(policy).build();
    CallContext retried = CallContext.builder().retries(3).retryFallbackDelay(Duration.ofSeconds(1)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/heavy")
        ? Reply.status(504).after(Duration.ofSeconds(120))
        : exchange.sends == 1 ? Reply.status(504).after(Duration.ofSeconds(2)) : Reply.ok());

    CompletableFuture<Response> heavy = engine.execute(server.get("http://a.test/heavy"), retried);
    time.advance(Duration.ofSeconds(200));
    assertThat(heavy.join().status()).as("the server said it will not answer it within its limit").isEqualTo(504);
    CompletableFuture<Response> hiccup = engine.execute(server.get("http://a.test/hiccup"), retried);
    time.advance(Duration.ofSeconds(10));

    assertThat(hiccup.join().status()).isEqualTo(200);
    assertThat(server.starts()).containsExactly("0.000 /heavy", "200.000 /hiccup", "203.000 /hiccup");
  }

  @Test
  void D3_anEndpointThatFailsAtOnceSeveralTimesFailsFastWithoutSending() {
    TimeoutPolicy policy = TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().failFastAfter(3).build());
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).timeoutPolicy(policy).build();
    server.script(exchange -> Reply.fail(new UncheckedIOException(new ConnectException("Connection refused")))
        .after(Duration.ofMillis(5)));
    for (int i = 0; i < 3; i++) {
      engine.execute(server.get("http://dead.test/" + i));
      time.advance(Duration.ofMillis(10));
    }

    CompletableFuture<Response> fourth = engine.execute(server.get("http://dead.test/4"));
    time.runDue();

    assertThatThrownBy(fourth::join).hasCauseInstanceOf(EndpointDownException.class)
        .hasMessageContaining("dead.test is unreachable: failing fast");
    assertThat(server.log).hasSize(3);
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }
}

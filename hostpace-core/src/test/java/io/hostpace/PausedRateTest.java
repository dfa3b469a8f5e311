package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.TokenBucket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SPEC R9, in virtual time: a host that answers {@code Retry-After} to whatever is over its rate
 * is paced at the rate it accepted between pauses; one that answers so to whatever is over a
 * number in flight is held to that number, and its interval is left alone. Every answer comes
 * 50 ms after its start.
 */
class PausedRateTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok().after(Duration.ofMillis(50)));
  int refused;
  final List<Long> refusedAt = new java.util.ArrayList<>();

  /** A rate limiter of 5 a second, a second's worth of burst, refusing with {@code Retry-After: 1}. */
  void limiter() {
    limiter(5, Duration.ofMillis(50));
  }

  /** A rate limiter of 5 a second with a burst of {@code burst}, refusing with {@code Retry-After: 1}. */
  void limiter(int burst, Duration latency) {
    TokenBucket bucket = TokenBucket.of(5, burst, time.nanoTime());
    server.script(exchange -> {
      if (bucket.admit(time.nanoTime())) {
        return Reply.ok().after(latency);
      }
      refused++;
      refusedAt.add(time.nanoTime());
      return Reply.refuse(429, "1").after(latency);
    });
  }

  @Test
  void R9_eightyRequestsToALimiterOfFiveASecondWithNoBurstOnAFastNetworkTakeLittleMoreThanTheIdeal() {
    // A millisecond a round trip, as on a loopback: after a pause one request is accepted and the
    // next, a millisecond later, refused. Only pausing as asked, one is accepted a second.
    limiter(1, Duration.ofMillis(1));
    Hostpace engine = Hostpace.builder().time(time).build();
    java.util.List<java.util.concurrent.CompletableFuture<FakeServer.Response>> calls = new java.util.ArrayList<>();
    for (int i = 0; i < 80; i++) {
      calls.add(engine.execute(server.get("http://limiter.test/" + i)));
    }
    time.advance(Duration.ofMillis(20_800)); // 1.3 times the ideal of 16 s

    assertThat(calls).allSatisfy(call -> assertThat(call).isCompleted());
    assertThat(refused).isLessThanOrEqualTo(8);
  }

  @Test
  void R9_pausedInItsSlowStartTheHostIsPacedBackToThePaceItTookNotToThePaceItRefused() {
    // No burst: the slow start is refused as soon as it goes over 5 a second, by a hair. Climbing
    // back to just under the pace refused would still be over the rate, and refused again.
    List<Double> seconds = refusedAtALimiterOfFiveWithNoBurst(200, Duration.ofSeconds(30));

    // The opening's second, the one that ends the slow start from one a pause; then none until
    // the plateau's probe, at least the plateau's 10 s later.
    assertThat(seconds).hasSizeGreaterThanOrEqualTo(2);
    assertThat(seconds.size() == 2 || seconds.get(2) - seconds.get(1) >= 10).as("refused at %s s", seconds).isTrue();
  }

  @Test
  void R9_aHostMetForTheFirstTimeThatPausesAfterItsFirstAnswerSlowStartsFromOneAPauseAndIsNotPausedAgainAtOnce() {
    // No burst, a millisecond a round trip: the opening's second request is refused with
    // Retry-After: 1. The host accepts at least one a pause, so the rule slow-starts from that,
    // and the requests after the pause are spaced: the next refusal is the slow start's, beyond
    // 5 a second, not the second request after the pause a millisecond after the first.
    List<Double> seconds = refusedAtALimiterOfFiveWithNoBurst(80, Duration.ofSeconds(5));

    assertThat(seconds).as("refused at %s s", seconds).hasSizeGreaterThanOrEqualTo(2);
    assertThat(seconds.get(0)).as("the opening's second").isLessThan(0.01);
    assertThat(seconds.get(1)).as("refused at %s s", seconds).isGreaterThan(2.0);
  }

  /**
   * The seconds at which a limiter of 5 a second with no burst, a millisecond a round trip, refused
   * while the default engine ran {@code requests} to it for {@code run}.
   */
  List<Double> refusedAtALimiterOfFiveWithNoBurst(int requests, Duration run) {
    limiter(1, Duration.ofMillis(1));
    Hostpace engine = Hostpace.builder().time(time).build();
    long start = time.nanoTime();
    submit(engine, "limiter.test", requests);
    time.advance(run);
    return refusedAt.stream().map(at -> (at - start) / 1e9).toList();
  }

  void submit(Hostpace engine, String host, int requests) {
    for (int i = 0; i < requests; i++) {
      engine.execute(server.get("http://" + host + "/" + i));
    }
  }

  long startsBetween(double from, double to) {
    List<String> starts = server.starts();
    return starts.stream().mapToDouble(start -> Double.parseDouble(start.substring(0, start.indexOf(' '))))
        .filter(at -> at >= from && at < to).count();
  }

  @Test
  void R9_aRateLimiterThatAsksForAPauseIsPacedAtTheRateItAcceptedBetweenPauses() {
    limiter();
    Hostpace engine = Hostpace.builder().time(time).build();
    submit(engine, "limiter.test", 600);
    time.advance(Duration.ofSeconds(20));
    int refusedBy20 = refused;
    long startedBy20 = server.starts().size();

    time.advance(Duration.ofSeconds(60));

    // From 20 s to 80 s: paced at about the limiter's rate, it is refused by its probes above it
    // only, at most 2 % of what it starts, and starts at least 0.85 of the 300 the limiter allows.
    assertThat(refused - refusedBy20).isLessThanOrEqualTo(6);
    assertThat(server.starts().size() - startedBy20).isBetween(255L, 301L);
    // About its rate: from 0.96 of it up to a probe a tenth above it.
    assertThat(engine.snapshot().get(0).interval()).isBetween(Duration.ofMillis(180), Duration.ofMillis(260));
    assertThat(engine.snapshot().get(0).inFlightLimit()).isLessThanOrEqualTo(5);
  }

  @Test
  void R9_theSeedsRuleOnlyPausesAsAskedAndIsRefusedAfterEveryPause() {
    limiter();
    Hostpace engine = Hostpace.builder().time(time).learningRule(LearningRule.seed()).build();
    submit(engine, "limiter.test", 600);
    time.advance(Duration.ofSeconds(20));
    int refusedBy20 = refused;

    time.advance(Duration.ofSeconds(60));

    // SPEC R2 to the letter: nothing changes but the pause, so each pause ends in a burst the
    // limiter refuses beyond its five.
    assertThat(refused - refusedBy20).isGreaterThan(50);
    assertThat(engine.snapshot().get(0).interval()).isZero();
  }

  @Test
  void R9_aGateThatAsksForAPauseIsHeldToItsNumberAndItsIntervalIsLeftAlone() {
    AdmissionGate gate = new AdmissionGate(4);
    server.script(exchange -> {
      if (!gate.admit(time.nanoTime())) {
        refused++;
        return Reply.refuse(429, "1").after(Duration.ofMillis(50));
      }
      time.schedule(() -> gate.end(time.nanoTime()), Duration.ofMillis(50).toNanos());
      return Reply.ok().after(Duration.ofMillis(50));
    });
    Hostpace engine = Hostpace.builder().time(time).build();
    submit(engine, "gate.test", 2000);

    time.advance(Duration.ofSeconds(25));
    HostSnapshot host = engine.snapshot().get(0);

    // Four at once, no interval: a gate's refusals are over a number, not a rate.
    assertThat(host.inFlightLimit()).isEqualTo(4);
    assertThat(host.interval()).isZero();
    // Well over what one at a time could start in 25 s (500), and refused only by the opening and
    // the rule's probes for a fifth at once.
    assertThat(server.starts()).hasSizeGreaterThan(600);
    assertThat(refused).isLessThan(20);
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.AdmissionGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The default rule learns how many requests at once a host holds from its refusals with
 * {@code Retry-After} (a gate like KGF's); the seed's rule keeps SPEC R2 to the letter.
 */
class LearnedInFlightTest {

  final VirtualTime time = VirtualTime.create();
  final List<HostpaceEvent> events = new ArrayList<>();
  final AdmissionGate kgf = new AdmissionGate(4);
  final FakeServer server = new FakeServer(time, exchange -> gate());

  /** KGF's admission gate: four at once for 500 ms each; the rest refused at once with Retry-After: 1. */
  Reply gate() {
    if (!kgf.admit(time.nanoTime())) {
      return Reply.refuse(429, "1").after(Duration.ofMillis(500));
    }
    time.schedule(() -> kgf.end(time.nanoTime()), 500_000_000L);
    return Reply.ok().after(Duration.ofMillis(500));
  }

  List<CompletableFuture<Response>> send(Hostpace engine, int requests) {
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      calls.add(engine.execute(server.get("http://kgf.test/" + i)));
    }
    return calls;
  }

  HostSnapshot kgf(Hostpace engine) {
    return engine.snapshot().stream().filter(h -> h.key().equals("kgf.test")).findFirst().orElseThrow();
  }

  List<String> limitChanges() {
    List<String> changes = new ArrayList<>();
    for (HostpaceEvent event : events) {
      if (event instanceof HostpaceEvent.InFlightLimitChanged changed) {
        changes.add(changed.from() + "->" + changed.to());
      }
    }
    return changes;
  }

  @Test
  void afterTheFirstPauseTheDefaultRuleSendsFourAtOnceAndProbesForAFifthOnlyAfterTenSeconds() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(events::add).build();
    List<CompletableFuture<Response>> calls = send(engine, 100);
    time.advance(Duration.ofMillis(600));
    assertThat(kgf(engine).inFlightLimit()).isEqualTo(4);

    time.advance(Duration.ofSeconds(30));

    assertThat(calls).allSatisfy(call -> assertThat(call.join().status()).isEqualTo(200));
    assertThat(server.maxInFlight.get("kgf.test")).isEqualTo(32); // the opening burst, and never again
    long refusedLater = events.stream()
        .filter(e -> e instanceof HostpaceEvent.Refused && e.atNanos() - events.get(0).atNanos() > 1_000_000_000L)
        .count();
    assertThat(refusedLater).isEqualTo(1); // the probe for a fifth, after 10 s at four
    assertThat(limitChanges()).containsExactly("0->4", "4->5", "5->4");
    // Four each 0.5 s from 1.5 s (the first pause); five at 10.5 s, the probe, refused at 11.0 s,
    // so nothing at 11.5 s; the last four start at 13.0 s.
    List<String> starts = server.startTimes("kgf.test");
    assertThat(starts.subList(starts.size() - 21, starts.size())).containsExactly(
        "10.500", "10.500", "10.500", "10.500", "10.500", "11.000", "11.000", "11.000", "11.000",
        "12.000", "12.000", "12.000", "12.000", "12.500", "12.500", "12.500", "12.500", "13.000", "13.000", "13.000", "13.000");
  }

  @Test
  void theSeedsRuleLearnsNothingFromRetryAfterAsSpecR2Says() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).learningRule(LearningRule.seed()).build();
    send(engine, 40);
    time.advance(Duration.ofMillis(600));

    assertThat(kgf(engine).inFlightLimit()).isZero();
    assertThat(kgf(engine).interval()).isZero();
  }

  @Test
  void R7_forgettingTheHostForgetsItsLimit() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    send(engine, 40);
    time.advance(Duration.ofMillis(600));
    assertThat(kgf(engine).inFlightLimit()).isEqualTo(4);

    engine.forget("kgf.test");

    assertThat(kgf(engine).inFlightLimit()).isZero();
  }

  @Test
  void aLimitIsAPlaceLimitTheConfiguredOneStillHoldsBelowIt() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addLimit("kgf.test", Limits.inFlight(2)).build();
    send(engine, 20);
    time.advance(Duration.ofSeconds(10));

    assertThat(server.maxInFlight.get("kgf.test")).isEqualTo(2);
    assertThat(engine.snapshot()).isEmpty(); // never refused: nothing learned, nothing held
  }
}

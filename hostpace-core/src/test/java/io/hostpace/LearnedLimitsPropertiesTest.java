package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.ServerLimit;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The learned in-flight limit and the learned quota under random servers that teach them, random
 * arrivals, failures and cancellations, in virtual time: every call ends (a learned limit or a
 * quota's probe never holds a host for good), once the engine learned a gate's limit it never
 * sends it more than one more than it holds, and once the engine forgets, it holds nothing.
 */
class LearnedLimitsPropertiesTest {

  /**
   * A server that teaches one of the two: a gate of {@code capacity} refusing beyond it with
   * {@code Retry-After}, or {@code capacity} requests in each fixed window of {@code windowMillis},
   * refusing beyond with a bare 429; {@code failPercent} of attempts fail without an answer.
   */
  record Host(boolean gate, int capacity, int windowMillis, int latencyMillis, int failPercent) {}

  /** The calls: their number, arrival spread, and the share cancelled at a random time. */
  record Load(int requests, int spreadMillis, int cancelPercent, long seed) {}

  @Provide
  Arbitrary<Host> hosts() {
    Arbitrary<Integer> latency = Arbitraries.integers().between(10, 1_500);
    Arbitrary<Integer> fails = Arbitraries.of(0, 0, 2, 10);
    Arbitrary<Host> gates = Combinators.combine(Arbitraries.integers().between(1, 12), latency, fails)
        .as((capacity, ms, failing) -> new Host(true, capacity, 0, ms, failing));
    Arbitrary<Host> windows = Combinators.combine(
            Arbitraries.integers().between(3, 30), Arbitraries.integers().between(5_000, 60_000), latency, fails)
        .as((capacity, window, ms, failing) -> new Host(false, capacity, window, ms, failing));
    return Arbitraries.oneOf(gates, windows);
  }

  @Provide
  Arbitrary<Load> loads() {
    return Combinators.combine(
            Arbitraries.integers().between(5, 200),
            Arbitraries.of(0, 0, 0, 1_000, 30_000),
            Arbitraries.of(0, 0, 5, 20),
            Arbitraries.longs())
        .as(Load::new);
  }

  /** One run: the server's state, what it saw, and the calls. */
  static final class Run {
    final VirtualTime time = VirtualTime.create();
    final long origin = time.nanoTime();
    final Host host;
    final Random random;
    final List<HostpaceEvent> events = new ArrayList<>();
    final List<CompletableFuture<Response>> calls = new ArrayList<>();
    final ServerLimit limit;
    /** Whether the engine has learned an in-flight limit for the host, and the most it had in flight since. */
    boolean limitLearned;
    int mostAtOnceOnceLearned;
    /** The limit the engine holds the host to now, and the most it had in flight beyond it at a start. */
    int limitNow;
    int mostBeyondTheLimit = Integer.MIN_VALUE;
    final FakeServer server;
    final Hostpace engine;

    Run(Host host, Load load) {
      this.host = host;
      this.random = new Random(load.seed());
      this.limit = host.gate() ? new AdmissionGate(host.capacity())
          : FixedWindow.countingRefusals(host.capacity(), Duration.ofMillis(host.windowMillis()), origin);
      this.server = new FakeServer(time, exchange -> reply());
      this.engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(event -> {
        events.add(event);
        if (event instanceof HostpaceEvent.InFlightLimitChanged changed) {
          limitLearned |= changed.to() > 0;
          limitNow = changed.to();
        }
      }).build();
      for (int i = 0; i < load.requests(); i++) {
        int at = load.spreadMillis() == 0 ? 0 : random.nextInt(load.spreadMillis());
        boolean cancel = random.nextInt(100) < load.cancelPercent();
        int cancelAt = at + random.nextInt(20_000);
        String uri = "http://learns.test/" + i;
        time.schedule(() -> {
          CompletableFuture<Response> call = engine.execute(server.get(uri));
          calls.add(call);
          if (cancel) {
            time.schedule(() -> call.cancel(true), Duration.ofMillis(cancelAt - at).toNanos());
          }
        }, Duration.ofMillis(at).toNanos());
      }
    }

    Reply reply() {
      Duration latency = Duration.ofMillis(host.latencyMillis());
      if (random.nextInt(100) < host.failPercent()) {
        return Reply.fail(new java.io.UncheckedIOException(new IOException("reset"))).after(latency);
      }
      if (host.gate()) {
        if (limitLearned) {
          // In flight as the engine holds them, this one included; not the server's count, which
          // keeps a cancelled request it is still working on (SPEC T5: its place is freed).
          int inFlight = engine.snapshot().stream().mapToInt(HostSnapshot::inFlight).sum();
          mostAtOnceOnceLearned = Math.max(mostAtOnceOnceLearned, inFlight);
          if (limitNow > 0) {
            mostBeyondTheLimit = Math.max(mostBeyondTheLimit, inFlight - limitNow);
          }
        }
        if (!limit.admit(time.nanoTime())) {
          return Reply.refuse(429, "1").after(latency);
        }
        time.schedule(() -> limit.end(time.nanoTime()), latency.toNanos());
        return Reply.ok().after(latency);
      }
      return limit.admit(time.nanoTime()) ? Reply.ok().after(latency) : Reply.status(429).after(latency);
    }

    Run play() {
      time.runUntilIdle(Duration.ofHours(3));
      return this;
    }

    boolean learned(Class<? extends HostpaceEvent> kind) {
      return events.stream().anyMatch(kind::isInstance);
    }
  }

  @Property
  void everyCallEndsWhateverTheHostTaught(@ForAll("hosts") Host host, @ForAll("loads") Load load) {
    Run run = new Run(host, load).play();
    Statistics.label("learned").collect(
        run.learned(HostpaceEvent.InFlightLimitChanged.class) ? "in-flight limit"
            : run.learned(HostpaceEvent.QuotaChanged.class) ? "quota" : "nothing");
    Statistics.label("learned").coverage(coverage -> {
      coverage.check("in-flight limit").percentage(p -> p > 10);
      coverage.check("quota").percentage(p -> p > 10);
    });

    assertThat(run.calls).hasSize(load.requests());
    assertThat(run.calls).allSatisfy(call -> assertThat(call).isDone());
    assertThat(run.engine.snapshot()).allSatisfy(h -> {
      assertThat(h.inFlight()).isZero();
      assertThat(h.waiting()).isZero();
    });
  }

  @Property
  void onceItLearnedAGatesLimitTheEngineSendsItAtMostOneMoreThanItHolds(
      @ForAll("hosts") Host host, @ForAll("loads") Load load) {
    Run run = new Run(new Host(true, host.capacity(), 0, host.latencyMillis(), 0), load).play();
    Statistics.label("limit learned").collect(run.limitLearned);
    Statistics.label("limit learned").coverage(coverage -> coverage.check(true).percentage(p -> p > 30));
    // Never more than the limit it learned (a probe raises the limit by one first).
    assertThat(run.mostBeyondTheLimit).isLessThanOrEqualTo(0);
    if (load.cancelPercent() == 0) {
      // One more than the gate holds: the probe for whether it grew, refused, which pauses the host
      // again. A request cancelled while the server refuses it hides that refusal (its place is
      // freed, SPEC T5, and its answer never heard), so with cancellations the engine may learn a
      // limit above the gate's, from what it heard.
      assertThat(run.mostAtOnceOnceLearned).isLessThanOrEqualTo(host.capacity() + 1);
    }
  }

  @Example
  void aRefusalHiddenByACancellationTeachesTheLimitTheEngineSawAndNoMore() {
    // The gate holds 5; requests 5 and 6 are refused there but cancelled before their answers, so
    // the first refusal the engine hears is of a request that started as the 8th: it learns 7.
    Run run = new Run(new Host(true, 5, 0, 513, 0), new Load(14, 0, 20, Long.MAX_VALUE)).play();
    assertThat(run.mostAtOnceOnceLearned).isEqualTo(7);
    assertThat(run.mostBeyondTheLimit).isLessThanOrEqualTo(0);
    assertThat(run.calls).allSatisfy(call -> assertThat(call).isDone());
  }

  @Property
  void onceForgottenTheEngineHoldsNothing(@ForAll("hosts") Host host, @ForAll("loads") Load load) {
    Run run = new Run(host, load).play();
    run.engine.forgetAll();
    run.time.runUntilIdle(Duration.ofHours(3));

    assertThat(run.engine.snapshot()).isEmpty();
    assertThat(run.engine.snapshot()).isEmpty();
  }
}

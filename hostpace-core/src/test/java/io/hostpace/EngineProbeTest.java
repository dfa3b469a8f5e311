package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.Probe;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.Budget;
import io.hostpace.timeout.Outcome;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SPEC D6: the engine probes an endpoint its timeout policy holds down or degraded, with the
 * probe an adapter named (here a {@code HEAD} of the root), through the host's queue, in virtual
 * time. The server's log reads as a trace: {@code "1.015 HEAD http://dead.test/"}.
 */
class EngineProbeTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok());
  final List<String> probesSent = new ArrayList<>();

  /** A HEAD of the root of the host the endpoint's latest request went to. */
  final Probe head = new Probe() {
    @Override
    public Exchange<?> exchange(URI seen, String userAgent) {
      probesSent.add(seen.toString());
      return server.new FakeExchange(seen.resolve("/"), "HEAD", true);
    }

    @Override
    public String toString() {
      return "HEAD /";
    }
  };

  /** A policy that probes, doing what {@code to} does: the tests override what throws. */
  static class Delegating implements TimeoutPolicy {
    private final TimeoutPolicy to;

    Delegating(TimeoutPolicy to) {
      this.to = to;
    }

    @Override
    public Budget budget(long now, String endpoint, String kind) {
      return to.budget(now, endpoint, kind);
    }

    @Override
    public void onOutcome(long now, String endpoint, String kind, Outcome outcome, long durationNanos) {
      to.onOutcome(now, endpoint, kind, outcome, durationNanos);
    }

    @Override
    public boolean probes() {
      return true;
    }

    @Override
    public @Nullable Budget probe(long now, String endpoint, @Nullable String kind) {
      return to.probe(now, endpoint, kind);
    }

    @Override
    public long probeIn(long now, String endpoint) {
      return to.probeIn(now, endpoint);
    }

    @Override
    public void onProbe(long now, String endpoint, Outcome outcome, long durationNanos) {
      to.onProbe(now, endpoint, outcome, durationNanos);
    }
  }

  static Reply refused() {
    return Reply.fail(new UncheckedIOException(new ConnectException("Connection refused"))).after(Duration.ofMillis(5));
  }

  AdaptiveTimeouts.Builder settings() {
    return AdaptiveTimeouts.builder().defaultBudget(Duration.ofSeconds(60)).probe(Duration.ofSeconds(2));
  }

  Hostpace engine(AdaptiveTimeouts settings) {
    return Hostpace.builder().widenFirstContact(false).time(time)
        .timeoutPolicy(TimeoutPolicy.adaptive(settings)).probe(head).build();
  }

  /** Three refusals 10 ms apart: down at 0.025 s, for a cool-down of 1 s; returns at 0.030 s. */
  void refusedThreeTimes(Hostpace engine) {
    server.script(exchange -> refused());
    for (int i = 0; i < 3; i++) {
      engine.execute(server.get("http://dead.test/sparql?q=" + i));
      time.advance(Duration.ofMillis(10));
    }
  }

  @Test
  void D6_aDownEndpointIsProbedByTheEngineAndNotHitByRealRequests() {
    Hostpace engine = engine(settings().build());
    refusedThreeTimes(engine);

    time.advance(Duration.ofMillis(1_000));
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    time.advance(Duration.ofMillis(10));

    assertThatThrownBy(real::join).hasCauseInstanceOf(EndpointDownException.class);
    assertThat(server.log).containsExactly(
        "0.000 GET http://dead.test/sparql?q=0", "0.010 GET http://dead.test/sparql?q=1",
        "0.020 GET http://dead.test/sparql?q=2",
        "1.025 HEAD http://dead.test/",   // the timer's, at the end of the cool-down
        "1.030 HEAD http://dead.test/");  // the real request's own, which it waited for, refused: failed fast
    assertThat(probesSent).as("each built from the latest request")
        .containsExactly("http://dead.test/sparql?q=2", "http://dead.test/sparql?q=4");
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }

  @Test
  void D6_aProbeThatSucceedsGivesRealRequestsTheFullBudgetAgain() {
    Hostpace engine = engine(settings().build());
    refusedThreeTimes(engine);
    server.script(exchange -> exchange.method.equals("HEAD") ? Reply.ok().after(Duration.ofMillis(50)) : Reply.never());

    time.advance(Duration.ofMillis(1_100)); // the timer's probe at 1.025 s, answered at 1.075 s
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    time.advance(Duration.ofSeconds(59));

    assertThat(server.starts()).containsExactly("0.000 /sparql", "0.010 /sparql", "0.020 /sparql", "1.025 /",
        "1.130 /sparql");
    assertThat(real).as("sent with the full 60 s, not failed fast").isNotDone();
    time.advance(Duration.ofSeconds(1));
    assertThatThrownBy(real::join).hasCauseInstanceOf(AttemptTimeoutException.class)
        .hasMessageContaining("within 60 s");
  }

  @Test
  void D6_aRequestForADownEndpointWaitsForAProbeOutsideItsQueueAndGoesWhenTheProbeSucceeds() {
    Hostpace engine = engine(settings().build());
    refusedThreeTimes(engine);
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(50)));

    time.advance(Duration.ofMillis(470)); // 0.5 s: within the cool-down
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    time.advance(Duration.ofMillis(100));

    assertThat(server.starts()).containsExactly("0.000 /sparql", "0.010 /sparql", "0.020 /sparql", "0.500 /",
        "0.550 /sparql");
    assertThat(real.join().status()).isEqualTo(200);
  }

  /** An engine on {@code time} that logs to {@code log}, with {@code policy} and the {@link #head} probe. */
  private Hostpace probing(TimeoutPolicy policy, RecordingLogger log) {
    return Hostpace.builder().widenFirstContact(false).time(time).logger(log).timeoutPolicy(policy).probe(head).build();
  }

  /** The first warning in {@code log} is of {@code thrown}, by the timeout policy, and says {@code saying}. */
  private static void assertFirstWarningIsThePolicys(RecordingLogger log, Throwable thrown, String saying) {
    assertThat(log.at(Level.WARNING)).first().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(thrown);
      assertThat(line.message()).contains("timeout policy").contains(saying);
    });
  }

  @ParameterizedTest(name = "the policy throws {0}")
  @EnumSource(Thrown.class)
  void D6_L2_aPolicyThatThrowsAfterAProbeLetsTheRequestThatWaitedForItGo(Thrown thrown) {
    TimeoutPolicy adaptive = TimeoutPolicy.adaptive(settings().build());
    Throwable boom = thrown.make("a policy's fault");
    boolean[] failing = {false};
    TimeoutPolicy throwing = new Delegating(adaptive) {
      @Override
      public long probeIn(long now, String endpoint) {
        if (failing[0]) {
          throw Thrown.unchecked(boom);
        }
        return super.probeIn(now, endpoint);
      }
    };
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Hostpace engine = probing(throwing, log);
    refusedThreeTimes(engine);
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(50)));
    failing[0] = true; // from the probe's end on

    time.advance(Duration.ofMillis(470)); // 0.5 s: within the cool-down
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    assertThatCode(() -> time.advance(Duration.ofMillis(100))).doesNotThrowAnyException();

    // The endpoint taken as not held, the request that waited goes.
    assertThat(server.starts()).containsExactly("0.000 /sparql", "0.010 /sparql", "0.020 /sparql", "0.500 /",
        "0.550 /sparql");
    assertThat(real).isCompletedWithValueMatching(response -> response.status() == 200);
    assertFirstWarningIsThePolicys(log, boom, "the endpoint was taken as not held");
  }

  @ParameterizedTest(name = "the policy throws {0}")
  @EnumSource(Thrown.class)
  void D6_L2_aPolicyWhoseProbeThrowsIsAskedAgainAfterACoolDownNotAtOnceAndTheRequestsGo(Thrown thrown) {
    TimeoutPolicy adaptive = TimeoutPolicy.adaptive(settings().build());
    Throwable boom = thrown.make("a policy's fault");
    boolean[] failing = {false};
    List<Long> asked = new ArrayList<>(); // ms since 0 s of each probe asked while it throws
    long origin = server.origin();
    // Its probeIn says 0 from the cool-down's end: no probe was claimed.
    TimeoutPolicy throwing = new Delegating(adaptive) {
      @Override
      public @Nullable Budget probe(long now, String endpoint, @Nullable String kind) {
        if (failing[0]) {
          asked.add((now - origin) / 1_000_000);
          throw Thrown.unchecked(boom);
        }
        return super.probe(now, endpoint, kind);
      }
    };
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Hostpace engine = probing(throwing, log);
    refusedThreeTimes(engine); // down at 0.025 s, its probe due at 1.025 s
    failing[0] = true;

    assertThatCode(() -> time.advance(Duration.ofSeconds(60))).doesNotThrowAnyException();
    List<CompletableFuture<Response>> real = new ArrayList<>();
    assertThatCode(() -> real.add(engine.execute(server.get("http://dead.test/sparql?q=4")))).doesNotThrowAnyException();
    time.advance(Duration.ofMillis(10));

    // Asked at the cool-down's end, then as after failed probes: 1 s, 2 s, 4 s... later, not each
    // millisecond. The request asks too, and goes with the budget the policy gives (down: failed fast).
    assertThat(asked).as("the probes asked of the policy, in ms").hasSizeLessThanOrEqualTo(12)
        .startsWith(1025L, 2025L, 4025L, 8025L).endsWith(60030L);
    assertThat(real).singleElement().satisfies(call -> {
      assertThat(call).isCompletedExceptionally();
      assertThatThrownBy(call::join).hasCauseInstanceOf(EndpointDownException.class);
    });
    assertThat(server.startTimes("HEAD")).isEmpty();
    assertFirstWarningIsThePolicys(log, boom, "no probe was sent");
  }

  @ParameterizedTest(name = "the policy throws {0}")
  @EnumSource(Thrown.class)
  void D6_L2_aPolicyThatThrowsToldOfAProbesEndLetsTheRequestThatWaitedForItGo(Thrown thrown) {
    TimeoutPolicy adaptive = TimeoutPolicy.adaptive(settings().build());
    Throwable boom = thrown.make("a policy's fault");
    TimeoutPolicy throwing = new Delegating(adaptive) {
      @Override
      public void onProbe(long now, String endpoint, Outcome outcome, long durationNanos) {
        throw Thrown.unchecked(boom);
      }
    };
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Hostpace engine = probing(throwing, log);
    refusedThreeTimes(engine);
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(50)));

    time.advance(Duration.ofMillis(470)); // 0.5 s: within the cool-down
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    assertThatCode(() -> time.advance(Duration.ofMillis(100))).doesNotThrowAnyException();

    // The probe's outcome untold, the request that waited goes with the budget the policy gives
    // (still down: failed fast).
    assertThat(real).isCompletedExceptionally();
    assertThatThrownBy(real::join).hasCauseInstanceOf(EndpointDownException.class);
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
    assertFirstWarningIsThePolicys(log, boom, "the probe's outcome went untold");
  }

  @ParameterizedTest(name = "the probe throws {0}")
  @EnumSource(Thrown.class)
  void D6_L2_aProbeThatThrowsBuildingItsExchangeIsAFailedProbeAndTheRequestsGo(Thrown thrown) {
    Throwable boom = thrown.make("a probe's fault");
    Probe throwing = (seen, userAgent) -> {
      throw Thrown.unchecked(boom);
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .timeoutPolicy(TimeoutPolicy.adaptive(settings().build())).probe(throwing).build();
    refusedThreeTimes(engine); // down at 0.025 s, its probe due at 1.025 s

    assertThatCode(() -> time.advance(Duration.ofMillis(1_000))).doesNotThrowAnyException();
    List<CompletableFuture<Response>> real = new ArrayList<>();
    assertThatCode(() -> real.add(engine.execute(server.get("http://dead.test/sparql?q=4")))).doesNotThrowAnyException();
    time.advance(Duration.ofMillis(10));

    // The probe failed, so the endpoint is still down, and the request fails fast rather than
    // waiting for a probe that never ends.
    assertThat(real).singleElement().satisfies(call -> {
      assertThat(call).isCompletedExceptionally();
      assertThatThrownBy(call::join).hasCauseInstanceOf(EndpointDownException.class);
    });
    assertThat(server.startTimes("HEAD")).isEmpty();
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }

  @ParameterizedTest(name = "the probe's exchange throws {0}")
  @EnumSource(Thrown.class)
  void D6_L2_whatAProbesExchangeThrowsLettingItsAnswerGoLeavesTheProbeJudgedByItsStatus(Thrown thrown) {
    Throwable boom = thrown.make("an adapter's fault");
    Probe throwing = (seen, userAgent) -> server.new FakeExchange(seen.resolve("/"), "HEAD", true) {
      @Override
      public void discard(Response response) {
        throw Thrown.unchecked(boom);
      }
    };
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Hostpace engine = downWithProbe(throwing, log);
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(50)));

    time.advance(Duration.ofMillis(470)); // 0.5 s: within the cool-down
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    assertThatCode(() -> time.advance(Duration.ofMillis(100))).doesNotThrowAnyException();

    // Its 200 is a probe that succeeded, so the request that waited for it goes with a full budget.
    assertThat(server.starts()).containsExactly("0.000 /sparql", "0.010 /sparql", "0.020 /sparql", "0.500 /",
        "0.550 /sparql");
    assertThat(real).isCompletedWithValueMatching(response -> response.status() == 200);
    // As for a call's exchange: an Error letting a response go is said, an exception is routine.
    assertSaidIfError(log, thrown, boom, "threw java.lang.AssertionError from discard");
  }

  @ParameterizedTest(name = "the probe throws {0}")
  @EnumSource(Thrown.class)
  void D6_L2_aProbeThatThrowsBuildingItsExchangeIsAFailedProbeAndSaid(Thrown thrown) {
    Throwable boom = thrown.make("an adapter's fault");
    Probe throwing = (seen, userAgent) -> {
      throw Thrown.unchecked(boom);
    };
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Hostpace engine = downWithProbe(throwing, log);
    server.script(exchange -> Reply.ok());

    assertThatCode(() -> time.advance(Duration.ofSeconds(4))).doesNotThrowAnyException();

    // No probe went, and it counted as failed: the endpoint stays down. The log says a kind of
    // failure once as a warning.
    assertThat(server.startTimes("HEAD")).isEmpty();
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    time.advance(Duration.ofMillis(10));
    assertThat(real).isCompletedExceptionally();
    assertThatThrownBy(real::join).hasCauseInstanceOf(EndpointDownException.class);
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("probe").contains("threw " + thrown.className() + " from exchange");
    });
  }

  @ParameterizedTest(name = "the probe's exchange throws {0}")
  @EnumSource(Thrown.class)
  void D6_L2_whatAProbesExchangeThrowsReadingItsAnswerIsAFailedProbeAndAnErrorIsSaid(Thrown thrown) {
    Throwable boom = thrown.make("an adapter's fault");
    Probe throwing = (seen, userAgent) -> server.new FakeExchange(seen.resolve("/"), "HEAD", true) {
      @Override
      public int status(Response response) {
        throw Thrown.unchecked(boom);
      }
    };
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Hostpace engine = downWithProbe(throwing, log);
    server.script(exchange -> Reply.ok());

    assertThatCode(() -> time.advance(Duration.ofSeconds(4))).doesNotThrowAnyException();
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    time.advance(Duration.ofMillis(500));

    // Each probe went and its answer could not be read: each counted as failed, so the request
    // that came waited for the probe it brought and, that one failed too, fails fast unsent (a
    // probe that succeeded would have let it go, as above).
    assertThat(server.starts()).containsExactly("0.000 /sparql", "0.010 /sparql", "0.020 /sparql", "1.025 /",
        "3.125 /", "4.030 /");
    assertThat(real).isCompletedExceptionally();
    assertThatThrownBy(real::join).hasCauseInstanceOf(EndpointDownException.class);
    // As for a call's exchange: an Error is said, an exception is a failure like a broken connection's.
    assertSaidIfError(log, thrown, boom, "threw java.lang.AssertionError in its probe's call");
  }

  /** An engine that probes with {@code probe} and logs to {@code log}, {@code dead.test} down after three refusals. */
  private Hostpace downWithProbe(Probe probe, RecordingLogger log) {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log)
        .timeoutPolicy(TimeoutPolicy.adaptive(settings().build())).probe(probe).build();
    refusedThreeTimes(engine);
    return engine;
  }

  /** That {@code log} said {@code boom}, an {@code Error}, once as a warning naming the exchange; nothing for an exception. */
  private static void assertSaidIfError(RecordingLogger log, Thrown thrown, Throwable boom, String said) {
    if (thrown == Thrown.ERROR) {
      assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
        assertThat(line.thrown()).isSameAs(boom);
        assertThat(line.message()).contains("exchange").contains(said);
      });
    } else {
      assertThat(log.at(Level.WARNING)).isEmpty();
    }
  }

  @Test
  void D6_aFailedProbeKeepsTheEndpointDownAndTheNextComesAfterADoubledCoolDown() {
    Hostpace engine = engine(settings().build());
    refusedThreeTimes(engine);

    time.advance(Duration.ofSeconds(20));

    assertThat(server.startTimes("HEAD")).as("cool-downs of 1, 2, 4 and 8 s, each from a refusal 5 ms after its probe")
        .containsExactly("1.025", "3.030", "7.035", "15.040");
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    time.advance(Duration.ofMillis(10));
    assertThatThrownBy(real::join).hasCauseInstanceOf(EndpointDownException.class);
  }

  @Test
  void D6_theProbeWaitsItsTurnUnderAnInFlightLimitOfOne() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .timeoutPolicy(TimeoutPolicy.adaptive(settings().defaultBudget(Duration.ofSeconds(10))
            .decayAfter(Duration.ofSeconds(10), 4).build()))
        .probe(head).addLimit("slow.test", Limits.inFlight(1)).build();
    CallContext known = CallContext.builder().kind("known").build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(2)));
    engine.execute(server.get("http://slow.test/known"), known); // learned: 4 s
    time.advance(Duration.ofSeconds(2));
    server.script(exchange -> Reply.never());
    engine.execute(server.get("http://slow.test/a"), CallContext.builder().kind("a").build());
    time.advance(Duration.ofSeconds(10));
    engine.execute(server.get("http://slow.test/b"), CallContext.builder().kind("b").build());
    time.advance(Duration.ofSeconds(10)); // two kinds cut off at the full budget: degraded at 22 s

    // At 30 s a known kind takes the one place for 3 s; the decay's probe falls due at 32 s.
    time.advance(Duration.ofSeconds(8));
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(exchange.method.equals("HEAD") ? 0 : 3)));
    engine.execute(server.get("http://slow.test/known"), known);
    time.advance(Duration.ofSeconds(5));

    assertThat(server.starts()).containsExactly("0.000 /known", "2.000 /a", "12.000 /b", "30.000 /known",
        "33.000 /");
    assertThat(server.maxInFlight).containsEntry("slow.test", 1);
  }

  @Test
  void D6_aRequestThatWaitsForAProbeHoldsNoPlaceAndCancellingItFreesNothingItDoesNotHold() {
    Hostpace engine = engine(settings().build());
    refusedThreeTimes(engine);
    server.script(exchange -> Reply.never());

    time.advance(Duration.ofMillis(500));
    CompletableFuture<Response> real = engine.execute(server.get("http://dead.test/sparql?q=4"));
    real.cancel(true);
    time.advance(Duration.ofSeconds(3)); // its probe is cut off at 2 s

    assertThat(server.starts()).containsExactly("0.000 /sparql", "0.010 /sparql", "0.020 /sparql", "0.530 /");
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }

  @Test
  void D6_withoutAProbeADownEndpointGetsARealTrialAsBefore() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().defaultBudget(Duration.ofSeconds(60)).build()))
        .build();
    refusedThreeTimes(engine);

    time.advance(Duration.ofMillis(1_000));
    engine.execute(server.get("http://dead.test/sparql?q=4"));
    time.advance(Duration.ofMillis(10));

    assertThat(server.starts()).containsExactly(
        "0.000 /sparql", "0.010 /sparql", "0.020 /sparql", "1.030 /sparql");
  }

  @Test
  void D6_aProbeWithoutAPolicyThatProbesOrSuchAPolicyWithoutAProbeIsRefusedByName() {
    assertThatThrownBy(() -> Hostpace.builder().timeoutPolicy(TimeoutPolicy.adaptive(settings().build())).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("probes held endpoints, but the engine has no probe to send");
    assertThatThrownBy(() -> Hostpace.builder().timeoutPolicy(TimeoutPolicy.adaptive()).probe(head).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("probe HEAD / is never sent: expected a timeout policy with a probe budget");
  }
}

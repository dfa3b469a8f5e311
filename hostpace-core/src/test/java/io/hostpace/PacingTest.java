package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** SPEC P1 to P11: who starts when. Every test runs in virtual time and reads as a trace. */
class PacingTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok());

  Hostpace.Builder engine() {
    return Hostpace.builder().widenFirstContact(false).time(time);
  }

  List<CompletableFuture<Response>> submit(Hostpace engine, CallContext context, String... uris) {
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (String uri : uris) {
      calls.add(engine.execute(server.get(uri), context));
    }
    return calls;
  }

  @Test
  void P1_aRequestStartsWhenItsHostHasAPlaceAndItsRateAllows() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1).withPerSecond(1)).build();
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(1500)));

    submit(engine, CallContext.DEFAULT, "http://a.test/1", "http://a.test/2", "http://a.test/3");
    time.advance(Duration.ofSeconds(10));

    // One place: each waits for the answer before it (1.5 s), which is longer than the rate's 1 s.
    assertThat(server.starts()).containsExactly("0.000 /1", "1.500 /2", "3.000 /3");
  }

  @Test
  void P1_aRateSpacesStartsWhenPlacesAreFree() {
    Hostpace engine = engine().addLimit("a.test", Limits.perSecond(2)).build();

    submit(engine, CallContext.DEFAULT, "http://a.test/1", "http://a.test/2", "http://a.test/3");
    time.advance(Duration.ofSeconds(5));

    // Each start a fiftieth of the interval late (SPEC P1: arrivals not closer than it), and the
    // first counted from its answer at 0.1 s (it may have paid the connection's set-up).
    assertThat(server.starts()).containsExactly("0.000 /1", "0.610 /2", "1.120 /3");
  }

  @Test
  void P1_aGroupsRateCountsEachHostsFirstStartAtItsAnswer() {
    Hostpace engine = engine().addLimit("*.g.test", Limits.perSecond(1)).build();
    // A host's first answer takes 0.3 s (its connection's set-up), the others 10 ms.
    java.util.Set<String> met = new java.util.HashSet<>();
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(met.add(exchange.uri.getHost()) ? 300 : 10)));

    submit(engine, CallContext.DEFAULT, "http://a.g.test/a1", "http://b.g.test/b1", "http://a.g.test/a2");
    time.advance(Duration.ofSeconds(10));

    // The group's interval is 1.02 s. The first start counts from its answer at 0.3 s; so does
    // b's first, answered at 1.62 s, though it is not the group's first: a's next request, on
    // its open connection, would otherwise reach the server 0.7 s after b's first.
    assertThat(server.starts()).containsExactly("0.000 /a1", "1.320 /b1", "2.640 /a2");
  }

  @Test
  void P2_aRequestHoldsItsPlaceUntilItsAnswerArrives() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(2)).build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(3)));

    submit(engine, CallContext.DEFAULT, "http://a.test/1", "http://a.test/2", "http://a.test/3");
    time.advance(Duration.ofSeconds(2));
    assertThat(engine.snapshot()).singleElement().satisfies(host -> {
      assertThat(host.inFlight()).isEqualTo(2);
      assertThat(host.waiting()).isEqualTo(1);
    });
    time.advance(Duration.ofSeconds(5));

    assertThat(server.starts()).containsExactly("0.000 /1", "0.000 /2", "3.000 /3");
    assertThat(server.maxInFlight).containsEntry("a.test", 2);
  }

  @Test
  void P2_anAttemptThatCannotBeSentFailsItsCallAndLetsItsPlaceGo() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).build();
    IllegalStateException boom = new IllegalStateException("an adapter's fault");
    FakeServer.FakeExchange throwing = server.new FakeExchange(URI.create("http://a.test/throws"), "GET", true) {
      @Override
      public CompletableFuture<Response> send() {
        throw boom;
      }
    };
    FakeServer.FakeExchange noFuture = server.new FakeExchange(URI.create("http://a.test/null"), "GET", true) {
      @Override
      public CompletableFuture<Response> send() {
        return null;
      }
    };

    CompletableFuture<Response> first = engine.execute(throwing);
    CompletableFuture<Response> second = engine.execute(noFuture);
    CompletableFuture<Response> third = engine.execute(server.get("http://a.test/fine"));
    time.advance(Duration.ofSeconds(1));

    assertThat(List.of(first, second)).allSatisfy(call -> assertThat(call).isCompletedExceptionally());
    assertThatThrownBy(first::join).hasCause(boom);
    assertThatThrownBy(second::join).hasCauseInstanceOf(NullPointerException.class)
        .hasMessageContaining("send() returned no future");
    assertThat(third).isCompletedWithValueMatching(response -> response.status() == 200);
    assertThat(server.starts()).containsExactly("0.000 /fine");
  }

  @ParameterizedTest(name = "the store throws {0}")
  @EnumSource(Thrown.class)
  void P2_L2_aHostWhoseStateTheStoreCannotOpenFailsItsCallsAndHoldsNothing(Thrown thrown) {
    Throwable boom = thrown.make("a store's fault");
    HostStateStore memory = HostStateStore.inMemory();
    HostStateStore failing = new HostStateStore() {
      @Override
      public HostState open(String key) {
        if (key.equals("bad.test")) {
          throw Thrown.unchecked(boom);
        }
        return memory.open(key);
      }

      @Override
      public void close(HostState state) {
        memory.close(state);
      }
    };
    Hostpace engine = engine().hostStateStore(failing).build();

    List<CompletableFuture<Response>> bad = new ArrayList<>();
    assertThatCode(() -> bad.add(engine.execute(server.get("http://bad.test/")))).doesNotThrowAnyException();
    CompletableFuture<Response> good = engine.execute(server.get("http://good.test/"));
    time.advance(Duration.ofSeconds(1));

    // Its call fails with what the store threw, reaching its caller, and nothing is held.
    assertThat(bad).singleElement().satisfies(call -> {
      assertThat(call).isCompletedExceptionally();
      assertThatThrownBy(call::join).hasCause(boom);
    });
    assertThat(good).isCompletedWithValueMatching(response -> response.status() == 200);
    assertThat(server.starts()).containsExactly("0.000 /");
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.key()).isEqualTo("good.test");
      assertThat(host.inFlight()).isZero();
    });
  }

  @Test
  void P3_inFlightDefaultsTo32ForEveryHost() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    for (int i = 0; i < 40; i++) {
      engine.execute(server.get("http://a.test/" + i));
    }
    time.runDue();
    assertThat(server.log).hasSize(32);
    time.advance(Duration.ofSeconds(1));
    assertThat(server.log).hasSize(40);
  }

  @Test
  void P3_aContextSetsInFlightForAllHosts() {
    Hostpace engine = engine().limitsForEveryHost(Limits.inFlight(5)).build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(1)));
    CallContext two = CallContext.builder().limitsForEveryHost(Limits.inFlight(2)).build();

    submit(engine, two, "http://a.test/1", "http://a.test/2", "http://a.test/3");
    submit(engine, CallContext.DEFAULT, "http://b.test/1", "http://b.test/2", "http://b.test/3");
    time.runDue();

    assertThat(server.startTimes("a.test")).hasSize(2);
    assertThat(server.startTimes("b.test")).hasSize(3);
  }

  @Test
  void P4_limitsAreKeyedByHostWithPortBeforeHostName() {
    Hostpace engine = engine()
        .addLimit("a.test:8080", Limits.perSecond(1))
        .addLimit("a.test", Limits.perSecond(2).withInFlight(7))
        .build();

    assertThat(engine.effectiveLimits(java.net.URI.create("http://a.test:8080/"), CallContext.DEFAULT))
        .isEqualTo(new Limits(7, Rate.perSecond(1)));
    assertThat(engine.effectiveLimits(java.net.URI.create("http://a.test/"), CallContext.DEFAULT))
        .isEqualTo(new Limits(7, Rate.perSecond(2)));
  }

  @Test
  void P4_eachFieldFallsThroughContextThenEngineThenBuiltIn() {
    Hostpace engine = engine().addLimit("qlever.dev", Limits.inFlight(3)).build();
    CallContext context = CallContext.builder().addLimit("qlever.dev", Limits.perSecond(0.5)).build();
    java.net.URI qlever = java.net.URI.create("https://qlever.dev/api/wikidata");

    assertThat(engine.effectiveLimits(qlever, CallContext.DEFAULT)).isEqualTo(new Limits(3, Rate.perSecond(1)));
    assertThat(engine.effectiveLimits(qlever, context)).isEqualTo(new Limits(3, Rate.perSecond(0.5)));
    assertThat(engine.effectiveLimits(java.net.URI.create("http://other.test/"), context))
        .isEqualTo(new Limits(32, null));
  }

  @Test
  void P9_qleverHostsStartOneRequestASecondUnlessConfigured() {
    Hostpace engine = engine().build();
    submit(engine, CallContext.DEFAULT, "https://qlever.dev/1", "https://qlever.dev/2",
        "https://qlever.cs.uni-freiburg.de/1", "https://qlever.cs.uni-freiburg.de/2");
    time.advance(Duration.ofSeconds(3));

    // a second and 20 ms after the first's answer at 0.1 s (SPEC P1)
    assertThat(server.startTimes("qlever.dev")).containsExactly("0.000", "1.120");
    assertThat(server.startTimes("uni-freiburg")).containsExactly("0.000", "1.120");

    Hostpace faster = Hostpace.builder().widenFirstContact(false).time(time).addLimit("qlever.dev", Limits.perSecond(4)).build();
    assertThat(faster.effectiveLimits(java.net.URI.create("https://qlever.dev/"), CallContext.DEFAULT))
        .isEqualTo(new Limits(32, Rate.perSecond(4)));
  }

  @Test
  void P11_aRateGivenAsNPerIntervalAllowsThatBurst() {
    Hostpace engine = engine().addLimit("a.test", Limits.rate(Rate.of(2, Duration.ofSeconds(1)))).build();

    submit(engine, CallContext.DEFAULT,
        "http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4", "http://a.test/5");
    time.advance(Duration.ofSeconds(5));

    assertThat(server.starts())
        .containsExactly("0.000 /1", "0.000 /2", "1.020 /3", "1.020 /4", "2.040 /5"); // 20 ms late each
  }

  @Test
  void P11_waitingRequestsStartInParallelNotAfterEachOthersAnswer() {
    Hostpace engine = engine().addLimit("a.test", Limits.perSecond(2)).build();
    server.script(exchange -> Reply.ok().after(Duration.ofSeconds(3)));

    submit(engine, CallContext.DEFAULT, "http://a.test/1", "http://a.test/2", "http://a.test/3");
    time.advance(Duration.ofSeconds(10));

    assertThat(server.starts()).containsExactly("0.000 /1", "0.510 /2", "1.020 /3"); // 10 ms late each
  }

  @Test
  void P11_theFirstRequestOfAnIdleHostNeverWaits() {
    Hostpace engine = engine().addLimit("a.test", Limits.perSecond(0.1)).build();
    submit(engine, CallContext.DEFAULT, "http://a.test/1");
    time.runDue();
    assertThat(server.starts()).containsExactly("0.000 /1");

    time.advance(Duration.ofSeconds(30));
    submit(engine, CallContext.DEFAULT, "http://a.test/2");
    time.runDue();
    assertThat(server.starts()).containsExactly("0.000 /1", "30.000 /2");
  }
}

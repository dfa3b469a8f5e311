package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** SPEC P5 to P8 and P10: groups, contexts with limits of their own, and what queues share. */
class GroupAndContextTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok().after(Duration.ofSeconds(1)));

  void submit(Hostpace engine, CallContext context, String... uris) {
    for (String uri : uris) {
      engine.execute(server.get(uri), context);
    }
  }

  @Test
  void P5_aGroupCapsItsHostsTogetherAtAnyDepthButNotTheApex() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addLimit("*.wikidata.org", Limits.inFlight(2)).build();

    submit(engine, CallContext.DEFAULT,
        "https://query.wikidata.org/1", "https://x.y.wikidata.org/1", "https://query-scholarly.wikidata.org/1",
        "https://wikidata.org/1", "https://wikidata.org/2", "https://wikidata.org/3");
    time.runDue();

    assertThat(server.starts()).containsExactly(
        "0.000 /1", "0.000 /1", "0.000 /1", "0.000 /2", "0.000 /3");
    assertThat(server.startTimes("scholarly")).isEmpty();
    time.advance(Duration.ofSeconds(1));
    assertThat(server.startTimes("scholarly")).containsExactly("1.000");
  }

  @Test
  void P5_aHostCanBeInSeveralGroups() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .addLimit("*.wikidata.org", Limits.inFlight(3))
        .addLimit("*.query.wikidata.org", Limits.inFlight(1))
        .build();

    submit(engine, CallContext.DEFAULT,
        "https://a.query.wikidata.org/1", "https://b.query.wikidata.org/1", "https://other.wikidata.org/1",
        "https://other.wikidata.org/2", "https://other.wikidata.org/3");
    time.runDue();

    assertThat(server.startTimes("query.wikidata.org")).containsExactly("0.000");
    assertThat(server.startTimes("other.wikidata.org")).containsExactly("0.000", "0.000");
  }

  @Test
  void P6_aHostsOwnRateHoldsInsideItsGroupsCap() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .addLimit("*.wikidata.org", Limits.inFlight(10))
        .addLimit("query.wikidata.org", Limits.perSecond(1))
        .build();

    submit(engine, CallContext.DEFAULT,
        "https://query.wikidata.org/1", "https://query.wikidata.org/2", "https://query.wikidata.org/3");
    time.advance(Duration.ofSeconds(5));

    // a second and 20 ms apart, the first counted from its answer at 1 s (SPEC P1)
    assertThat(server.startTimes("query")).containsExactly("0.000", "2.020", "3.040");
  }

  @Test
  void P6_aGroupWithRoomDoesNotLetAHeldBackHostStartItsBacklogFasterThanItsRate() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .addLimit("*.example.org", Limits.inFlight(2))
        .addLimit("slow.example.org", Limits.perSecond(0.5))
        .build();
    server.script(exchange -> Reply.ok().after(exchange.uri.getHost().startsWith("busy")
        ? Duration.ofSeconds(10) : Duration.ofMillis(100)));

    // At 0 s busy takes both of the group's places for 10 s; slow's three requests wait behind them.
    submit(engine, CallContext.DEFAULT, "https://busy.example.org/1", "https://busy.example.org/2");
    submit(engine, CallContext.DEFAULT, "https://slow.example.org/1", "https://slow.example.org/2",
        "https://slow.example.org/3");
    time.advance(Duration.ofSeconds(9));
    assertThat(server.startTimes("slow")).isEmpty();

    // At 10 s the group frees both places with slow's backlog waiting: room for two at once, but
    // slow's own rate still spaces them 2 s apart (and 20 ms, SPEC P1), the first counted from its
    // answer at 10.1 s.
    time.advance(Duration.ofSeconds(11));
    assertThat(server.startTimes("busy")).containsExactly("0.000", "0.000");
    assertThat(server.startTimes("slow")).containsExactly("10.000", "12.120", "14.140");
  }

  @Test
  void P7_groupServesTheOldestWaitingRequestFirst() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addLimit("*.wikidata.org", Limits.inFlight(1)).build();

    // query.wikidata.org keeps requests waiting; commons' one request arrived before most of them.
    submit(engine, CallContext.DEFAULT, "https://query.wikidata.org/1", "https://query.wikidata.org/2");
    submit(engine, CallContext.DEFAULT, "https://commons.wikidata.org/1");
    submit(engine, CallContext.DEFAULT, "https://query.wikidata.org/3", "https://query.wikidata.org/4");
    time.advance(Duration.ofSeconds(10));

    assertThat(server.log).extracting(line -> line.substring(6)).containsExactly(
        "GET https://query.wikidata.org/1",
        "GET https://query.wikidata.org/2",
        "GET https://commons.wikidata.org/1",
        "GET https://query.wikidata.org/3",
        "GET https://query.wikidata.org/4");
  }

  @Test
  void P8_contextsThatGiveAHostDifferentLimitsEachGetTheirOwnQueue() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    CallContext one = CallContext.builder().addLimit("a.test", Limits.inFlight(1)).build();
    CallContext three = CallContext.builder().addLimit("a.test", Limits.inFlight(3)).build();

    submit(engine, one, "http://a.test/one/1", "http://a.test/one/2", "http://a.test/one/3");
    submit(engine, three, "http://a.test/three/1", "http://a.test/three/2", "http://a.test/three/3",
        "http://a.test/three/4");
    time.runDue();

    assertThat(server.startTimes("/one/")).containsExactly("0.000");
    assertThat(server.startTimes("/three/")).containsExactly("0.000", "0.000", "0.000");
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.queues()).isEqualTo(2));
  }

  @Test
  void P8_contextsWithEqualLimitsShareOneQueue() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    CallContext first = CallContext.builder().addLimit("a.test", Limits.inFlight(1)).build();
    CallContext second = CallContext.builder().limitsForEveryHost(Limits.inFlight(1)).build();

    submit(engine, first, "http://a.test/first/1", "http://a.test/first/2");
    submit(engine, second, "http://a.test/second/1");
    time.runDue();

    assertThat(server.log).hasSize(1);
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.queues()).isEqualTo(1));
  }

  @Test
  void P8_aRateSpacesOnlyTheRequestsItWasGivenSoAFasterContextIsNotHeldBack() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    CallContext slow = CallContext.builder().addLimit("a.test", Limits.perSecond(0.5)).build();
    CallContext fast = CallContext.builder().addLimit("a.test", Limits.perSecond(4)).build();

    submit(engine, slow, "http://a.test/slow/1", "http://a.test/slow/2");
    submit(engine, fast, "http://a.test/fast/1", "http://a.test/fast/2", "http://a.test/fast/3");
    time.advance(Duration.ofSeconds(5));

    assertThat(server.startTimes("/slow/")).containsExactly("0.000", "3.020"); // from the first's answer at 1 s
    assertThat(server.startTimes("/fast/")).containsExactly("0.000", "0.255", "0.510"); // 5 ms late each
  }

  @Test
  void P8_aRateOutlivesItsQueueAndCarriesOverToTheNextContextWithTheSameLimits() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(100)));
    CallContext tenSeconds = CallContext.builder().addLimit("a.test", Limits.perSecond(0.1)).build();

    submit(engine, tenSeconds, "http://a.test/1");
    time.advance(Duration.ofSeconds(1));
    assertThat(queueCount(engine)).isZero();

    CallContext sameLimits = CallContext.builder().addLimit("a.test", Limits.perSecond(0.1)).build();
    submit(engine, sameLimits, "http://a.test/2");
    time.advance(Duration.ofSeconds(20));

    assertThat(server.starts()).containsExactly("0.000 /1", "10.120 /2"); // from the first's answer at 0.1 s
  }

  @Test
  void P8_aHostsQueuesStartTheirRequestsInArrivalOrder() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addLimit("*.example.org", Limits.inFlight(1)).build();
    CallContext other = CallContext.builder().addLimit("a.example.org", Limits.inFlight(5)).build();

    submit(engine, CallContext.DEFAULT, "http://a.example.org/default/1", "http://a.example.org/default/2");
    submit(engine, other, "http://a.example.org/other/1");
    submit(engine, CallContext.DEFAULT, "http://a.example.org/default/3");
    time.advance(Duration.ofSeconds(10));

    assertThat(server.log).extracting(line -> line.substring(6)).containsExactly(
        "GET http://a.example.org/default/1", "GET http://a.example.org/default/2",
        "GET http://a.example.org/other/1", "GET http://a.example.org/default/3");
  }

  @Test
  void P10_aGroupsQuotaProbeAnsweredLetsTheRequestsOfEveryContextTheProbeHeldStart() {
    // The group counts 2 starts a window of 10 s (kept from another run, SPEC S1); two contexts
    // give it limits of their own, so each has its own gate on it.
    HostStateStore store = new HostStateStore() {
      @Override
      public HostState open(String key) {
        HostState state = HostStateStore.inMemory().open(key);
        if (key.equals("*.example.org")) {
          state.quota(2, Duration.ofSeconds(10).toNanos());
        }
        return state;
      }

      @Override
      public void close(HostState state) {}
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(store)
        .addLimit("*.example.org", Limits.inFlight(5)).build();
    CallContext other = CallContext.builder().addLimit("*.example.org", Limits.inFlight(3)).build();

    submit(engine, CallContext.DEFAULT, "http://a.example.org/probe");
    submit(engine, other, "http://b.example.org/held");
    time.advance(Duration.ofSeconds(5));

    // The first start is the window's probe, alone; its answer at 1 s opens the window, and the
    // other context's request, held by the probe, takes the window's second start then.
    assertThat(server.starts()).containsExactly("0.000 /probe", "1.000 /held");
  }

  @Test
  void P10_oneEngineSharesAHostsQueueAcrossAllItsCalls() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addLimit("a.test", Limits.inFlight(1)).build();
    // Two "clients" hand their calls to the same engine: they wait in one queue.
    submit(engine, CallContext.DEFAULT, "http://a.test/client1");
    submit(engine, CallContext.DEFAULT, "http://a.test/client2");
    time.runDue();
    assertThat(server.log).hasSize(1);
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.waiting()).isEqualTo(1));
  }

  @Test
  void P10_afterTenThousandHostsGoIdleTheEngineHoldsNoQueueForAnyOfThem() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    for (int i = 0; i < 10_000; i++) {
      engine.execute(server.get("http://host" + i + ".test/"));
    }
    time.runDue();
    assertThat(queueCount(engine)).isEqualTo(10_000);

    time.advance(Duration.ofSeconds(2));

    assertThat(queueCount(engine)).isZero();
    assertThat(engine.snapshot().size()).isZero();
    assertThat(engine.snapshot()).isEmpty();
  }

  @Test
  void P10_whatAHostTaughtIsKeptWhileItIsIdleForAnHourThenForgottenAndTheHostLetGo() {
    // The seed's rule, so that one refusal and one answer leave an interval (225 ms) to keep.
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).learningRule(LearningRule.seed()).build();
    java.util.Set<String> refused = new java.util.HashSet<>();
    server.script(exchange -> refused.add(exchange.uri.getHost()) ? Reply.status(429) : Reply.ok());
    for (int i = 0; i < 1000; i++) {
      engine.execute(server.get("http://host" + i + ".test/")); // each refused once: an interval each
      time.advance(Duration.ofMillis(500));
    }
    time.advance(Duration.ofSeconds(10));
    assertThat(queueCount(engine)).isZero();
    assertThat(engine.snapshot().size()).isEqualTo(1000); // what each taught is kept
    assertThat(engine.snapshot().get(0).interval()).isPositive();
    assertThat(time.pendingTasks()).as("one timer task for the looks at all the hosts kept").isOne();

    // Host i last started at 0.5 i + 0.25 s (its retry); an hour after that it goes.
    time.advance(Duration.ofSeconds(3800 - 510));
    assertThat(engine.snapshot().size()).isEqualTo(600); // hosts 400 to 999
    assertThat(time.pendingTasks()).isOne();
    time.advance(Duration.ofSeconds(300));
    assertThat(engine.snapshot().size()).isZero();
    assertThat(engine.snapshot()).isEmpty();
    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void P10_aHostBusyAgainBeforeTheHourKeepsWhatItTaught() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).learningRule(LearningRule.seed())
        .forgetIdleAfter(Duration.ofMinutes(10)).build();
    AtomicInteger seen = new AtomicInteger();
    server.script(exchange -> seen.incrementAndGet() == 1 ? Reply.status(429) : Reply.ok());
    engine.execute(server.get("http://a.test/1"));
    time.advance(Duration.ofMinutes(9));
    engine.execute(server.get("http://a.test/2"));
    time.advance(Duration.ofMinutes(9));
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.interval()).isPositive());

    time.advance(Duration.ofMinutes(2));
    assertThat(engine.snapshot()).isEmpty();
  }

  @Test
  void P10_hostsThatDifferOnlyInCaseTrailingDotOrDefaultPortShareOneQueue() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addLimit("example.org", Limits.inFlight(1)).build();

    submit(engine, CallContext.DEFAULT, "http://Example.ORG./1", "http://example.org:80/2", "http://example.org/3");
    submit(engine, CallContext.DEFAULT, "http://bücher.example/1", "http://xn--bcher-kva.example/2");
    time.runDue();

    assertThat(engine.snapshot()).extracting(HostSnapshot::key, HostSnapshot::inFlight, HostSnapshot::waiting)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("example.org", 1, 2),
            org.assertj.core.groups.Tuple.tuple("xn--bcher-kva.example", 2, 0));
    assertThat(engine.effectiveLimits(URI.create("http://EXAMPLE.org:80/"), CallContext.DEFAULT).inFlight())
        .isEqualTo(1);
  }

  /**
   * A group's release looks at the few hosts next in arrival order, not at all its hosts: 20,000
   * requests through a group of 10,000 hosts cost the engine a few looks each. Each host's second
   * request arrives right behind its first, so most of the time the oldest heads wait for their
   * host's own rate, not for the group.
   */
  @Test
  void P7_aGroupOfTenThousandHostsStartsEachRequestAfterAFewLooksNotOneLookPerHost() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .limitsForEveryHost(Limits.perSecond(1))
        .addLimit("*.example.org", Limits.inFlight(10))
        .build();
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(100)));
    int hosts = 10_000;
    for (int i = 0; i < hosts; i++) {
      submit(engine, CallContext.DEFAULT, "http://h" + i + ".example.org/1", "http://h" + i + ".example.org/2");
    }
    time.runDue();
    assertThat(server.log).hasSize(10); // at 0 s the group's ten places go to the ten oldest

    time.runUntilIdle(Duration.ofDays(1));

    assertThat(server.log).hasSize(2 * hosts);
    // its own rate, counted from its first answer at 0.1 s (SPEC P1), then the group's next free place
    assertThat(server.startTimes("h0.example.org")).containsExactly("0.000", "1.200");
    assertThat(engine.readinessChecks()).isLessThan(6L * 2 * hosts);
  }

  /**
   * The same with a group nested in it: {@code *.a.example.org}, over a third of the hosts, has 3
   * places and 20 starts a second, so most of its hosts' heads wait for it, not for the outer
   * group. A release of the outer group looks at the heads the outer group holds back, never at
   * those the inner one holds: still a few looks a request.
   */
  @Test
  void P7_aGroupNestedInAGroupOfTenThousandHostsCostsEachRequestAFewLooksNotOneLookPerHeadItHolds() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .limitsForEveryHost(Limits.perSecond(1))
        .addLimit("*.example.org", Limits.inFlight(8))
        .addLimit("*.a.example.org", new Limits(3, Rate.perSecond(20)))
        .build();
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(100)));
    int hosts = 10_000;
    for (int i = 0; i < hosts; i++) {
      String host = i % 3 == 0 ? "h" + i + ".a.example.org" : "h" + i + ".example.org";
      submit(engine, CallContext.DEFAULT, "http://" + host + "/1", "http://" + host + "/2");
    }
    time.runDue();
    assertThat(server.log).hasSize(8); // at 0 s the outer group's eight places, one of them the inner group's

    time.runUntilIdle(Duration.ofDays(1));

    assertThat(server.log).hasSize(2 * hosts);
    // the inner group's 6,668 requests at 20 a second: its last host's second starts last
    assertThat(server.startTimes("h9999.a.example.org")).last().satisfies(at -> assertThat(Double.parseDouble(at)).isGreaterThan(333));
    assertThat(engine.readinessChecks()).isLessThan(6L * 2 * hosts);
  }

  /** The host queues the engine holds, as its snapshot counts them (groups have gates, not queues). */
  static int queueCount(Hostpace engine) {
    return engine.snapshot().stream().filter(host -> !host.group()).mapToInt(HostSnapshot::queues).sum();
  }
}

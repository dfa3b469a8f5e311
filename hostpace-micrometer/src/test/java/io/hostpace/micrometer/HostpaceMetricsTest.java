package io.hostpace.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.HostpaceListener;
import io.hostpace.Limits;
import io.hostpace.VirtualTime;
import io.hostpace.micrometer.ScriptedServer.Reply;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.FixedWindow;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The metrics of a real engine in virtual time, read from a {@link SimpleMeterRegistry}. Each
 * test reads as a trace: "at 0 s three requests arrive; at 1 s two are in flight".
 */
class HostpaceMetricsTest {

  final VirtualTime time = VirtualTime.create();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** Metrics that take a snapshot for every gauge read, so a trace can read them at any instant. */
  HostpaceMetrics.Builder metrics() {
    return HostpaceMetrics.builder().snapshotMaxAge(Duration.ZERO);
  }

  Hostpace engine(HostpaceMetrics metrics, Hostpace.Builder builder) {
    Hostpace engine = builder.time(time).addListener(metrics.listener()).build();
    metrics.watch(engine).bindTo(registry);
    return engine;
  }

  static ScriptedServer server(VirtualTime time, BiFunction<URI, Integer, Reply> script) {
    return new ScriptedServer(time, script);
  }

  double gauge(String name, String host) {
    return registry.get(name).tag("host", host).gauge().value();
  }

  double millis(String name, String host) {
    return registry.get(name).tag("host", host).timeGauge().value(TimeUnit.MILLISECONDS);
  }

  double count(String name, String host) {
    return registry.get(name).tag("host", host).functionCounter().count();
  }

  Timer waits(String host) {
    return registry.get("hostpace.attempts.wait").tag("host", host).timer();
  }

  void at(double seconds) {
    long target = Math.round(seconds * 1e9);
    time.advance(Duration.ofNanos(target - time.elapsed().toNanos()));
  }

  /** Each gated host's gate. */
  final Map<String, AdmissionGate> gates = new HashMap<>();

  /** A KGF-like gate: {@code places} at once for 100 ms each; the rest refused at once with Retry-After: 1. */
  Reply gate(String host, int places) {
    AdmissionGate gate = gates.computeIfAbsent(host, h -> new AdmissionGate(places));
    if (!gate.admit(time.nanoTime())) {
      return Reply.refuse(429, "1");
    }
    time.schedule(() -> gate.end(time.nanoTime()), Reply.ok().latency().toNanos());
    return Reply.ok();
  }

  /** Each host's quota. */
  final Map<String, FixedWindow> windows = new HashMap<>();

  /** A quota counted in fixed windows of {@code window} from 0 s; beyond {@code permits} a bare 429. */
  Reply fixedWindow(String host, int permits, Duration window) {
    long zero = time.nanoTime() - time.elapsed().toNanos();
    FixedWindow quota = windows.computeIfAbsent(host, h -> FixedWindow.countingRefusals(permits, window, zero));
    return quota.admit(time.nanoTime()) ? Reply.ok().after(Duration.ofMillis(50)) : Reply.status(429).after(Duration.ofMillis(50));
  }

  // ---------------------------------------------------------------- gauges from the snapshot

  @Test
  void P2_requestsInFlightAndWaitingAreGaugesOfTheSnapshot() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false).addLimit("a.test", Limits.inFlight(2)));
    ScriptedServer server = server(time, (uri, attempt) -> Reply.ok().after(Duration.ofSeconds(3)));

    // at 0 s three requests arrive; two start, one waits
    for (int i = 1; i <= 3; i++) {
      engine.execute(server.get("http://a.test/" + i));
    }
    at(1);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).isEqualTo(2);
    assertThat(gauge("hostpace.attempts.waiting", "a.test")).isEqualTo(1);
    // at 3 s two answers; the third starts
    at(3.5);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).isEqualTo(1);
    assertThat(gauge("hostpace.attempts.waiting", "a.test")).isZero();
    at(7);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).isZero();
    assertThat(count("hostpace.attempts.started", "a.test")).isEqualTo(3);
  }

  @Test
  void R2_R4_theLearnedIntervalAndThePauseAreTimeGauges() {
    HostpaceMetrics metrics = metrics().build();
    // The seed's rule (SPEC R4), for its literal numbers: 250 ms, then a tenth off.
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false).learningRule(io.hostpace.spi.LearningRule.seed()));
    ScriptedServer server = server(time, (uri, attempt) -> {
      if (attempt > 1) {
        return Reply.ok();
      }
      return uri.getHost().equals("bare.test") ? Reply.status(429) : Reply.refuse(503, "5");
    });

    engine.execute(server.get("http://bare.test/"));
    engine.execute(server.get("http://paused.test/"));
    // at 0.1 s both are refused: bare.test learns 250 ms; paused.test starts nothing until 5.1 s
    at(0.2);
    assertThat(millis("hostpace.learned.interval", "bare.test")).isEqualTo(250);
    assertThat(millis("hostpace.pause.remaining", "paused.test")).isEqualTo(4900);
    assertThat(millis("hostpace.pause.remaining", "bare.test")).isZero();
    // at 0.25 s bare.test's retry starts, answered at 0.35 s: a tenth off, 225 ms
    at(2.1);
    assertThat(millis("hostpace.learned.interval", "bare.test")).isEqualTo(225);
    assertThat(millis("hostpace.pause.remaining", "paused.test")).isEqualTo(3000);
    at(6);
    assertThat(millis("hostpace.pause.remaining", "paused.test")).isZero();
    assertThat(registry.get("hostpace.learned.interval").tag("host", "bare.test").timeGauge().value())
        .as("in the registry's base unit, seconds").isEqualTo(0.225);
  }

  @Test
  void theLearnedInFlightLimitIsAGauge() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> gate(uri.getHost(), 4));

    // at 0 s twenty requests arrive and start; four are answered at 0.1 s, sixteen refused with Retry-After: 1
    for (int i = 0; i < 20; i++) {
      engine.execute(server.get("http://kgf.test/" + i));
    }
    at(0.05);
    assertThat(gauge("hostpace.learned.in.flight.limit", "kgf.test")).as("nothing learned yet").isZero();
    at(0.5);
    assertThat(gauge("hostpace.learned.in.flight.limit", "kgf.test")).isEqualTo(4);
    assertThat(registry.get("hostpace.learned.in.flight.limit").gauge().getId().getBaseUnit()).isNull();
  }

  @Test
  void otherShowsTheSmallestLearnedInFlightLimitOfItsHosts() {
    HostpaceMetrics metrics = metrics().maxHosts(0).build(); // every host is "other"
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> switch (uri.getHost()) {
      case "four.test" -> gate("four.test", 4);
      case "two.test" -> gate("two.test", 2);
      default -> Reply.ok().after(Duration.ofSeconds(5)); // learns no limit: it must not count as 0
    });

    for (int i = 0; i < 20; i++) {
      engine.execute(server.get("http://four.test/" + i));
      engine.execute(server.get("http://two.test/" + i));
      engine.execute(server.get("http://unlimited.test/" + i));
    }
    at(0.5);
    assertThat(engine.snapshot()).extracting(h -> h.key() + "=" + h.inFlightLimit())
        .contains("four.test=4", "two.test=2", "unlimited.test=0");
    assertThat(gauge("hostpace.learned.in.flight.limit", HostpaceMetrics.OTHER)).isEqualTo(2);
  }

  @Test
  void theLearnedQuotaIsAGaugeOfItsPermitsAndATimeGaugeOfItsWindow() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> fixedWindow(uri.getHost(), 20, Duration.ofSeconds(30)));

    // at 0 s 200 requests arrive for a host that takes 20 in each window of 30 s, and refuses the rest bare
    for (int i = 0; i < 200; i++) {
      engine.execute(server.get("http://api.test/" + i));
    }
    at(1);
    assertThat(gauge("hostpace.attempts.waiting", "api.test")).as("the host is in the snapshot").isPositive();
    assertThat(gauge("hostpace.learned.quota.permits", "api.test")).as("nothing learned yet").isZero();
    assertThat(millis("hostpace.learned.quota.window", "api.test")).isZero();
    // the quota is learned at about 40 s, once the first window's wall of refusals ends; its window
    // is first the wall's length, about 20 s
    at(60);
    assertThat(gauge("hostpace.learned.quota.permits", "api.test")).isEqualTo(20);
    assertThat(millis("hostpace.learned.quota.window", "api.test")).isBetween(15_000.0, 30_300.0);
    // by 150 s the engine has found where the windows begin: 30 s (the last requests start at 270 s)
    at(180);
    assertThat(gauge("hostpace.learned.quota.permits", "api.test")).isEqualTo(20);
    assertThat(millis("hostpace.learned.quota.window", "api.test")).isBetween(29_700.0, 30_300.0);
    assertThat(registry.get("hostpace.learned.quota.window").timeGauge().getId().getBaseUnit()).isEqualTo("seconds");
  }

  @Test
  void otherShowsTheLearnedQuotaThatAllowsTheFewestStartsASecond() {
    HostpaceMetrics metrics = metrics().maxHosts(0).build(); // every host is "other"
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> uri.getHost().equals("slow.test")
        ? fixedWindow("slow.test", 20, Duration.ofSeconds(30))  // 0.67 a second
        : fixedWindow("fast.test", 10, Duration.ofSeconds(5))); // 2 a second, with fewer permits

    // at 0 s 600 requests arrive for fast.test and 200 for slow.test: both still busy at 180 s
    for (int i = 0; i < 600; i++) {
      engine.execute(server.get("http://fast.test/" + i));
    }
    for (int i = 0; i < 200; i++) {
      engine.execute(server.get("http://slow.test/" + i));
    }
    at(180);
    assertThat(engine.snapshot()).extracting(h -> h.key() + "=" + (h.quota() == null ? 0 : h.quota().permits()))
        .contains("fast.test=10", "slow.test=20");
    assertThat(gauge("hostpace.learned.quota.permits", HostpaceMetrics.OTHER)).isEqualTo(20);
    assertThat(millis("hostpace.learned.quota.window", HostpaceMetrics.OTHER)).isBetween(29_700.0, 30_300.0);
  }

  // ---------------------------------------------------------------- counters and the timer from events

  @Test
  void T1_T3_countersCountStartsRefusalsRetriesAndGaveUps() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) ->
        uri.getHost().equals("twice.test") && attempt > 2 ? Reply.ok() : Reply.refuse(429, "1"));

    // twice.test: refused at 0.1 s and 1.2 s, answered at 2.3 s
    engine.execute(server.get("http://twice.test/"));
    // always.test, one retry allowed: refused at 0.1 s and 1.2 s, then gives up
    engine.execute(server.get("http://always.test/"), CallContext.builder().retries(1).build());
    at(5);

    assertThat(count("hostpace.attempts.started", "twice.test")).isEqualTo(3);
    assertThat(count("hostpace.attempts.refused", "twice.test")).isEqualTo(2);
    assertThat(count("hostpace.attempts.retried", "twice.test")).isEqualTo(2);
    assertThat(count("hostpace.calls.gave.up", "twice.test")).isZero();
    assertThat(count("hostpace.attempts.started", "always.test")).isEqualTo(2);
    assertThat(count("hostpace.attempts.refused", "always.test")).isEqualTo(2);
    assertThat(count("hostpace.attempts.retried", "always.test")).isEqualTo(1);
    assertThat(count("hostpace.calls.gave.up", "always.test")).isEqualTo(1);
    // twice.test's attempts waited 0 s, then 1 s and 1 s for the pauses Retry-After asked
    assertThat(waits("twice.test").count()).isEqualTo(3);
    assertThat(waits("twice.test").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2000);
    assertThat(waits("twice.test").max(TimeUnit.MILLISECONDS)).isEqualTo(1000);
  }

  @Test
  void P1_theTimeSpentWaitingIsATimer() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false).addLimit("a.test", Limits.perSecond(1)));
    ScriptedServer server = server(time, (uri, attempt) -> Reply.ok());

    // at 0 s three requests arrive; they start at 0 s, 1.12 s and 2.14 s: a second and 20 ms
    // apart, the second counted from the first's answer at 0.1 s (SPEC P1)
    for (int i = 1; i <= 3; i++) {
      engine.execute(server.get("http://a.test/" + i));
    }
    at(3);

    assertThat(waits("a.test").count()).isEqualTo(3);
    assertThat(waits("a.test").totalTime(TimeUnit.MILLISECONDS)).isCloseTo(3260, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(waits("a.test").max(TimeUnit.MILLISECONDS)).isCloseTo(2140, org.assertj.core.data.Offset.offset(1e-6));
  }

  // ---------------------------------------------------------------- groups

  @Test
  void P5_P7_aGroupHasMetersOfItsOwnThatCountItsHostsTogether() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false).addLimit("*.wikidata.org", Limits.inFlight(1)));
    ScriptedServer server = server(time, (uri, attempt) -> Reply.ok().after(Duration.ofSeconds(1)));

    // at 0 s: query/1, query/2, commons/1 arrive; one place for the group; they start at 0, 1, 2 s
    engine.execute(server.get("https://query.wikidata.org/1"));
    engine.execute(server.get("https://query.wikidata.org/2"));
    engine.execute(server.get("https://commons.wikidata.org/1"));
    at(0.5);
    assertThat(gauge("hostpace.attempts.in.flight", "*.wikidata.org")).isEqualTo(1);
    assertThat(gauge("hostpace.attempts.waiting", "*.wikidata.org")).isEqualTo(2);
    assertThat(gauge("hostpace.attempts.waiting", "query.wikidata.org")).isEqualTo(1);
    assertThat(gauge("hostpace.attempts.waiting", "commons.wikidata.org")).isEqualTo(1);
    at(3.5);

    assertThat(count("hostpace.attempts.started", "*.wikidata.org")).isEqualTo(3);
    assertThat(count("hostpace.attempts.started", "query.wikidata.org")).isEqualTo(2);
    assertThat(count("hostpace.attempts.started", "commons.wikidata.org")).isEqualTo(1);
    assertThat(waits("*.wikidata.org").totalTime(TimeUnit.SECONDS)).isEqualTo(0 + 1 + 2);
    assertThat(registry.get("hostpace.attempts.started").tag("host", "*.wikidata.org").functionCounter()
        .getId().getTag("scope")).isEqualTo("group");
    assertThat(registry.get("hostpace.attempts.started").tag("host", "query.wikidata.org").functionCounter()
        .getId().getTag("scope")).isEqualTo("host");
  }

  // ---------------------------------------------------------------- bounded tags

  @Test
  void hostTagsAreCappedSoTenThousandHostsMakeAHundredAndOneSeriesPerMeter() {
    HostpaceMetrics metrics = metrics().build(); // 100 host tags
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> Reply.ok().after(Duration.ofSeconds(1)));

    // at 0 s one request to each of 10,000 hosts
    for (int i = 0; i < 10_000; i++) {
      engine.execute(server.get("http://h" + i + ".test/"));
    }
    at(0.5);
    assertThat(gauge("hostpace.attempts.in.flight", "h0.test")).isEqualTo(1);
    assertThat(gauge("hostpace.attempts.in.flight", "h99.test")).isEqualTo(1);
    assertThat(gauge("hostpace.attempts.in.flight", HostpaceMetrics.OTHER)).isEqualTo(9_900);
    at(2);

    assertThat(count("hostpace.attempts.started", HostpaceMetrics.OTHER)).isEqualTo(9_900);
    assertThat(registry.get("hostpace.attempts.started").functionCounters().stream()
        .mapToDouble(counter -> counter.count()).sum()).isEqualTo(10_000);
    assertThat(gauge("hostpace.attempts.in.flight", HostpaceMetrics.OTHER)).isZero();
    Set<String> hostTags = new TreeSet<>();
    for (Meter meter : registry.getMeters()) {
      hostTags.add(meter.getId().getTag("host"));
    }
    assertThat(hostTags).hasSize(101).contains("h0.test", "h99.test", "other").doesNotContain("h100.test");
    assertThat(registry.getMeters()).hasSize(101 * 13);
  }

  @Test
  void theCapIsConfigurableAndOtherSumsInFlightAndShowsTheLongestPause() {
    HostpaceMetrics metrics = metrics().maxHosts(1).build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> switch (uri.getHost()) {
      case "b.test" -> attempt == 1 ? Reply.refuse(503, "5") : Reply.ok();
      case "c.test" -> attempt == 1 ? Reply.refuse(503, "3") : Reply.ok();
      default -> Reply.ok().after(Duration.ofSeconds(1));
    });

    engine.execute(server.get("http://a.test/"));
    engine.execute(server.get("http://b.test/"));
    engine.execute(server.get("http://c.test/"));
    at(0.05);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).isEqualTo(1);
    assertThat(gauge("hostpace.attempts.in.flight", HostpaceMetrics.OTHER)).isEqualTo(2);
    // at 0.1 s b.test is paused until 5.1 s, c.test until 3.1 s
    at(0.1 + 1);
    assertThat(millis("hostpace.pause.remaining", HostpaceMetrics.OTHER)).isEqualTo(4000);
    assertThat(gauge("hostpace.attempts.waiting", HostpaceMetrics.OTHER)).isEqualTo(2);
    at(6);
    assertThat(count("hostpace.attempts.refused", HostpaceMetrics.OTHER)).isEqualTo(2);
    assertThat(count("hostpace.attempts.started", HostpaceMetrics.OTHER)).isEqualTo(4);
  }

  @Test
  void theListenerCountsEveryEventFromManyThreadsAtOnceWithinTheCap() throws Exception {
    HostpaceMetrics metrics = metrics().maxHosts(50).build();
    metrics.bindTo(registry);
    HostpaceListener listener = metrics.listener();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int offset = t;
      threads.add(new Thread(() -> {
        for (int i = 0; i < 5_000; i++) {
          String host = "h" + ((i * 8 + offset) % 1_000) + ".test";
          listener.onEvent(new HostpaceEvent.Started(host, URI.create("http://" + host + "/"), 1, Duration.ofMillis(10), 0));
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }

    assertThat(registry.get("hostpace.attempts.started").functionCounters().stream()
        .mapToDouble(counter -> counter.count()).sum()).isEqualTo(8 * 5_000);
    assertThat(registry.get("hostpace.attempts.started").functionCounters()).hasSize(51);
    assertThat(registry.get("hostpace.attempts.wait").timers().stream().mapToLong(Timer::count).sum())
        .isEqualTo(8 * 5_000);
  }

  // ---------------------------------------------------------------- hosts let go

  @Test
  void P10_aHostTheEngineLetGoReadsZeroInItsGaugesAndKeepsItsCounts() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> attempt == 1 ? Reply.refuse(503, "2") : Reply.ok());

    engine.execute(server.get("http://gone.test/"));
    // refused at 0.1 s, paused until 2.1 s
    at(0.5);
    assertThat(millis("hostpace.pause.remaining", "gone.test")).isEqualTo(1600);
    assertThat(gauge("hostpace.attempts.waiting", "gone.test")).isEqualTo(1);
    // the retry starts at 2.1 s and is answered at 2.2 s; nothing is left to teach
    at(10);

    assertThat(engine.snapshot()).isEmpty();
    assertThat(gauge("hostpace.attempts.waiting", "gone.test")).isZero();
    assertThat(gauge("hostpace.attempts.in.flight", "gone.test")).isZero();
    assertThat(millis("hostpace.pause.remaining", "gone.test")).isZero();
    assertThat(count("hostpace.attempts.started", "gone.test")).isEqualTo(2);
    assertThat(count("hostpace.attempts.refused", "gone.test")).isEqualTo(1);
  }

  // ---------------------------------------------------------------- how current

  @Test
  void gaugesReadASnapshotAtMostASecondOldByTheEnginesClock() {
    HostpaceMetrics metrics = HostpaceMetrics.create();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    ScriptedServer server = server(time, (uri, attempt) -> Reply.ok().after(Duration.ofMillis(300)));

    // at 0 s a request starts (a snapshot is taken as its host is first seen); answered at 0.3 s
    engine.execute(server.get("http://a.test/"));
    at(0.2);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).isEqualTo(1);
    at(0.5);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).as("the snapshot of 0 s").isEqualTo(1);
    at(1);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).as("a new snapshot").isZero();
  }

  @Test
  void gaugesReadZeroUntilAnEngineIsWatched() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(metrics.listener()).build();
    metrics.bindTo(registry);
    engine.execute(server(time, (uri, attempt) -> Reply.ok().after(Duration.ofSeconds(1))).get("http://a.test/"));
    at(0.5);

    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).isZero();
    assertThat(count("hostpace.attempts.started", "a.test")).isEqualTo(1);
    metrics.watch(engine);
    assertThat(gauge("hostpace.attempts.in.flight", "a.test")).isEqualTo(1);
  }

  // ---------------------------------------------------------------- listeners and registries

  @Test
  void aCombinedListenerTellsEveryListenerThoughOneThrows() {
    HostpaceMetrics metrics = metrics().build();
    List<String> heard = new ArrayList<>();
    HostpaceListener throwing = event -> {
      throw new IllegalStateException("a listener that breaks");
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .addListener(HostpaceMetrics.combine(throwing, metrics.listener(), event -> heard.add(event.getClass().getSimpleName())))
        .build();
    metrics.watch(engine).bindTo(registry);

    engine.execute(server(time, (uri, attempt) -> Reply.ok()).get("http://a.test/"));
    at(1);

    assertThat(heard).containsExactly("Queued", "Started");
    assertThat(count("hostpace.attempts.started", "a.test")).isEqualTo(1);
  }

  @Test
  void aRegistryBoundLaterSeesEveryCountAndTheWaitsFromThenOn() {
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false).addLimit("a.test", Limits.perSecond(1)));
    ScriptedServer server = server(time, (uri, attempt) -> Reply.ok());
    SimpleMeterRegistry later = new SimpleMeterRegistry();

    engine.execute(server.get("http://a.test/1"));
    engine.execute(server.get("http://a.test/2"));
    at(0.5); // /1 started at 0 s; /2 starts at 1 s
    metrics.bindTo(later);
    metrics.bindTo(later); // twice is once
    at(2);

    assertThat(later.get("hostpace.attempts.started").tag("host", "a.test").functionCounter().count()).isEqualTo(2);
    assertThat(later.get("hostpace.attempts.wait").tag("host", "a.test").timer().count()).isEqualTo(1);
    assertThat(waits("a.test").count()).isEqualTo(2);
  }

  // ---------------------------------------------------------------- names

  @Test
  void namesAndTagsFollowMicrometersConventions() {
    HostpaceMetrics metrics = metrics().tags(Tags.of("engine", "crawler")).build();
    Hostpace engine = engine(metrics, Hostpace.builder().widenFirstContact(false));
    engine.execute(server(time, (uri, attempt) -> Reply.ok()).get("http://a.test/"));
    at(1);

    Set<String> names = new TreeSet<>();
    for (Meter meter : registry.getMeters()) {
      names.add(meter.getId().getName());
      assertThat(meter.getId().getTags()).extracting(tag -> tag.getKey()).containsExactlyInAnyOrder("engine", "host", "scope");
    }
    assertThat(names).containsExactly(
        "hostpace.attempts.in.flight", "hostpace.attempts.refused", "hostpace.attempts.retried",
        "hostpace.attempts.started", "hostpace.attempts.wait", "hostpace.attempts.waiting",
        "hostpace.calls.gave.up", "hostpace.calls.started",
        "hostpace.learned.in.flight.limit", "hostpace.learned.interval", "hostpace.learned.quota.permits",
        "hostpace.learned.quota.window", "hostpace.pause.remaining");
    assertThat(names).allMatch(name -> name.matches("[a-z]+(\\.[a-z]+)+"));
    assertThat(NamingConvention.snakeCase.name("hostpace.attempts.in.flight", Meter.Type.GAUGE))
        .isEqualTo("hostpace_attempts_in_flight");
    assertThat(registry.get("hostpace.attempts.in.flight").gauge().getId().getBaseUnit()).isNull();
    assertThat(registry.get("hostpace.attempts.started").functionCounter().getId().getBaseUnit()).isNull();
    assertThat(registry.get("hostpace.pause.remaining").timeGauge().getId().getBaseUnit()).isEqualTo("seconds");
  }

  @Test
  void prometheusShowsEachNameOnceWithNoUnitDoubledAndCallsApartFromAttempts() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    HostpaceMetrics metrics = metrics().build();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(metrics.listener()).retries(1).build();
    metrics.watch(engine).bindTo(prometheus);
    // at 0 s one call arrives; it is refused twice with Retry-After (which each retry waits out, so
    // each spends one, SPEC R10), so it gives up after its one retry: one call, two attempts
    engine.execute(server(time, (uri, attempt) -> Reply.refuse(429, "1")).get("http://a.test/"));
    at(5);

    Set<String> samples = new TreeSet<>();
    for (String line : prometheus.scrape().split("\n")) {
      if (!line.isEmpty() && !line.startsWith("#")) {
        samples.add(line.substring(0, line.indexOf('{')));
      }
    }
    assertThat(samples).containsExactly(
        "hostpace_attempts_in_flight", "hostpace_attempts_refused_total", "hostpace_attempts_retried_total",
        "hostpace_attempts_started_total", "hostpace_attempts_wait_seconds_count", "hostpace_attempts_wait_seconds_max",
        "hostpace_attempts_wait_seconds_sum", "hostpace_attempts_waiting",
        "hostpace_calls_gave_up_total", "hostpace_calls_started_total",
        "hostpace_learned_in_flight_limit", "hostpace_learned_interval_seconds", "hostpace_learned_quota_permits",
        "hostpace_learned_quota_window_seconds", "hostpace_pause_remaining_seconds");
    assertThat(prometheus.scrape())
        .contains("hostpace_calls_started_total{host=\"a.test\",scope=\"host\"} 1.0")
        .contains("hostpace_attempts_started_total{host=\"a.test\",scope=\"host\"} 2.0")
        .contains("hostpace_calls_gave_up_total{host=\"a.test\",scope=\"host\"} 1.0");
  }

  @Test
  void badSettingsAreRejectedNamingTheValue() {
    HostpaceMetrics metrics = metrics().build();
    metrics.watch(Hostpace.builder().widenFirstContact(false).time(time).build());

    assertThatThrownBy(() -> metrics.watch(Hostpace.builder().widenFirstContact(false).time(time).build()))
        .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("these metrics watch an engine already");
    assertThatThrownBy(() -> HostpaceMetrics.builder().maxHosts(-1))
        .hasMessage("maxHosts must be zero or more, got -1");
    assertThatThrownBy(() -> HostpaceMetrics.builder().tags(Tags.of("host", "x")))
        .hasMessage("tag 'host' is the metrics' own; choose another name");
    assertThatThrownBy(() -> HostpaceMetrics.builder().snapshotMaxAge(Duration.ofSeconds(-1)))
        .hasMessage("snapshot max age must not be negative, got PT-1S");
  }
}

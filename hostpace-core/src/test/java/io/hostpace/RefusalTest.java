package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.RefusingServer;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.IOException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SPEC R1 to R8: what refusals teach, and what they do not, with the seed's own numbers; and what
 * a server that announces its quota asks for before it refuses.
 */
class RefusalTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok());
  final List<HostpaceEvent> events = new ArrayList<>();

  Hostpace.Builder engine() {
    return Hostpace.builder().widenFirstContact(false).time(time).addListener(events::add);
  }

  CompletableFuture<Response> get(Hostpace engine, String uri) {
    return engine.execute(server.get(uri));
  }

  Duration interval(Hostpace engine, String key) {
    // A host the engine no longer holds has taught nothing.
    return engine.snapshot().stream().filter(h -> h.key().equals(key)).findFirst()
        .map(HostSnapshot::interval).orElse(Duration.ZERO);
  }

  /** Refuses the first {@code n} attempts with {@code refusal}, then answers 200. */
  static java.util.function.Function<FakeServer.FakeExchange, Reply> refuseFirst(int n, Reply refusal) {
    AtomicInteger seen = new AtomicInteger();
    return exchange -> seen.incrementAndGet() <= n ? refusal : Reply.ok();
  }

  @Test
  void R1_a429Or503IsARefusalThatIsRetried() {
    Hostpace engine = engine().build();
    for (int status : new int[] {429, 503}) {
      server.script(refuseFirst(1, Reply.status(status)));
      CompletableFuture<Response> call = get(engine, "http://a" + status + ".test/");
      time.advance(Duration.ofSeconds(5));
      assertThat(call.join().status()).isEqualTo(200);
      assertThat(call.join().attempt()).isEqualTo(2);
    }
  }

  @Test
  void R1_a405IsARefusalOnlyWithRetryAfterAsDbpediaSendsIt() {
    Hostpace engine = engine().build();
    server.script(refuseFirst(1, Reply.refuse(405, "1")));
    CompletableFuture<Response> withRetryAfter = get(engine, "http://dbpedia.test/sparql");
    time.advance(Duration.ofSeconds(5));
    assertThat(withRetryAfter.join().status()).isEqualTo(200);
    assertThat(server.startTimes("dbpedia")).containsExactly("0.000", "1.100");

    server.script(refuseFirst(1, Reply.status(405)));
    CompletableFuture<Response> without = get(engine, "http://dbpedia2.test/sparql");
    time.advance(Duration.ofSeconds(5));
    assertThat(without.join().status()).isEqualTo(405);
    assertThat(server.startTimes("dbpedia2")).containsExactly("5.000"); // not retried
    assertThat(interval(engine, "dbpedia2.test")).isZero(); // and it taught its host nothing
  }

  @Test
  void R1_theRefusalStatusesAreConfigurable() {
    Hostpace engine = engine().refusalStatuses(Set.of(420), Set.of()).build();
    server.script(refuseFirst(1, Reply.status(420)));
    CompletableFuture<Response> enhanceYourCalm = get(engine, "http://a.test/");
    time.advance(Duration.ofSeconds(5));
    assertThat(enhanceYourCalm.join().status()).isEqualTo(200);

    server.script(refuseFirst(1, Reply.status(429)));
    CompletableFuture<Response> notARefusalHere = get(engine, "http://b.test/");
    time.advance(Duration.ofSeconds(5));
    assertThat(notARefusalHere.join().status()).isEqualTo(429);
  }

  @Test
  void R1_aRefusalTeachesItsHostAndEachGroupItIsIn() {
    Hostpace engine = engine().addLimit("*.wikidata.org", Limits.inFlight(10)).build();
    server.script(refuseFirst(1, Reply.status(429)));
    get(engine, "https://query.wikidata.org/sparql");
    time.advance(Duration.ofMillis(150));

    assertThat(interval(engine, "query.wikidata.org")).isEqualTo(Duration.ofMillis(250));
    assertThat(interval(engine, "*.wikidata.org")).isEqualTo(Duration.ofMillis(250));

    // The group's interval spaces its other hosts too.
    get(engine, "https://commons.wikidata.org/1");
    get(engine, "https://commons.wikidata.org/2");
    time.advance(Duration.ofSeconds(2));
    assertThat(server.startTimes("commons")).hasSize(2);
    assertThat(server.startTimes("commons").get(1)).isNotEqualTo(server.startTimes("commons").get(0));
  }

  @Test
  void R2_withRetryAfterTheHostStartsNothingUntilThenAndNothingElseChanges() {
    // KGF's admission gate: four at once, the rest refused with Retry-After: 1.
    Hostpace engine = engine().build();
    AtomicInteger open = new AtomicInteger();
    server.script(exchange -> open.incrementAndGet() <= 4
        ? Reply.ok().after(Duration.ofMillis(500))
        : Reply.refuse(429, "1").after(Duration.ofMillis(10)));
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(get(engine, "http://kgf.test/" + i));
    }
    time.advance(Duration.ofMillis(100));
    open.set(-100); // the gate lets everything through from now on

    time.advance(Duration.ofSeconds(5));

    assertThat(calls).allSatisfy(call -> assertThat(call.join().status()).isEqualTo(200));
    // Refused at 0.010 s, the two retries wait for 1.010 s, and nothing else started meanwhile.
    assertThat(server.startTimes("kgf.test")).containsExactly(
        "0.000", "0.000", "0.000", "0.000", "0.000", "0.000", "1.010", "1.010");
    assertThat(interval(engine, "kgf.test")).isZero();
    assertThat(events).filteredOn(HostpaceEvent.Paused.class::isInstance).hasSize(1);
  }

  @Test
  void R2_retryAfterMayCarryAFraction() {
    Hostpace engine = engine().build();
    server.script(refuseFirst(1, Reply.refuse(429, "1.5").after(Duration.ZERO)));
    get(engine, "http://a.test/");
    time.advance(Duration.ofSeconds(3));
    assertThat(server.startTimes("a.test")).containsExactly("0.000", "1.500");
  }

  @Test
  void R2_retryAfterMayBeAnHttpDateInAnyOfTheThreeForms() {
    Hostpace engine = engine().build();
    String[] patterns = {"EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM ppd HH:mm:ss yyyy"};
    for (int i = 0; i < patterns.length; i++) {
      DateTimeFormatter format = DateTimeFormatter.ofPattern(patterns[i], Locale.ENGLISH).withZone(ZoneOffset.UTC);
      String inTwoSeconds = format.format(time.instant().plusSeconds(2));
      server.script(refuseFirst(1, Reply.refuse(429, inTwoSeconds).after(Duration.ZERO)));
      String host = "form" + i + ".test";
      get(engine, "http://" + host + "/");
      time.advance(Duration.ofSeconds(3));
      assertThat(server.startTimes(host)).as(inTwoSeconds).hasSize(2);
      // Whole seconds: the date says when, to the second, from a clock between two seconds.
      double retried = Double.parseDouble(server.startTimes(host).get(1)) - Double.parseDouble(server.startTimes(host).get(0));
      assertThat(retried).as(inTwoSeconds).isBetween(1.0, 2.0);
    }
  }

  @Test
  void R2_aDateInThePastMeansNowAndAValueThatDoesNotParseCountsAsAbsent() {
    Hostpace engine = engine().build();
    server.script(refuseFirst(1, Reply.refuse(429, "Sun, 06 Nov 1994 08:49:37 GMT").after(Duration.ZERO)));
    get(engine, "http://past.test/");
    time.advance(Duration.ofSeconds(1));
    assertThat(server.startTimes("past.test")).containsExactly("0.000", "0.000");
    assertThat(interval(engine, "past.test")).isZero();

    server.script(refuseFirst(1, Reply.refuse(429, "soon, please").after(Duration.ZERO)));
    get(engine, "http://junk.test/");
    time.advance(Duration.ofSeconds(1));
    // Absent: the interval rule applies, 250 ms.
    assertThat(server.startTimes("junk.test")).containsExactly("1.000", "1.250");
  }

  @Test
  void R3_aRequestAskedToWaitPastTheDelayLimitGivesUpAndReturnsItsRefusal() {
    Hostpace engine = engine().retryDelayLimit(Duration.ofSeconds(10)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/first")
        ? Reply.refuse(503, "3600").after(Duration.ZERO)
        : Reply.ok());
    CompletableFuture<Response> first = get(engine, "http://a.test/first");
    time.runDue();
    assertThat(first).isCompleted();
    assertThat(first.join().status()).isEqualTo(503);
    assertThat(first.join().headers()).containsEntry("retry-after", "3600");
    assertThat(events).filteredOn(HostpaceEvent.GaveUp.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((HostpaceEvent.GaveUp) e).reason()).contains("retry delay limit"));

    // The host's other requests wait no longer than the limit.
    get(engine, "http://a.test/second");
    time.advance(Duration.ofSeconds(20));
    assertThat(server.starts()).containsExactly("0.000 /first", "10.000 /second");
  }

  @ParameterizedTest(name = "{0} digits")
  @ValueSource(ints = {12, 19, 20, 400})
  void R3_aRetryAfterOfAnyNumberOfDigitsPastTheDelayLimitGivesUpAtOnce(int digits) {
    // 12 nines fit a long; 19 and more do not, and ask for longer than any limit all the same (R2).
    String retryAfter = "9".repeat(digits);
    Hostpace engine = engine().retryDelayLimit(Duration.ofSeconds(10)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/first")
        ? Reply.refuse(429, retryAfter).after(Duration.ZERO)
        : Reply.ok());
    CompletableFuture<Response> first = get(engine, "http://a.test/first");
    time.runDue();
    assertThat(first).isCompleted();
    assertThat(first.join().status()).isEqualTo(429);
    assertThat(events).filteredOn(HostpaceEvent.GaveUp.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((HostpaceEvent.GaveUp) e).reason()).contains("retry delay limit"));

    // As with any delay past the limit, the host's other requests wait the limit, not the rule's pace.
    get(engine, "http://a.test/second");
    time.advance(Duration.ofSeconds(20));
    assertThat(server.starts()).containsExactly("0.000 /first", "10.000 /second");
  }

  @Test
  void R4_withoutRetryAfterTheIntervalDoublesFrom250msUpTo10s() {
    Hostpace engine = engine().learningRule(LearningRule.seed()).retries(20).build(); // the seed's numbers
    server.script(exchange -> Reply.status(429).after(Duration.ZERO));
    get(engine, "http://qlever.test/");
    List<Duration> seen = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      time.runUntilIdle(Duration.ofMillis(1));
      seen.add(interval(engine, "qlever.test"));
      time.advance(interval(engine, "qlever.test"));
    }
    assertThat(seen).containsExactly(
        Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
        Duration.ofSeconds(4), Duration.ofSeconds(8), Duration.ofSeconds(10), Duration.ofSeconds(10));
    assertThat(server.startTimes("qlever.test")).startsWith("0.000", "0.250", "0.750", "1.750", "3.750");
  }

  @Test
  void R4_everyAnswerThatIsNotARefusalTakesATenthOff() {
    Hostpace engine = engine().learningRule(LearningRule.seed()).build(); // the seed's numbers
    AtomicInteger n = new AtomicInteger();
    server.script(exchange -> n.incrementAndGet() <= 3 ? Reply.status(429).after(Duration.ZERO) : Reply.ok().after(Duration.ZERO));
    get(engine, "http://a.test/");
    time.advance(Duration.ofSeconds(5));
    assertThat(interval(engine, "a.test")).isEqualTo(Duration.ofMillis(900)); // 250, 500, 1000, then one answer
    get(engine, "http://a.test/2");
    time.advance(Duration.ofSeconds(5));
    assertThat(interval(engine, "a.test")).isEqualTo(Duration.ofMillis(810));
  }

  @Test
  void R4_aBurstRefusedTogetherDoublesTheIntervalOnce() {
    Hostpace engine = engine().retries(0).build();
    server.script(exchange -> Reply.status(429).after(Duration.ofMillis(50)));
    for (int i = 0; i < 20; i++) {
      get(engine, "http://qlever.test/" + i);
    }
    time.advance(Duration.ofMillis(100));
    assertThat(interval(engine, "qlever.test")).isEqualTo(Duration.ofMillis(250));
    assertThat(events).filteredOn(HostpaceEvent.IntervalChanged.class::isInstance).hasSize(1);
  }

  @Test
  void R5_aRefusalChangesThePaceBeforeTheRefusedRequestGivesUpItsPlace() {
    Hostpace engine = engine().addLimit("a.test", Limits.inFlight(1)).retries(0).build();
    server.script(exchange -> exchange.uri.getPath().equals("/1") ? Reply.status(429) : Reply.ok());
    get(engine, "http://a.test/1");
    get(engine, "http://a.test/2");
    time.advance(Duration.ofSeconds(2));
    // /1 is refused at 0.1 s; /2, started in its place, already goes at the new pace: 250 ms after /1's start.
    // Had the place been freed first, /2 would have started at 0.1 s.
    assertThat(server.starts()).containsExactly("0.000 /1", "0.250 /2");
  }

  @Test
  void R6_aNetworkFailureChangesNoPacingState() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.fail(new java.io.UncheckedIOException(new IOException("connection reset"))));
    CompletableFuture<Response> failed = get(engine, "http://a.test/");
    time.advance(Duration.ofSeconds(1));
    assertThat(failed).isCompletedExceptionally();
    assertThat(server.log).hasSize(1); // not retried (SPEC T6)
    assertThat(engine.snapshot()).isEmpty(); // nothing learned, nothing held
    assertThat(events).noneMatch(e -> e instanceof HostpaceEvent.Paused || e instanceof HostpaceEvent.IntervalChanged);
  }

  @Test
  void R6_aTimeoutChangesNoPacingStateNeitherAsARefusalNorAsAnAnswer() {
    // A fixed budget of 2 s; a.test refuses bare once (an interval learned), then never answers.
    Hostpace engine = engine().timeoutPolicy(TimeoutPolicy.fixed(Duration.ofSeconds(2))).retries(0).build();
    server.script(exchange -> exchange.uri.getPath().equals("/refused") ? Reply.status(429) : Reply.never());
    get(engine, "http://a.test/refused");
    time.advance(Duration.ofMillis(150));
    Duration learned = interval(engine, "a.test");
    assertThat(learned).isPositive();
    events.clear();

    CompletableFuture<Response> timedOut = get(engine, "http://a.test/hang");
    time.advance(Duration.ofSeconds(3));

    assertThatThrownBy(timedOut::join).hasCauseInstanceOf(AttemptTimeoutException.class);
    assertThat(server.log).hasSize(2); // not retried (SPEC T6)
    // Neither slowed further, as a refusal would, nor sped up, as an answer would; nothing paused.
    assertThat(interval(engine, "a.test")).isEqualTo(learned);
    assertThat(engine.snapshot()).singleElement().satisfies(h -> assertThat(h.pausedFor()).isZero());
    assertThat(events).noneMatch(e -> e instanceof HostpaceEvent.Paused || e instanceof HostpaceEvent.IntervalChanged);
  }

  @Test
  void R7_forgetClearsTheLearnedPauseAndInterval() {
    Hostpace engine = engine().build();
    server.script(refuseFirst(2, Reply.status(429).after(Duration.ZERO)));
    get(engine, "http://a.test/");
    time.runDue();
    assertThat(interval(engine, "a.test")).isEqualTo(Duration.ofMillis(250));
    engine.forget("A.test");
    assertThat(engine.snapshot()).singleElement().satisfies(h -> assertThat(h.interval()).isZero());

    server.script(refuseFirst(1, Reply.refuse(429, "30").after(Duration.ZERO)));
    get(engine, "http://b.test/");
    time.runDue();
    assertThat(engine.snapshot()).filteredOn(h -> h.key().equals("b.test")).singleElement()
        .satisfies(h -> assertThat(h.pausedFor()).isEqualTo(Duration.ofSeconds(30)));
    engine.forgetAll();
    time.runDue();
    assertThat(server.startTimes("b.test")).hasSize(2); // the retry went at once
  }

  // ---------------------------------------------------------------- announced quotas (R8)

  @Test
  void R8_aHostThatAnnouncesNothingRemainingStartsNothingUntilItsReset() {
    Hostpace engine = engine().build();
    server.script(exchange -> exchange.uri.getPath().equals("/last")
        ? Reply.ok().header("X-RateLimit-Remaining", "0").header("X-RateLimit-Reset", "5")
        : Reply.ok().header("X-RateLimit-Remaining", "7").header("X-RateLimit-Reset", "5"));
    CompletableFuture<Response> last = get(engine, "http://api.test/last");
    time.advance(Duration.ofSeconds(1));
    CompletableFuture<Response> next = get(engine, "http://api.test/next");

    time.advance(Duration.ofSeconds(10));

    assertThat(last.join().status()).isEqualTo(200); // an answer, handed over as it is
    assertThat(next.join().status()).isEqualTo(200);
    assertThat(server.startTimes("api.test")).containsExactly("0.000", "5.100"); // answered at 0.1 s, reset 5 s on
    assertThat(events).filteredOn(HostpaceEvent.Paused.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((HostpaceEvent.Paused) e).pause()).isEqualTo(Duration.ofSeconds(5)));
    assertThat(interval(engine, "api.test")).isZero();
  }

  @Test
  void R8_somethingRemainingPausesNothing() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.ok().header("RateLimit", "\"default\";r=1;t=30"));
    get(engine, "http://api.test/1");
    time.advance(Duration.ofSeconds(1));
    get(engine, "http://api.test/2");
    time.runDue();
    assertThat(server.startTimes("api.test")).containsExactly("0.000", "1.000");
    assertThat(events).noneMatch(HostpaceEvent.Paused.class::isInstance);
  }

  /** Three a window of 10 s from 0 s, each answer saying what is left of the window and when it ends. */
  java.util.function.Function<FakeServer.FakeExchange, Reply> threeAWindow() {
    RefusingServer threeAWindow = new RefusingServer(FixedWindow.of(3, Duration.ofSeconds(10), server.origin()), 429,
        RefusingServer.RetryAfter.none(), true, List.of());
    return exchange -> {
      RefusingServer.Answer answer = threeAWindow.answer(time.nanoTime());
      return Reply.status(answer.status()).header("RateLimit", answer.rateLimit());
    };
  }

  @Test
  void R8_withSomeRemainingTheHostStartsNoMoreThanThatBeforeTheReset() {
    Hostpace engine = engine().build();
    server.script(threeAWindow());
    get(engine, "http://api.test/first");      // answered at 0.1 s: two left, 10 s to the reset
    time.advance(Duration.ofSeconds(1));
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(get(engine, "http://api.test/" + i));
    }

    time.advance(Duration.ofSeconds(8));
    assertThat(server.startTimes("api.test")).containsExactly("0.000", "1.000", "1.000"); // two of six
    assertThat(events).noneMatch(HostpaceEvent.Refused.class::isInstance);

    time.advance(Duration.ofSeconds(30));
    assertThat(calls).allSatisfy(call -> assertThat(call.join().status()).isEqualTo(200));
  }

  @Test
  void R8_anIdleHostThatAnnouncedPlentyRemainingIsLetGoAndOneWithFewIsHeldUntilItsReset() {
    Hostpace engine = engine().build();
    server.script(exchange -> Reply.ok().header("RateLimit", exchange.uri.getHost().startsWith("plenty")
        ? "\"default\";r=4999;t=3000" : "\"default\";r=3;t=30"));
    get(engine, "http://plenty.test/");
    get(engine, "http://few.test/");
    time.advance(Duration.ofSeconds(1));
    assertThat(engine.snapshot()).extracting(HostSnapshot::key).containsExactly("few.test");
    time.advance(Duration.ofSeconds(30));
    assertThat(engine.snapshot()).isEmpty();
  }

  @Test
  void R8_aRefusalThatAnnouncesItsResetIsRetriedAtTheReset() {
    Hostpace engine = engine().build();
    server.script(refuseFirst(1, Reply.status(429).header("RateLimit", "\"default\";r=0;t=3")));
    CompletableFuture<Response> call = get(engine, "http://api.test/");
    time.advance(Duration.ofSeconds(10));
    assertThat(call.join().status()).isEqualTo(200);
    assertThat(server.startTimes("api.test")).containsExactly("0.000", "3.100");
  }

  @Test
  void R8_anAnnouncedResetPastTheRetryDelayLimitPausesForTheLimit() {
    Hostpace engine = engine().retryDelayLimit(Duration.ofSeconds(10)).build();
    server.script(refuseFirst(1, Reply.ok().header("RateLimit-Remaining", "0").header("RateLimit-Reset", "3600")));
    get(engine, "http://api.test/1");
    time.advance(Duration.ofSeconds(1));
    get(engine, "http://api.test/2");
    time.advance(Duration.ofMinutes(1));
    assertThat(server.startTimes("api.test")).containsExactly("0.000", "10.100");
  }

  @Test
  void R8_aHostsAnnouncedQuotaPausesThatHostAndNotTheOthersOfItsGroup() {
    Hostpace engine = engine().addLimit("*.example.test", Limits.inFlight(10)).build();
    server.script(exchange -> exchange.uri.getHost().startsWith("a.")
        ? Reply.ok().header("X-RateLimit-Remaining", "0").header("X-RateLimit-Reset", "30")
        : Reply.ok());
    get(engine, "http://a.example.test/1");
    time.advance(Duration.ofSeconds(1));
    get(engine, "http://a.example.test/2");
    get(engine, "http://b.example.test/1");
    time.advance(Duration.ofSeconds(1));
    assertThat(server.startTimes("b.example.test")).containsExactly("1.000");
    assertThat(server.startTimes("a.example.test")).containsExactly("0.000");
    time.advance(Duration.ofSeconds(30));
    assertThat(server.startTimes("a.example.test")).containsExactly("0.000", "30.100");
  }
}

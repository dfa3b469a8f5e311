package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.ScriptedExchange;
import io.hostpace.timeout.Budget;
import io.hostpace.timeout.Outcome;
import io.hostpace.timeout.TimeoutPolicy;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SPEC L1 and L2: the engine's decisions at DEBUG, and what its listeners, its learning rule and
 * its timeout policy threw at WARNING.
 */
class EventLogTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, RefusalTest.refuseFirst(1, Reply.status(429)));

  @Test
  void L1_eachDecisionIsADebugLineWithItsHostKeyAndWhatWasDecidedEvenWithNoListener() {
    RecordingLogger log = new RecordingLogger(Level.DEBUG);
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(log.messagesAt(Level.DEBUG)).containsExactly(
        "a.test: attempt 1 of http://a.test/ queued",
        "a.test: attempt 1 of http://a.test/ started after waiting 0 ms",
        "a.test: attempt 1 of http://a.test/ refused with 429, no Retry-After",
        "a.test: interval between starts 0 ms -> 250 ms",
        "a.test: attempt 2 of http://a.test/ queued again after 0 ms",
        "a.test: attempt 2 of http://a.test/ queued",
        "a.test: attempt 2 of http://a.test/ started after waiting 150 ms",
        "a.test: interval between starts 250 ms -> 210 ms");
  }

  @Test
  void L1_aLineShowsNoPasswordOfAUriAndSaysAPauseAndAGivingUp() {
    RecordingLogger log = new RecordingLogger(Level.DEBUG);
    server.script(exchange -> Reply.refuse(429, "2"));
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).retries(0).logger(log).build();
    engine.execute(server.get("http://user:secret@b.test/x"));
    time.advance(Duration.ofSeconds(1));

    assertThat(log.messagesAt(Level.DEBUG))
        .contains("b.test: attempt 1 of http://***@b.test/x refused with 429, Retry-After 2 s",
            "b.test: paused: starts nothing for 2 s")
        .anyMatch(line -> line.startsWith("b.test: gave up on http://***@b.test/x after 1 attempts, last refused with 429: "))
        .noneMatch(line -> line.contains("secret"));
  }

  @Test
  void L1_withDebugOffNoLineIsBuiltThoughAListenerHearsEveryEvent() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    List<HostpaceEvent> heard = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).addListener(heard::add).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(heard).hasSize(8);
    assertThat(log.lines).isEmpty(); // the logger keeps even what it would not log: nothing was asked
  }

  @Test
  void L1_withDebugOffAndNoListenerNoEventIsBuilt() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(new RecordingLogger(Level.INFO)).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(engine.scheduler().outbox.eventsBuilt()).isZero();
  }

  @Test
  void L2_aListenerThatThrowsIsAWarningWithItsExceptionOnceAMinuteSayingHowManyWereNot() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    IllegalStateException boom = new IllegalStateException("boom");
    List<String> heard = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log)
        .addListener(event -> {
          throw boom;
        })
        .addListener(event -> heard.add(event.getClass().getSimpleName()))
        .build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(heard).hasSize(8); // the one after it still hears every event
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("threw java.lang.IllegalStateException").doesNotContain("more like it");
    });

    time.advance(Duration.ofMinutes(1));
    engine.execute(server.get("http://a.test/again"));
    time.advance(Duration.ofSeconds(1));

    assertThat(log.messagesAt(Level.WARNING)).hasSize(2).last().asString().contains("(and 7 more like it");
  }

  @Test
  void L2_aListenerThatThrowsAnErrorIsAWarningOnceAMinuteAndTheEngineGoesOn() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    AssertionError boom = new AssertionError("a listener's assertion");
    List<String> heard = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log)
        .addListener(event -> {
          throw boom;
        })
        .addListener(event -> heard.add(event.getClass().getSimpleName()))
        .build();
    // Its first events come as the request is submitted: what it throws there reaches no caller.
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    assertThatCode(() -> calls.add(engine.execute(server.get("http://a.test/")))).doesNotThrowAnyException();
    time.advance(Duration.ofSeconds(1));

    assertThat(calls).singleElement().satisfies(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    assertThat(heard).hasSize(8); // the one after it still hears every event
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("listener").contains("threw java.lang.AssertionError");
    });
  }

  @Test
  void L2_anAttemptListenerThatThrowsIsAWarningWithItsException() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    IllegalStateException boom = new IllegalStateException("boom");
    AttemptListener throwing = new AttemptListener() {
      @Override
      public void sent(URI uri, int attempt) {
        throw boom;
      }
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).build();
    var call = engine.execute(server.get("http://a.test/"), CallContext.builder().attemptListener(throwing).build());
    time.advance(Duration.ofSeconds(1));

    assertThat(call.join().status()).isEqualTo(200);
    assertThat(log.at(Level.WARNING)).singleElement().extracting(RecordingLogger.Line::thrown).isSameAs(boom);
  }

  @Test
  void L2_anAttemptListenerThatThrowsAnErrorIsAWarningOnceAMinuteAndItsCallsStillEnd() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    AssertionError boom = new AssertionError("a listener's assertion");
    AttemptListener throwing = new AttemptListener() {
      @Override
      public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
        throw boom;
      }
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).build();
    CallContext context = CallContext.builder().attemptListener(throwing).build();
    // One answered while it is sent (its end taken on the sending thread), one answered later.
    var atOnce = engine.execute(ScriptedExchange.statuses("http://b.test/")
        .answers(attempt -> CompletableFuture.completedFuture(200)).build(), context);
    var later = engine.execute(server.get("http://a.test/"), context);
    time.advance(Duration.ofSeconds(1));

    assertThat(atOnce).isCompletedWithValue(200);
    assertThat(later.join().status()).isEqualTo(200);
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("listener").contains("threw java.lang.AssertionError");
    });
  }

  @ParameterizedTest(name = "the exchange throws {0}")
  @EnumSource(Thrown.class)
  void L2_whatAnExchangeThrowsJudgingItsFailureIsAWarningAndItsCallFails(Thrown thrown) {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Throwable boom = thrown.make("an adapter's fault");
    server.script(exchange -> Reply.deadConnection());
    Hostpace engine = oneAtATime("b.test", log);
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(engine.execute(server.new FakeExchange(URI.create("http://b.test/" + i), "GET", true) {
        @Override
        public boolean diedBeforeAnswer(Throwable failure) {
          throw Thrown.unchecked(boom);
        }
      }));
    }
    time.advance(Duration.ofSeconds(5));

    // Not sent again: its failure reaches its caller.
    assertThat(calls).allSatisfy(call -> {
      assertThat(call).isCompletedExceptionally();
      assertThatThrownBy(call::join).hasCauseInstanceOf(FakeServer.DeadConnection.class);
    });
    assertOneWarning(log, boom, "threw " + thrown.className() + " from diedBeforeAnswer");
    assertHoldsNothingAndServesTheNext(engine, "http://b.test/next");
  }

  @Test
  void L2_anExchangeThatThrowsSayingWhetherItCanBeSentAgainAfterADeadConnectionFailsItsCallAndHoldsNoPlace() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    IllegalStateException boom = new IllegalStateException("an adapter's fault");
    server.script(exchange -> Reply.deadConnection());
    Hostpace engine = oneAtATime("b.test", log);
    CompletableFuture<Response> call = engine.execute(server.new FakeExchange(URI.create("http://b.test/"), "GET", true) {
      @Override
      public boolean canResend() {
        throw boom;
      }
    });
    time.advance(Duration.ofSeconds(5));

    // As for an exchange that cannot judge its failure: not sent again, its failure reaches its caller.
    assertThat(call).isCompletedExceptionally();
    assertThatThrownBy(call::join).hasCauseInstanceOf(FakeServer.DeadConnection.class);
    assertOneWarning(log, boom, "threw java.lang.IllegalStateException from canResend");
    assertHoldsNothingAndServesTheNext(engine, "http://b.test/next");
  }

  @ParameterizedTest(name = "the exchange throws {0}")
  @EnumSource(Thrown.class)
  void L2_whatAnExchangeThrowsJudgingWhatItsFailureTellsThePolicyIsAWarningAndItsCallFails(Thrown thrown) {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Throwable boom = thrown.make("an adapter's fault");
    IllegalStateException failure = new IllegalStateException("the client failed");
    server.script(exchange -> Reply.fail(failure));
    Hostpace engine = oneAtATime("b.test", log);
    CompletableFuture<Response> call = engine.execute(server.new FakeExchange(URI.create("http://b.test/"), "GET", true) {
      @Override
      public @Nullable Outcome outcomeOf(Throwable failed) {
        throw Thrown.unchecked(boom);
      }
    });
    time.advance(Duration.ofSeconds(1));

    assertThat(call).isCompletedExceptionally();
    assertThatThrownBy(call::join).hasCauseReference(failure);
    assertOneWarning(log, boom, "threw " + thrown.className() + " from outcomeOf");
    assertHoldsNothingAndServesTheNext(engine, "http://b.test/next");
  }

  @Test
  void L2_anErrorThatAnExchangeThrowsLettingARefusalGoIsAWarningAndItsCallIsRetried() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    AssertionError boom = new AssertionError("an adapter's fault");
    Hostpace engine = oneAtATime("a.test", log);
    // The server refuses the first attempt: its refusal is let go as the call is retried.
    CompletableFuture<Response> call = engine.execute(server.new FakeExchange(URI.create("http://a.test/"), "GET", true) {
      @Override
      public void discard(Response response) {
        throw boom;
      }
    });
    time.advance(Duration.ofSeconds(5));

    assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200 && r.attempt() == 2);
    assertOneWarning(log, boom, "threw java.lang.AssertionError from discard");
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @Test
  void L2_anErrorThatAnExchangeThrowsSendingFailsItsCallAsAnExceptionWould() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    AssertionError boom = new AssertionError("an exchange's assertion in send()");
    Hostpace engine = oneAtATime("a.test", log);
    CompletableFuture<Response> call = engine.execute(server.new FakeExchange(URI.create("http://a.test/"), "GET", true) {
      @Override
      public CompletableFuture<Response> send() {
        throw boom;
      }
    });
    time.advance(Duration.ofSeconds(1));

    assertThat(call).isCompletedExceptionally();
    assertThatThrownBy(call::join).hasCauseReference(boom);
    // The caller has it, as it would an exception: nothing goes unseen, so nothing is logged.
    assertThat(log.at(Level.WARNING)).isEmpty();
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @ParameterizedTest(name = "the attempt throws {0}")
  @EnumSource(Thrown.class)
  void L2_whatAnAttemptThrowsAsItsCallerCancelsItIsAWarningNotThrownAtTheCaller(Thrown thrown) {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Throwable boom = thrown.make("an attempt's fault in cancel()");
    CompletableFuture<Integer> attempt = new CompletableFuture<>() {
      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        throw Thrown.unchecked(boom);
      }
    };
    Hostpace engine = oneAtATime("a.test", log);
    CompletableFuture<Integer> call = engine.execute(ScriptedExchange.statuses("http://a.test/")
        .answers(number -> attempt).build());

    // Not thrown at the caller, whose end stands.
    assertThatCode(() -> call.cancel(true)).doesNotThrowAnyException();
    assertThat(call).isCancelled();
    assertOneWarning(log, boom, "threw " + thrown.className() + " as its caller ended its call");
    attempt.complete(200); // the attempt that could not be let go ends
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @ParameterizedTest(name = "the attempt throws {0}")
  @EnumSource(Thrown.class)
  void L2_whatAnAttemptThrowsAsItsCallerCancelsItStillFreesItsPlaceAtOnceAndARefusalOfItHoldsNone(Thrown thrown) {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    CompletableFuture<Integer> attempt = new CompletableFuture<>() {
      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        throw Thrown.unchecked(thrown.make("an attempt's fault in cancel()"));
      }
    };
    Hostpace engine = oneAtATime("a.test", log);
    CompletableFuture<Integer> call = engine.execute(ScriptedExchange.statuses("http://a.test/")
        .answers(number -> number == 1 ? attempt : CompletableFuture.completedFuture(200)).build());
    call.cancel(true);

    // As any cancel does (SPEC T5): the next request has the place while the attempt goes on.
    CompletableFuture<Integer> next = engine.execute(ScriptedExchange.statuses("http://a.test/next")
        .answers(ScriptedExchange.inTurn(List.of(200))).build());
    time.advance(Duration.ofSeconds(1));
    assertThat(next).isCompletedWithValue(200);

    // The attempt that could not be let go is refused: not queued again for a caller that ended
    // its call, where its turn would find the call cancelled and hold its host's place for good.
    attempt.complete(429);
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/after");
  }

  /** An engine on {@code time} that logs to {@code log}, {@code host} one request at a time. */
  private Hostpace oneAtATime(String host, RecordingLogger log) {
    return Hostpace.builder().widenFirstContact(false).time(time).logger(log)
        .addLimit(host, Limits.inFlight(1)).build();
  }

  /** As {@link #oneAtATime(String, RecordingLogger)}, with {@code policy} its timeout policy. */
  private Hostpace oneAtATime(String host, RecordingLogger log, TimeoutPolicy policy) {
    return Hostpace.builder().widenFirstContact(false).time(time).logger(log).timeoutPolicy(policy)
        .addLimit(host, Limits.inFlight(1)).build();
  }

  /**
   * A timeout policy that gives each attempt {@code budget} and hears outcomes in silence: a test
   * overrides the one method that throws.
   */
  private static class Budgeting implements TimeoutPolicy {
    private final Duration budget;

    Budgeting(Duration budget) {
      this.budget = budget;
    }

    @Override
    public Budget budget(long now, String endpoint, String kind) {
      return Budget.send(budget.toNanos(), Budget.Basis.DEFAULT);
    }

    @Override
    public void onOutcome(long now, String endpoint, String kind, Outcome outcome, long durationNanos) {}
  }

  /** {@code log} holds one warning, of {@code thrown}, whose message says {@code saying}. */
  private static void assertOneWarning(RecordingLogger log, Throwable thrown, String saying) {
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(thrown);
      assertThat(line.message()).contains(saying);
    });
  }

  /** Nothing is left in flight or waiting, and a next request to the host is sent and answered. */
  private void assertHoldsNothingAndServesTheNext(Hostpace engine, String next) {
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
    server.script(exchange -> Reply.ok());
    CompletableFuture<Response> after = engine.execute(server.get(next));
    time.advance(Duration.ofSeconds(5));

    assertThat(after).isCompletedWithValueMatching(r -> r.status() == 200);
  }

  @Test
  void L2_anErrorThatAnExchangeThrowsReadingItsAnswerFailsItsCallAsAnExceptionWouldAndHoldsNoPlace() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    server.script(exchange -> Reply.ok());
    AssertionError inStatus = new AssertionError("an exchange's assertion in status()");
    AssertionError inHeader = new AssertionError("an exchange's assertion in header()");
    Hostpace engine = oneAtATime("a.test", log);
    CompletableFuture<Response> status = engine.execute(server.new FakeExchange(URI.create("http://a.test/status"), "GET", true) {
      @Override
      public int status(Response response) {
        throw inStatus;
      }
    });
    CompletableFuture<Response> header = engine.execute(server.new FakeExchange(URI.create("http://a.test/header"), "GET", true) {
      @Override
      public @Nullable String header(Response response, String name) {
        throw inHeader;
      }
    });
    time.advance(Duration.ofSeconds(1));

    assertThat(status).isCompletedExceptionally();
    assertThatThrownBy(status::join).hasCauseReference(inStatus);
    assertThat(header).isCompletedExceptionally();
    assertThatThrownBy(header::join).hasCauseReference(inHeader);
    assertThat(server.discarded).hasSize(2);
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
    // The caller has it, as it would an exception: nothing goes unseen, so nothing is logged.
    assertThat(log.at(Level.WARNING)).isEmpty();

    CompletableFuture<Response> next = engine.execute(server.get("http://a.test/next"));
    time.advance(Duration.ofSeconds(1));

    assertThat(next).isCompletedWithValueMatching(r -> r.status() == 200);
    assertThat(server.startTimes("/next")).hasSize(1);
  }

  /**
   * A learning rule that throws {@link #boom} at every lesson, or, if it {@code teaches}, sets
   * 500 ms at its first refusal and throws at every lesson after it.
   */
  static final class ThrowingRule implements LearningRule {
    final Thrown kind;
    final Throwable boom;
    boolean taught;

    ThrowingRule(Thrown kind, boolean teaches) {
      this.kind = kind;
      this.boom = kind.make("a rule's fault");
      this.taught = !teaches;
    }

    @Override
    public long onRefusal(long now, long startedAt, long interval, long changedAt) {
      if (!taught) {
        taught = true;
        return 500_000_000L;
      }
      throw Thrown.unchecked(boom);
    }

    @Override
    public long onAnswer(long now, long startedAt, long interval, long changedAt) {
      throw Thrown.unchecked(boom);
    }

    @Override
    public int inFlightAfterPause(long now, long startedAt, int inFlightAtStart, HostState host) {
      throw Thrown.unchecked(boom);
    }

    @Override
    public int inFlightAfterAnswer(long now, long startedAt, int inFlightAtStart, HostState host) {
      throw Thrown.unchecked(boom);
    }

    @Override
    public long intervalAfterPause(long now, long startedAt, int inFlightAtStart, HostState host) {
      throw Thrown.unchecked(boom);
    }
  }

  /**
   * An engine with {@code rule} that has made three calls to
   * {@code a.test}, one at a time: the first attempt refused bare, the second with Retry-After, the
   * rest accepted, every way an answer teaches. Each call was answered, and what the rule threw was
   * one warning naming the rule and the throwable's class.
   */
  private Hostpace taughtEveryWayEachAnsweredAndOneWarning(ThrowingRule rule, RecordingLogger log) {
    AtomicInteger attempts = new AtomicInteger();
    server.script(exchange -> switch (attempts.incrementAndGet()) {
      case 1 -> Reply.status(429);
      case 2 -> Reply.refuse(429, "1");
      default -> Reply.ok();
    });
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).learningRule(rule)
        .addLimit("a.test", Limits.inFlight(1)).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(engine.execute(server.get("http://a.test/" + i)));
    }
    time.advance(Duration.ofSeconds(5));

    assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(rule.boom);
      assertThat(line.message()).startsWith("learning rule " + ThrowingRule.class.getName() + " threw " + rule.kind.className());
    });
    return engine;
  }

  @ParameterizedTest(name = "the rule throws {0}")
  @EnumSource(Thrown.class)
  void L2_aLearningRuleThatThrowsAfterTeachingIsAWarningAndHoldsNoRequestNorChangesThePaceItSet(Thrown thrown) {
    ThrowingRule rule = new ThrowingRule(thrown, true);
    Hostpace engine = taughtEveryWayEachAnsweredAndOneWarning(rule, new RecordingLogger(Level.INFO));

    // Refused bare at 0.1 s (500 ms taught), refused with Retry-After: 1 at 0.6 s, then accepted:
    // the starts after the pause still 500 ms apart, as the rule set before it threw.
    assertThat(server.startTimes("a.test")).containsExactly("0.000", "0.500", "1.600", "2.100", "2.600");
    assertThat(engine.snapshot()).singleElement().satisfies(host -> {
      assertThat(host.interval()).isEqualTo(Duration.ofMillis(500));
      assertThat(host.inFlightLimit()).isZero();
    });
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @ParameterizedTest(name = "the rule throws {0}")
  @EnumSource(Thrown.class)
  void L2_aLearningRuleThatThrowsFromItsFirstLessonIsAWarningAndHoldsNoRequestNorSetsAPace(Thrown thrown) {
    ThrowingRule rule = new ThrowingRule(thrown, false);
    Hostpace engine = taughtEveryWayEachAnsweredAndOneWarning(rule, new RecordingLogger(Level.INFO));

    // Each answer changed nothing the rule sets.
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.interval()).isZero();
      assertThat(host.inFlightLimit()).isZero();
    });
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @ParameterizedTest(name = "the policy throws {0}")
  @EnumSource(Thrown.class)
  void L2_aTimeoutPolicyThatThrowsForABudgetIsAWarningAndItsAttemptsGoWithoutADeadline(Thrown thrown) {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Throwable boom = thrown.make("a policy's fault");
    TimeoutPolicy throwing = new Budgeting(Duration.ofMinutes(1)) {
      @Override
      public Budget budget(long now, String endpoint, String kind) {
        throw Thrown.unchecked(boom);
      }
    };
    server.script(exchange -> Reply.ok().after(Duration.ofMinutes(10)));
    Hostpace engine = oneAtATime("a.test", log, throwing);
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    assertThatCode(() -> {
      calls.add(engine.execute(server.get("http://a.test/1")));
      calls.add(engine.execute(server.get("http://a.test/2")));
    }).doesNotThrowAnyException();
    time.advance(Duration.ofMinutes(21));

    // Each attempt sent without a deadline, answered, its place let go.
    assertThat(calls).hasSize(2).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    assertThat(log.at(Level.WARNING)).hasSize(2).allSatisfy(line -> { // 10 minutes apart: each said
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("timeout policy").contains("threw " + thrown.className());
    });
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @ParameterizedTest(name = "the policy throws {0}")
  @EnumSource(Thrown.class)
  void L2_aTimeoutPolicyThatThrowsJudgingAServersTimeoutIsAWarningAndTheAnswerIsRetriedAsAnother504(Thrown thrown) {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Throwable boom = thrown.make("a policy's fault");
    TimeoutPolicy throwing = new Budgeting(Duration.ofMinutes(1)) {
      @Override
      public boolean reachedServerLimit(String endpoint, Outcome outcome, long durationNanos) {
        throw Thrown.unchecked(boom);
      }
    };
    server.script(RefusalTest.refuseFirst(1, Reply.status(504)));
    Hostpace engine = oneAtATime("a.test", log, throwing);
    CompletableFuture<Response> call = engine.execute(server.get("http://a.test/1"), CallContext.builder().retries(1).build());
    time.advance(Duration.ofMinutes(1));

    // As for an exception there: the 504 is taken as not the server's own limit, and retried.
    assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200);
    assertOneWarning(log, boom, "the answer was taken as not the server's own limit");
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @ParameterizedTest(name = "the policy throws {0}")
  @EnumSource(Thrown.class)
  void L2_aTimeoutPolicyThatThrowsWhenToldAnOutcomeIsAWarningAndItsCallsEndAsTheirAttemptsDid(Thrown thrown) {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Throwable boom = thrown.make("a policy's fault");
    TimeoutPolicy throwing = new Budgeting(Duration.ofSeconds(1)) {
      @Override
      public void onOutcome(long now, String endpoint, String kind, Outcome outcome, long durationNanos) {
        throw Thrown.unchecked(boom);
      }
    };
    // The first attempt outlives its budget (its outcome a timeout), the second is answered.
    AtomicInteger attempts = new AtomicInteger();
    server.script(exchange -> attempts.incrementAndGet() == 1 ? Reply.ok().after(Duration.ofMinutes(1)) : Reply.ok());
    Hostpace engine = oneAtATime("a.test", log, throwing);
    CompletableFuture<Response> late = engine.execute(server.get("http://a.test/late"));
    CompletableFuture<Response> answered = engine.execute(server.get("http://a.test/answered"));
    time.advance(Duration.ofSeconds(5));

    // The outcome goes untold, and each call ends as its attempt did.
    assertThat(late).isCompletedExceptionally();
    assertThatThrownBy(late::join).hasCauseInstanceOf(AttemptTimeoutException.class);
    assertThat(answered).isCompletedWithValueMatching(r -> r.status() == 200);
    assertOneWarning(log, boom, "the attempt's outcome went untold");
    assertHoldsNothingAndServesTheNext(engine, "http://a.test/next");
  }

  @ParameterizedTest(name = "the listener throws {0}")
  @EnumSource(Thrown.class)
  void L2_aStoresListenerThatThrowsHoldsNoRequest(Thrown thrown) {
    // Its warning goes to the store's own logger (HostStateStoreTest): here, what the engine does.
    server.script(RefusalTest.refuseFirst(1, Reply.status(429)));
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time)
        .hostStateStore(HostStateStore.inMemory(changed -> {
          throw Thrown.unchecked(thrown.make("a store's listener's fault"));
        }))
        .addLimit("a.test", Limits.inFlight(1)).build();
    CompletableFuture<Response> first = engine.execute(server.get("http://a.test/1"));
    CompletableFuture<Response> second = engine.execute(server.get("http://a.test/2"));
    time.advance(Duration.ofSeconds(5));

    assertThat(first).isCompletedWithValueMatching(r -> r.status() == 200);
    assertThat(second).isCompletedWithValueMatching(r -> r.status() == 200);
    assertThat(engine.snapshot()).singleElement().satisfies(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.interval()).isPositive(); // the refusal's lesson stands
    });
  }
}

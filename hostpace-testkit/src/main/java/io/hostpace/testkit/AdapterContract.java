package io.hostpace.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hostpace.AttemptListener;
import io.hostpace.AttemptTimeoutException;
import io.hostpace.CallContext;
import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scenarios every HTTP client adapter passes, each named after the SPEC item it checks, run
 * against real servers on 127.0.0.1 and an engine on the system clock. An adapter's test extends
 * this class and says how to send a request through its client ({@link #adapter}); one subclass
 * per way of calling the client (blocking, asynchronous), so that both give the same results, as
 * Failsafe's sync/async helper does.
 *
 * <pre>{@code
 * class OkHttpExecuteTest extends AdapterContract {
 *   protected AdapterUnderTest adapter(Hostpace engine) {
 *     OkHttpClient client = new OkHttpClient.Builder().addInterceptor(HostpaceInterceptor.of(engine)).build();
 *     return new AdapterUnderTest() { ... client.newCall(request).execute() on a thread of its own ... };
 *   }
 * }
 * }</pre>
 *
 * <p>No scenario measures the wall clock: a machine that is busy only makes things later. Spacing
 * and pauses are read from the engine's own decisions (the times on its {@link #events}, which
 * are its clock), and a deadline is checked by what ended the call (a timeout, while the server
 * would never have ended it); the exact timing is tested in virtual time in core. A deadline is a
 * second where the server must see the request before it passes (a busy machine may take that
 * long to connect and send), and a few hundred milliseconds where nothing waits for the server:
 * a stall is a stall at 1 s as at 3 s. Each scenario gets a fresh
 * engine ({@link #engine}), whose decisions are logged in {@link #events}, and fresh servers,
 * closed after it.
 */
public abstract class AdapterContract {

  private static final long MIB = 1024 * 1024;

  /**
   * How long a scenario waits for something that takes milliseconds before it fails: a guard
   * against a hang, far beyond what any behaviour is held to.
   */
  protected static final Duration PATIENCE = Duration.ofSeconds(60);

  /** The engine of the scenario: the system clock, every default. */
  protected Hostpace engine;
  /** Every decision {@link #engine} made, in order. */
  protected final List<HostpaceEvent> events = new CopyOnWriteArrayList<>();

  private final List<AutoCloseable> closing = new ArrayList<>();
  private AdapterUnderTest adapter;

  /**
   * The client under test, paced by {@code engine} through its adapter. Called once per scenario,
   * and again by scenarios that need an engine configured otherwise; each call makes a client of
   * its own for that engine. Closed after the scenario.
   */
  protected abstract AdapterUnderTest adapter(Hostpace engine);

  @BeforeEach
  void startEngine() {
    engine = Hostpace.builder().addListener(events::add).build();
    adapter = opened(adapter(engine));
  }

  @AfterEach
  void closeEverything() throws Exception {
    List<AutoCloseable> reversed = new ArrayList<>(closing);
    Collections.reverse(reversed);
    for (AutoCloseable closeable : reversed) {
      closeable.close();
    }
  }

  // ---------------------------------------------------------------- helpers for scenarios

  /** The client under test with {@link #engine}. */
  protected AdapterUnderTest adapter() {
    return adapter;
  }

  /** {@code closeable}, closed after the scenario. */
  protected <T extends AutoCloseable> T opened(T closeable) {
    closing.add(closeable);
    return closeable;
  }

  /** A {@link TestServer} answering with {@code handler}, closed after the scenario. */
  protected TestServer server(TestServer.Handler handler) throws IOException {
    return opened(TestServer.start(handler));
  }

  /** A {@link RawServer}, closed after the scenario. */
  protected RawServer rawServer() throws IOException {
    return opened(RawServer.start());
  }

  /** A context that holds {@code hostKey} to one request in flight. */
  protected static CallContext oneAtATime(String hostKey) {
    return CallContext.builder().addLimit(hostKey, Limits.inFlight(1)).build();
  }

  /** Starts each request and waits for every outcome, in the order given. */
  protected List<Outcome> sendAll(List<TestRequest> requests) throws InterruptedException {
    List<Pending> pending = requests.stream().map(adapter::start).collect(Collectors.toList());
    List<Outcome> outcomes = new ArrayList<>();
    for (Pending call : pending) {
      outcomes.add(call.await(PATIENCE));
    }
    return outcomes;
  }

  /** Sends one request and waits for its outcome. */
  protected Outcome send(TestRequest request) throws InterruptedException {
    return adapter.start(request).await(PATIENCE);
  }

  /** Waits until {@code condition} holds; fails the scenario if it does not within {@link #PATIENCE}. */
  protected static void until(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not reached in " + PATIENCE + ": " + what);
      }
      Thread.sleep(5);
    }
  }

  /** Requests in flight in the engine, over all hosts. */
  protected int inFlight() {
    return engine.snapshot().stream().filter(h -> !h.group()).mapToInt(HostSnapshot::inFlight).sum();
  }

  /** Requests waiting in the engine's queues, over all hosts. */
  protected int waiting() {
    return engine.snapshot().stream().filter(h -> !h.group()).mapToInt(HostSnapshot::waiting).sum();
  }

  /** The attempts the engine started, as {@code "/path 1"}. */
  protected List<String> started() {
    return events.stream()
        .filter(e -> e instanceof HostpaceEvent.Started)
        .map(e -> (HostpaceEvent.Started) e)
        .map(e -> e.uri().getPath() + " " + e.attempt())
        .collect(Collectors.toList());
  }

  /** The engine's clock when each attempt at {@code path} (every path if null) started, in order. */
  protected List<Long> startedAt(@Nullable String path) {
    return EngineState.startedAt(events, path);
  }

  /** {@link EngineState#assertEachRetryWaited} over {@link #events}. */
  protected void assertEachRetryWaited(String path, Duration pause) {
    EngineState.assertEachRetryWaited(events, path, pause);
  }

  /** Asserts that {@code outcome} is a response with {@code status} and {@code body}. */
  protected static void assertAnswer(Outcome outcome, int status, String body) {
    assertThat(outcome.failure()).as("the call's failure").isNull();
    assertThat(outcome.status()).as("status of %s", outcome).isEqualTo(status);
    assertThat(outcome.body()).isEqualTo(body);
  }

  /** Asserts that no exception in {@code failure}'s causes and suppressed ones is a Hostpace type. */
  protected static void assertNoHostpaceType(@Nullable Throwable failure) {
    for (Throwable t : chain(failure)) {
      assertThat(t.getClass().getName()).as("a class in the chain of %s", failure).doesNotStartWith("io.hostpace.");
    }
  }

  /**
   * Asserts that a body cut at its deadline or cap (T7) reaches the caller as the client's own
   * exception: a Hostpace type in {@code failure}'s chain is allowed only as a subclass of the
   * client's exception type, one that says what of the body had come (the JDK adapter's).
   */
  private void assertOnlyTheClientsTypes(@Nullable Throwable failure) {
    for (Throwable t : chain(failure)) {
      if (t.getClass().getName().startsWith("io.hostpace.")) {
        assertThat(t).as("a Hostpace class in the chain of %s", failure).isInstanceOf(adapter.networkFailure());
      }
    }
  }

  /** {@code failure} with its causes and suppressed ones; no failure at all fails the test. */
  private static List<Throwable> chain(@Nullable Throwable failure) {
    if (failure == null) {
      throw new AssertionError("expected the call to fail, but it has no failure");
    }
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> all = new ArrayList<>();
    List<Throwable> next = new ArrayList<>(List.of(failure));
    while (!next.isEmpty()) {
      Throwable t = next.remove(0);
      if (!seen.add(t)) {
        continue;
      }
      all.add(t);
      if (t.getCause() != null) {
        next.add(t.getCause());
      }
      next.addAll(Arrays.asList(t.getSuppressed()));
    }
    return all;
  }

  private static boolean isTimeout(Throwable t) {
    return t instanceof InterruptedIOException || t instanceof TimeoutException
        || t.getClass().getSimpleName().contains("Timeout");
  }

  /**
   * Sends one request through the client under test, to a server of its own, and forgets the
   * engine's events of it: a client's first request pays for its start-up (threads, pools,
   * classes), which a busy machine can stretch past a deadline of a second before anything is
   * sent, and a scenario that waits for its server to see the request would wait in vain.
   */
  private void warmUp() throws Exception {
    RawServer other = rawServer();
    assertAnswer(send(TestRequest.get(other.uri("/ok"))), 200, "ok");
    until("no request in flight", () -> inFlight() == 0);
    events.clear();
  }

  private void theNextRequestStarts(RawServer raw, CallContext context) throws InterruptedException {
    assertAnswer(send(TestRequest.get(raw.uri("/ok")).context(context)), 200, "ok");
    until("no request in flight", () -> inFlight() == 0);
  }

  // ---------------------------------------------------------------- pacing

  @Test
  void P1_P4_aContextsInFlightOfOneHoldsTheServerToOneRequestAtATimeWhileWithoutItTheyOverlap() throws Exception {
    // The whole default in-flight limit from the first request (SPEC P3): first contact's opening
    // at one (P12) is its own scenario, in core.
    engine = Hostpace.builder().widenFirstContact(false).addListener(events::add).build();
    adapter = opened(adapter(engine));
    // A held request is worked on for 150 ms, long enough for the next to overlap it if it were
    // let through. A free one waits for another to be worked on beside it, which only an engine
    // that overlaps them lets happen (else it waits out the patience, and the check fails).
    CountDownLatch twoFree = new CountDownLatch(2);
    TestServer server = server((request, exchange) -> {
      if (request.path().startsWith("/free/")) {
        twoFree.countDown();
        twoFree.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      } else {
        Thread.sleep(150);
      }
      TestServer.reply(exchange, 200, "ok " + request.path());
    });
    CallContext oneAtATime = oneAtATime(server.hostKey());

    List<Outcome> held = sendAll(IntStream.rangeClosed(1, 4)
        .mapToObj(i -> TestRequest.get(server.uri("/held/" + i)).context(oneAtATime)).collect(Collectors.toList()));
    int heldConcurrency = server.maxConcurrent();
    server.resetConcurrency();
    List<Outcome> free = sendAll(IntStream.rangeClosed(1, 4)
        .mapToObj(i -> TestRequest.get(server.uri("/free/" + i))).collect(Collectors.toList()));

    for (int i = 0; i < 4; i++) {
      assertAnswer(held.get(i), 200, "ok /held/" + (i + 1));
      assertAnswer(free.get(i), 200, "ok /free/" + (i + 1));
    }
    assertThat(heldConcurrency).as("most held at once with inFlight 1").isEqualTo(1);
    assertThat(server.maxConcurrent()).as("most held at once with the default 32").isGreaterThan(1);
  }

  @Test
  void P1_aRateSpacesTheStartsOfAHostsRequests() throws Exception {
    TestServer server = server((request, exchange) -> TestServer.reply(exchange, 200, "ok"));
    CallContext fourASecond = CallContext.builder().addLimit(server.hostKey(), Limits.perSecond(4)).build();

    // At 0 s four requests arrive; they start at 0, 0.25, 0.5 and 0.75 s.
    List<Outcome> outcomes = sendAll(IntStream.rangeClosed(1, 4)
        .mapToObj(i -> TestRequest.get(server.uri("/r/" + i)).context(fourASecond)).collect(Collectors.toList()));

    assertThat(outcomes).extracting(Outcome::status).containsOnly(200);
    assertThat(server.requests()).hasSize(4);
    List<Long> starts = startedAt(null);
    assertThat(starts).hasSize(4);
    for (int i = 1; i < starts.size(); i++) {
      assertThat(Duration.ofNanos(starts.get(i) - starts.get(i - 1))).as("%s", events)
          .isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }
  }

  @Test
  void P2_thePlaceIsFreedWhenTheHeadersArriveAndTheBodyIsReadAfter() throws Exception {
    SlowBody slowBody = new SlowBody(10, Duration.ofMillis(100));
    TestServer server = server(slowBody);
    CallContext oneAtATime = oneAtATime(server.hostKey());

    // The slow answer's headers come at once, its body over a second; the fast request is let
    // through as soon as the headers arrived, while the slow body is still coming.
    Pending slow = adapter.start(TestRequest.get(server.uri("/slow")).context(oneAtATime));
    until("the slow request arrives", () -> !server.requests("/slow").isEmpty());
    Outcome fast = send(TestRequest.get(server.uri("/fast")).context(oneAtATime));

    assertAnswer(fast, 200, "fast");
    Outcome slowOutcome = slow.await(PATIENCE);
    assertThat(slowOutcome.status()).isEqualTo(200);
    assertThat(slowOutcome.body()).startsWith("part 0\n").endsWith("part 9\n");
    assertThat(slowBody.trace()).containsExactly("/fast arrives", "/slow body complete");
  }

  // ---------------------------------------------------------------- refusals

  @Test
  void R2_aRefusalWithRetryAfterPausesTheHostAndTheRetryGoesNoSooner() throws Exception {
    TestServer server = server(Refusing.first(1, 503, "1"));

    Outcome outcome = send(TestRequest.get(server.uri("/busy")));

    assertAnswer(outcome, 200, "answer 2");
    assertThat(server.requests()).hasSize(2);
    assertThat(started()).containsExactly("/busy 1", "/busy 2");
    assertEachRetryWaited("/busy", Duration.ofSeconds(1));
  }

  @Test
  void R2_kgfAdmitsFourAtOnceAndTheRestWaitForItsRetryAfter() throws Exception {
    KgfLike kgf = new KgfLike();
    TestServer server = server(kgf);

    // At 0 s eight requests arrive; four are worked on, four refused with Retry-After: 1.
    List<Outcome> outcomes = sendAll(IntStream.rangeClosed(1, 8)
        .mapToObj(i -> TestRequest.get(server.uri("/kgf/" + i))).collect(Collectors.toList()));

    for (int i = 0; i < 8; i++) {
      assertAnswer(outcomes.get(i), 200, "results of /kgf/" + (i + 1));
    }
    assertThat(kgf.maxWorking()).isLessThanOrEqualTo(KgfLike.SEED_CAPACITY);
    for (int i = 1; i <= 8; i++) {
      assertThat(server.requests("/kgf/" + i)).hasSameSizeAs(startedAt("/kgf/" + i));
      assertEachRetryWaited("/kgf/" + i, Duration.ofSeconds(1));
    }
  }

  @Test
  void R4_qleverRefusesABurstWithABare429AndTheLearnedIntervalLetsEveryRequestThrough() throws Exception {
    QleverLike qlever = new QleverLike(Duration.ofMillis(300));
    TestServer server = server(qlever);

    List<Outcome> outcomes = sendAll(IntStream.rangeClosed(1, 4)
        .mapToObj(i -> TestRequest.get(server.uri("/q/" + i))).collect(Collectors.toList()));

    for (int i = 0; i < 4; i++) {
      assertAnswer(outcomes.get(i), 200, "results of /q/" + (i + 1));
    }
    assertThat(qlever.refusals()).as("%s", qlever.answers()).isPositive();
    assertThat(events).filteredOn(e -> e instanceof HostpaceEvent.IntervalChanged).isNotEmpty();
  }

  // ---------------------------------------------------------------- retries

  @Test
  void T3_whenRetriesRunOutTheLastRefusalIsReturnedWithItsStatusAndBody() throws Exception {
    // A 429: some clients repeat a 503 with Retry-After: 0 once by themselves (OkHttp does).
    TestServer server = server(Refusing.always(429, "0"));
    CallContext twoRetries = CallContext.builder().retries(2).build();

    Outcome outcome = send(TestRequest.get(server.uri("/overloaded")).context(twoRetries));

    assertAnswer(outcome, 429, "refused 3");
    assertThat(server.requests()).hasSize(3);
  }

  @Test
  void T4_aOneShotBodyIsSentOnceAndItsRefusalReturned() throws Exception {
    assumeTrue(adapter.supportsOneShotBodies(), "this client holds every body in memory: none is one-shot");
    TestServer server = server(Refusing.first(1, 429, "0"));
    String update = "INSERT DATA { <a> <b> <c> }";

    Outcome outcome = send(TestRequest.post(server.uri("/update"), update).oneShot());

    assertAnswer(outcome, 429, "refused 1");
    assertThat(server.requests()).hasSize(1);
    assertThat(server.requests().get(0).bodyText()).isEqualTo(update);
  }

  @Test
  void T4_aReplayableBodyIsSentWholeOnEveryAttempt() throws Exception {
    Echo echo = new Echo(2);
    TestServer server = server(echo);
    byte[] body = new byte[64 * 1024];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) ('a' + i % 26);
    }

    Outcome outcome = send(TestRequest.post(server.uri("/echo"), body));

    assertAnswer(outcome, 200, new String(body, StandardCharsets.UTF_8));
    assertThat(echo.received()).containsExactly(body.length, body.length, body.length);
    assertThat(server.requests()).allSatisfy(r -> assertThat(r.body()).isEqualTo(body));
  }

  // ---------------------------------------------------------------- failures are the client's own

  @Test
  void T6_aResetConnectionReachesTheCallerAsTheClientsOwnExceptionAndIsNotRetried() throws Exception {
    RawServer raw = rawServer();
    CallContext oneAtATime = oneAtATime(raw.hostKey());

    // A POST: some clients send an idempotent request once more by themselves on a reset.
    Outcome outcome = send(TestRequest.post(raw.uri("/reset"), "INSERT DATA { <a> <b> <c> }").context(oneAtATime));

    assertThat(outcome.failure()).as("%s", outcome).isInstanceOf(adapter.networkFailure());
    assertNoHostpaceType(outcome.failure());
    assertThat(started()).containsExactly("/reset 1");
    theNextRequestStarts(raw, oneAtATime);
  }

  @Test
  void T6_A1_aTimeoutReachesTheCallerAsTheClientsOwnTimeoutExceptionIsHeardAndIsNotRetried() throws Exception {
    RawServer raw = rawServer();
    List<String> heard = new CopyOnWriteArrayList<>();
    CallContext listened = CallContext.builder()
        .addLimit(raw.hostKey(), Limits.inFlight(1))
        .attemptListener(new AttemptListener() {
          @Override
          public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
            heard.add("settled " + attempt + " " + status + " " + (failure != null));
          }
        })
        .build();

    // The server never answers: only the client's own timeout ends the call.
    Outcome outcome = send(TestRequest.get(raw.uri("/hang")).timeout(Duration.ofMillis(300)).context(listened));

    assertThat(outcome.failure()).as("%s", outcome).isInstanceOf(adapter.timeoutFailure());
    assertThat(chain(outcome.failure())).as("the chain of %s", outcome.failure()).anyMatch(AdapterContract::isTimeout);
    assertNoHostpaceType(outcome.failure());
    assertThat(started()).containsExactly("/hang 1");
    assertThat(heard).containsExactly("settled 1 -1 true");
    theNextRequestStarts(raw, oneAtATime(raw.hostKey()));
  }

  // ---------------------------------------------------------------- the whole answer

  @Test
  void T7_aBodyThatStallsAfterItsHeadersFailsTheCallAtItsDeadlineAndItsConnectionIsLetGo() throws Exception {
    warmUp();
    RawServer raw = rawServer();
    CallContext oneAtATime = oneAtATime(raw.hostKey());

    // The headers come at once and promise 1 MiB, which never comes: only the deadline ends the call.
    Outcome outcome = send(TestRequest.get(raw.uri("/stall")).deadline(Duration.ofSeconds(1)).context(oneAtATime));

    assertThat(outcome.failure()).as("%s", outcome).isNotNull();
    assertThat(chain(outcome.failure())).as("the chain of %s", outcome.failure()).anyMatch(AdapterContract::isTimeout);
    assertOnlyTheClientsTypes(outcome.failure());
    assertThat(started()).containsExactly("/stall 1");
    until("the client lets the stalled body go", () -> raw.abandoned().contains("/stall"));
    theNextRequestStarts(raw, oneAtATime);
  }

  @Test
  void T7_aBodyThatTricklesFailsTheCallAtItsDeadlineThoughNoReadWaitsLong() throws Exception {
    warmUp();
    RawServer raw = rawServer();

    // A byte a second of a mebibyte: a timeout per read of 3 s never passes and the body would take
    // days; only a deadline for the whole answer ends it, after a byte or two.
    Outcome outcome = send(TestRequest.get(raw.uri("/trickle"))
        .timeout(Duration.ofSeconds(3)).deadline(Duration.ofMillis(1500)));

    assertThat(outcome.failure()).as("%s", outcome).isNotNull();
    assertThat(chain(outcome.failure())).as("the chain of %s", outcome.failure()).anyMatch(AdapterContract::isTimeout);
    assertOnlyTheClientsTypes(outcome.failure());
    until("the client lets the trickling body go", () -> raw.abandoned().contains("/trickle"));
  }

  @Test
  void T7_headersOfAMebibyteEndTheCallAndFreeItsPlace() throws Exception {
    RawServer raw = rawServer();
    CallContext oneAtATime = oneAtATime(raw.hostKey());

    // One header line of 1 MiB: a client refuses it (its own exception) or reads it; either way
    // the call ends within its limits and its place is free for the next.
    Outcome outcome = send(TestRequest.get(raw.uri("/huge-headers")).deadline(Duration.ofSeconds(5)).context(oneAtATime));

    if (outcome.failure() != null) {
      assertNoHostpaceType(outcome.failure());
    } else {
      assertAnswer(outcome, 200, "ok");
    }
    assertThat(started()).containsExactly("/huge-headers 1");
    theNextRequestStarts(raw, oneAtATime);
  }

  @Test
  void T7_aStatusLineThatIsNotHttpEndsTheCallWithTheClientsOwnExceptionAndIsNotRetried() throws Exception {
    RawServer raw = rawServer();
    CallContext oneAtATime = oneAtATime(raw.hostKey());

    Outcome outcome = send(TestRequest.get(raw.uri("/bad-status")).deadline(Duration.ofSeconds(5)).context(oneAtATime));

    assertThat(outcome.failure()).as("%s", outcome).isNotNull();
    assertNoHostpaceType(outcome.failure());
    assertThat(raw.paths()).as("not a refusal: sent once by the engine").contains("/bad-status");
    assertThat(started()).containsExactly("/bad-status 1");
    theNextRequestStarts(raw, oneAtATime);
  }

  @Test
  void R1_aRetryAfterThatIsNeitherSecondsNorADateIsABareRefusalRetriedAndReturnedWhenRetriesRunOut() throws Exception {
    RawServer raw = rawServer();
    CallContext twoRetries = CallContext.builder().retries(2).build();

    // 429 with "Retry-After: soon, maybe": refused, no pause asked that can be read.
    Outcome outcome = send(TestRequest.get(raw.uri("/junk-retry-after")).deadline(Duration.ofSeconds(10)).context(twoRetries));

    assertAnswer(outcome, 429, "slow");
    assertThat(started()).containsExactly("/junk-retry-after 1", "/junk-retry-after 2", "/junk-retry-after 3");
  }

  @Test
  void T7_aRefusalWhoseBodyStallsIsLetGoByTheDeadlineAndTheRetryAnswers() throws Exception {
    warmUp();
    AtomicInteger seen = new AtomicInteger();
    AtomicBoolean stallEnded = new AtomicBoolean();
    TestServer server = server((request, exchange) -> {
      if (seen.incrementAndGet() > 1) {
        TestServer.reply(exchange, 200, "answer " + seen.get());
        return;
      }
      // A refusal that promises a body of 1 MiB and sends none of it.
      TestServer.sendHeaders(exchange, 503, 1024 * 1024, "Retry-After", "0");
      exchange.getResponseBody().flush();
      Thread.sleep(PATIENCE.toMillis());
      stallEnded.set(true);
    });

    // The stalled refusal would hold its exchange for the whole patience; the deadline ends it.
    Outcome outcome = send(TestRequest.get(server.uri("/refused")).deadline(Duration.ofSeconds(1)));

    assertThat(stallEnded).as("the deadline, not the server, ended the first attempt").isFalse();
    assertAnswer(outcome, 200, "answer 2");
    assertThat(started()).containsExactly("/refused 1", "/refused 2");
  }

  @Test
  void T7_aBodyWithoutEndFailsTheCallAtItsCapWithAnErrorThatNamesTheCap() throws Exception {
    assumeTrue(adapter.capsBodies(), "the adapter reads no body whole: its caller reads the body, as far as it chooses");
    RawServer raw = rawServer();

    Outcome outcome = send(TestRequest.get(raw.uri("/endless")).deadline(Duration.ofSeconds(2)).maxBodyBytes(MIB));

    assertThat(outcome.failure()).as("%s", outcome).isNotNull();
    assertThat(chain(outcome.failure())).as("the chain of %s", outcome.failure())
        .anyMatch(t -> String.valueOf(t.getMessage()).contains("cap of " + MIB + " bytes"));
    assertOnlyTheClientsTypes(outcome.failure());
    until("the client lets the endless body go", () -> raw.abandoned().contains("/endless"));
  }

  @Test
  void T7_aBodyLongerThanTheCapFailsTheCallBeforeItIsRead() throws Exception {
    assumeTrue(adapter.capsBodies(), "the adapter reads no body whole: its caller reads the body, as far as it chooses");
    RawServer raw = rawServer();

    // Content-Length: 1 GiB, against a cap of 1 MiB.
    Outcome outcome = send(TestRequest.get(raw.uri("/huge")).deadline(Duration.ofSeconds(2)).maxBodyBytes(MIB));

    assertThat(outcome.failure()).as("%s", outcome).isNotNull();
    assertThat(chain(outcome.failure())).as("the chain of %s", outcome.failure())
        .anyMatch(t -> String.valueOf(t.getMessage()).contains("cap of " + MIB + " bytes"));
    assertOnlyTheClientsTypes(outcome.failure());
    until("the client lets the huge body go", () -> raw.abandoned().contains("/huge"));
  }

  // ---------------------------------------------------------------- the client's own retries

  @Test
  void I7_aRefusalTheClientWouldRepeatByItselfReachesTheServerOnlyAsOftenAsTheEngineSentIt() throws Exception {
    // A 503 with Retry-After: 0 is what a client repeats by itself at once (OkHttp does, once).
    TestServer server = server(Refusing.always(503, "0"));
    CallContext oneRetry = CallContext.builder().retries(1).build();

    Outcome outcome = send(TestRequest.get(server.uri("/busy")).context(oneRetry));

    assertAnswer(outcome, 503, "refused 2");
    assertThat(started()).containsExactly("/busy 1", "/busy 2");
    assertThat(server.requests()).as("requests the server received").hasSize(2);
  }

  @Test
  void I7_aRequestTimeoutTheClientWouldRepeatByItselfReachesTheServerOnce() throws Exception {
    // A 408 is no refusal to the engine, which returns it; OkHttp, left to itself, sends it again once.
    TestServer server = server((request, exchange) -> TestServer.reply(exchange, 408, "too slow"));

    Outcome outcome = send(TestRequest.get(server.uri("/slow-client")));

    assertAnswer(outcome, 408, "too slow");
    assertThat(started()).containsExactly("/slow-client 1");
    assertThat(server.requests()).as("requests the server received").hasSize(1);
  }

  @Test
  void I7_aGetWhoseConnectionIsResetReachesTheServerOnlyOnce() throws Exception {
    assumeFalse(adapter.resendsAGetOnAClosedConnection(), "the client resends it by itself and offers no way to stop it");
    RawServer raw = rawServer();

    // A GET may be sent again: a client's own retry of an idempotent request on an I/O failure goes unpaced.
    Outcome outcome = send(TestRequest.get(raw.uri("/reset")));

    assertThat(outcome.failure()).as("%s", outcome).isInstanceOf(adapter.networkFailure());
    assertThat(started()).containsExactly("/reset 1");
    assertThat(raw.paths()).as("requests the server received").containsExactly("/reset");
  }

  // ---------------------------------------------------------------- timeout budgets

  @Test
  void D1_theEnginesTimeoutBudgetEndsAnAttemptThatGetsNoAnswerAndFreesItsPlace() throws Exception {
    warmUp(); // with the default engine, whose budget a client's start-up cannot pass
    engine = Hostpace.builder().timeoutPolicy(TimeoutPolicy.fixed(Duration.ofSeconds(1))).addListener(events::add).build();
    adapter = opened(adapter(engine));
    assumeTrue(adapter.abortsAtBudget(), "a blocking client that cannot be aborted: its own timeouts bound an attempt");
    RawServer raw = rawServer();
    CallContext oneAtATime = oneAtATime(raw.hostKey());

    Outcome outcome = send(TestRequest.get(raw.uri("/hang")).context(oneAtATime));

    // The server never answers and the client's own timeouts are far off: only the budget ends it.
    assertThat(outcome.isFailure()).as("%s", outcome).isTrue();
    assertThat(chain(outcome.failure())).as("the chain of %s", outcome.failure())
        .anyMatch(t -> t instanceof AttemptTimeoutException);
    assertThat(started()).containsExactly("/hang 1");
    until("the client lets the hanging exchange go", () -> raw.abandoned().contains("/hang"));
    theNextRequestStarts(raw, oneAtATime);
  }

  // ---------------------------------------------------------------- cancellation

  @Test
  void T5_cancellingAHangingCallFreesItsPlaceForTheRequestQueuedBehindIt() throws Exception {
    RawServer raw = rawServer();
    CallContext oneAtATime = oneAtATime(raw.hostKey());
    Pending hanging = adapter.start(TestRequest.get(raw.uri("/hang")).context(oneAtATime));
    until("the hanging request arrives", () -> raw.paths().contains("/hang"));
    Pending next = adapter.start(TestRequest.get(raw.uri("/ok")).context(oneAtATime));
    until("the next request waits", () -> waiting() == 1);
    assertThat(next.isDone()).isFalse();

    hanging.cancel();

    assertAnswer(next.await(PATIENCE), 200, "ok");
    Outcome cancelled = hanging.await(PATIENCE);
    assertThat(cancelled.isFailure()).as("%s", cancelled).isTrue();
    assertNoHostpaceType(cancelled.failure());
    until("the client lets the hanging exchange go", () -> raw.abandoned().contains("/hang"));
    assertThat(raw.paths()).containsExactly("/hang", "/ok");
  }

  @Test
  void T5_cancellingAQueuedCallTakesItOutOfItsQueue() throws Exception {
    RawServer raw = rawServer();
    CallContext oneAtATime = oneAtATime(raw.hostKey());
    Pending hanging = adapter.start(TestRequest.get(raw.uri("/hang")).context(oneAtATime));
    until("the hanging request arrives", () -> raw.paths().contains("/hang"));
    Pending queued = adapter.start(TestRequest.get(raw.uri("/queued")).context(oneAtATime));
    until("the queued request waits", () -> waiting() == 1);

    queued.cancel();
    until("the queued request leaves its queue", () -> waiting() == 0);
    Outcome cancelled = queued.await(PATIENCE);
    hanging.cancel();

    assertThat(cancelled.isFailure()).as("%s", cancelled).isTrue();
    assertNoHostpaceType(cancelled.failure());
    hanging.await(PATIENCE);
    theNextRequestStarts(raw, oneAtATime);
    assertThat(raw.paths()).containsExactly("/hang", "/ok");
  }

  // ---------------------------------------------------------------- identity and events

  @Test
  void U1_aRequestWithoutUserAgentIsSentWithTheEnginesAndOneThatNamesItsOwnKeepsIt() throws Exception {
    TestServer server = server((request, exchange) -> TestServer.reply(exchange, 200, "ok"));
    String configured = "contract-test/1.0 (+https://example.org; ops@example.org)";
    AdapterUnderTest named = opened(adapter(Hostpace.builder().userAgent(configured).build()));

    assertAnswer(send(TestRequest.get(server.uri("/default"))), 200, "ok");
    assertAnswer(named.start(TestRequest.get(server.uri("/configured"))).await(PATIENCE), 200, "ok");
    assertAnswer(send(TestRequest.get(server.uri("/own")).header("User-Agent", "my-bot/2.0")), 200, "ok");

    assertThat(server.requests("/default").get(0).headers("User-Agent")).containsExactly(Hostpace.DEFAULT_USER_AGENT);
    assertThat(server.requests("/configured").get(0).headers("User-Agent")).containsExactly(configured);
    assertThat(server.requests("/own").get(0).headers("User-Agent")).containsExactly("my-bot/2.0");
  }

  @Test
  void A1_theContextsAttemptListenerHearsEachAttemptSentSettledAndRetrying() throws Exception {
    TestServer server = server(Refusing.first(1, 429, "0"));
    HeardAttempts listener = new HeardAttempts();
    List<String> heard = listener.heard();
    CallContext listened = CallContext.builder().attemptListener(listener).build();

    Outcome outcome = send(TestRequest.get(server.uri("/")).context(listened));

    assertAnswer(outcome, 200, "answer 2");
    assertThat(heard).containsExactly("sent 1", "settled 1 429", "retrying 1", "sent 2", "settled 2 200");
  }
}

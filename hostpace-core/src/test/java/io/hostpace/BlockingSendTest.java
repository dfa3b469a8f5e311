package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.testing.ScriptedExchange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import io.hostpace.timeout.TimeoutPolicy;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The blocking entry point: a blocking client's attempts are sent on the calling thread, the
 * waiting stays in the engine's queue, an interrupt cancels the call, and an IOException stays one;
 * a client whose own cancel interrupts no thread cancels the call with the action send hands it.
 * Time is virtual; the test thread moves it while the caller blocks.
 */
class BlockingSendTest {

  final VirtualTime time = VirtualTime.create();
  final ExecutorService callers = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    callers.shutdownNow();
  }

  /** A blocking client: it "sends" in send() and hands back what it got. */
  static final class BlockingExchange extends ScriptedExchange<Integer> {
    final List<Thread> threads = new CopyOnWriteArrayList<>();
    @Nullable IOException failure;

    BlockingExchange(String uri, Integer... statuses) {
      super(ScriptedExchange.statuses(uri).answers(ScriptedExchange.inTurn(List.of(statuses)))
          .headers((response, name) -> response == 429 && name.equalsIgnoreCase("Retry-After") ? "1" : null));
    }

    @Override
    public CompletableFuture<Integer> send() {
      threads.add(Thread.currentThread());
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      return super.send();
    }
  }

  static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a guard against a hang
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached in 60 s");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  static int waiting(Hostpace engine) {
    return engine.snapshot().stream().mapToInt(HostSnapshot::waiting).sum();
  }

  @Test
  void everyAttemptIsSentOnTheCallingThreadWhileTheWaitStaysInTheQueue() throws Exception {
    Hostpace engine = Hostpace.builder().time(time).build();
    BlockingExchange exchange = new BlockingExchange("http://a.test/", 429, 200);
    Thread[] caller = new Thread[1];
    Future<Integer> result = callers.submit(() -> {
      caller[0] = Thread.currentThread();
      return engine.send(exchange);
    });

    await(() -> waiting(engine) == 1); // refused with Retry-After: 1, the retry waits in the queue
    time.advance(Duration.ofSeconds(1));

    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(exchange.threads).hasSize(2).containsOnly(caller[0]);
  }

  @Test
  void T5_interruptingABlockedCallerCancelsItsCall() throws Exception {
    Hostpace engine = Hostpace.builder().time(time).addLimit("a.test", Limits.perSecond(0.01)).build();
    assertThat(engine.send(new BlockingExchange("http://a.test/first", 200))).isEqualTo(200);
    Future<Integer> second = callers.submit(() -> engine.send(new BlockingExchange("http://a.test/second", 200)));
    await(() -> waiting(engine) == 1);

    second.cancel(true); // interrupts the caller

    await(() -> waiting(engine) == 0);
    assertThat(engine.snapshot()).allSatisfy(h -> assertThat(h.inFlight()).isZero());
  }

  @Test
  void theExchangesIoExceptionReachesTheCallerAsItIs() {
    Hostpace engine = Hostpace.builder().time(time).build();
    BlockingExchange exchange = new BlockingExchange("http://a.test/");
    exchange.failure = new IOException("connection refused");

    assertThatThrownBy(() -> engine.send(exchange)).isSameAs(exchange.failure);
    assertThat(engine.snapshot()).isEmpty();
  }

  @Test
  void manyBlockedCallersShareOneQueueWithoutAThreadPerWait() throws Exception {
    Hostpace engine = Hostpace.builder().time(time).addLimit("a.test", Limits.perSecond(1)).build();
    List<Future<Integer>> results = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 5; i++) {
      int n = i;
      results.add(callers.submit(() -> engine.send(new BlockingExchange("http://a.test/" + n, 200))));
    }
    await(() -> waiting(engine) == 4);
    // Four callers wait, and the engine holds one wake-up for their queue (and at most one more, to
    // drop the host's rate spacing once it is idle): no thread or task per wait.
    assertThat(time.pendingTasks()).isBetween(1, 2);
    for (int i = 0; i < 5; i++) {
      time.advance(Duration.ofSeconds(1));
    }
    for (Future<Integer> result : results) {
      assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }
  }

  /** A blocking client whose attempt hangs until the test lets it answer, as a server that is slow to. */
  static class HangingExchange extends ScriptedExchange<Integer> {
    final CountDownLatch sent = new CountDownLatch(1);
    final CountDownLatch answer = new CountDownLatch(1);
    final List<Integer> discarded = new CopyOnWriteArrayList<>();
    /** What abort() answers; whether it also ends the attempt (else the answer comes when the test lets it). */
    volatile boolean abortable;
    volatile boolean abortEndsIt = true;
    final AtomicInteger aborts = new AtomicInteger();
    volatile boolean aborted;

    HangingExchange(String uri) {
      super(ScriptedExchange.statuses(uri));
    }

    @Override
    public CompletableFuture<Integer> send() {
      sent.countDown();
      try {
        if (!answer.await(10, TimeUnit.SECONDS)) {
          return CompletableFuture.failedFuture(new IOException("the test never let the attempt answer"));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return CompletableFuture.failedFuture(new InterruptedIOException("interrupted"));
      }
      return aborted ? CompletableFuture.failedFuture(new IOException("Socket closed")) : CompletableFuture.completedFuture(200);
    }

    @Override
    public boolean abort() {
      aborts.incrementAndGet();
      if (abortable && abortEndsIt) {
        aborted = true;
        answer.countDown();
      }
      return abortable;
    }

    @Override
    public void discard(Integer response) {
      discarded.add(response);
    }
  }

  /** What send threw on a caller's thread: the failure of its future, unwrapped. */
  static Throwable thrownBy(Future<?> result) throws Exception {
    try {
      result.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call did not fail");
  }

  static void assertCancelled(Throwable thrown) {
    assertThat(thrown).isInstanceOf(InterruptedIOException.class).hasMessage("the call was cancelled")
        .hasCauseInstanceOf(CancellationException.class);
  }

  @Test
  void T5_theCancelActionRunWhileTheCallWaitsTakesItOutOfItsQueue() throws Exception {
    Hostpace engine = Hostpace.builder().time(time).addLimit("a.test", Limits.perSecond(0.01)).build();
    assertThat(engine.send(new BlockingExchange("http://a.test/first", 200))).isEqualTo(200);
    BlockingExchange second = new BlockingExchange("http://a.test/second", 200);
    AtomicReference<Runnable> cancel = new AtomicReference<>();
    Future<Integer> result = callers.submit(() -> engine.send(second, CallContext.DEFAULT, cancel::set));
    await(() -> waiting(engine) == 1);

    cancel.get().run(); // on another thread than the caller's, which it does not interrupt

    assertCancelled(thrownBy(result));
    assertThat(waiting(engine)).isZero();
    assertThat(engine.snapshot()).allSatisfy(h -> assertThat(h.inFlight()).isZero());
    assertThat(second.threads).as("the cancelled call's attempts").isEmpty();
  }

  @Test
  void T5_theCancelActionRunWhileAnAttemptIsSentFreesItsPlaceAtOnce() throws Exception {
    Hostpace engine = Hostpace.builder().time(time).addLimit("a.test", Limits.inFlight(1)).build();
    HangingExchange hanging = new HangingExchange("http://a.test/hang");
    AtomicReference<Runnable> cancel = new AtomicReference<>();
    Future<Integer> result = callers.submit(() -> engine.send(hanging, CallContext.DEFAULT, cancel::set));
    assertThat(hanging.sent.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(engine.snapshot()).singleElement().satisfies(h -> assertThat(h.inFlight()).isEqualTo(1));

    cancel.get().run();

    // The place is free while the attempt still hangs: the next call to the host is sent at once.
    assertThat(engine.snapshot()).allSatisfy(h -> assertThat(h.inFlight()).isZero());
    assertThat(engine.send(new BlockingExchange("http://a.test/next", 200))).isEqualTo(200);
    assertThat(result.isDone()).as("the caller, still in its attempt").isFalse();
    hanging.answer.countDown(); // the client lets the request go, here with a late answer
    assertCancelled(thrownBy(result));
    assertThat(hanging.discarded).as("the late answer, let go").containsExactly(200);
    assertThat(engine.snapshot()).allSatisfy(h -> assertThat(h.inFlight()).isZero());
  }

  @Test
  void T5_theCancelActionRunBeforeTheCallIsQueuedSendsNothing() {
    Hostpace engine = Hostpace.builder().time(time).build();
    BlockingExchange exchange = new BlockingExchange("http://a.test/", 200);

    // A client already cancelled runs the action as it is handed over.
    assertThatThrownBy(() -> engine.send(exchange, CallContext.DEFAULT, Runnable::run))
        .satisfies(BlockingSendTest::assertCancelled);

    assertThat(exchange.threads).isEmpty();
    assertThat(engine.snapshot()).allSatisfy(h -> {
      assertThat(h.starts()).isZero();
      assertThat(h.waiting()).isZero();
    });
  }

  @Test
  void theCancelActionRunAfterTheCallEndedDoesNothing() throws Exception {
    Hostpace engine = Hostpace.builder().time(time).addLimit("a.test", Limits.inFlight(1)).build();
    BlockingExchange exchange = new BlockingExchange("http://a.test/", 200);
    AtomicReference<Runnable> cancel = new AtomicReference<>();
    assertThat(engine.send(exchange, CallContext.DEFAULT, cancel::set)).isEqualTo(200);

    cancel.get().run();
    cancel.get().run();

    assertThat(exchange.threads).hasSize(1);
    assertThat(engine.snapshot()).allSatisfy(h -> {
      assertThat(h.inFlight()).isZero();
      assertThat(h.waiting()).isZero();
    });
    assertThat(engine.send(new BlockingExchange("http://a.test/next", 200))).isEqualTo(200);
  }

  /** One blocking attempt on a caller's thread, under a fixed 2 s budget; the test moves time to it. */
  Future<Integer> sendWithABudget(Hostpace engine, HangingExchange hanging) throws Exception {
    Future<Integer> result = callers.submit(() -> engine.send(hanging));
    assertThat(hanging.sent.await(10, TimeUnit.SECONDS)).isTrue();
    time.advance(Duration.ofMillis(1999));
    assertThat(hanging.aborts).hasValue(0);
    time.advance(Duration.ofMillis(1));
    return result;
  }

  Hostpace budgeted() {
    return Hostpace.builder().time(time).timeoutPolicy(TimeoutPolicy.fixed(Duration.ofSeconds(2)))
        .addLimit("a.test", Limits.inFlight(1)).build();
  }

  @Test
  void D1_aBlockingAttemptPastItsBudgetIsAbortedAndEndsAsATimeoutThatFreesItsPlace() throws Exception {
    Hostpace engine = budgeted();
    HangingExchange hanging = new HangingExchange("http://a.test/hang");
    hanging.abortable = true;

    Future<Integer> result = sendWithABudget(engine, hanging);

    assertThat(thrownBy(result)).isInstanceOf(AttemptTimeoutException.class)
        .hasMessageContaining("no answer from a.test within 2 s");
    assertThat(hanging.aborts).hasValue(1);
    BlockingExchange next = new BlockingExchange("http://a.test/next", 200);
    assertThat(callers.submit(() -> engine.send(next)).get(10, TimeUnit.SECONDS)).isEqualTo(200);
  }

  @Test
  void D1_aBlockingExchangeThatCannotAbortKeepsTheAnswerThatCameLate() throws Exception {
    Hostpace engine = budgeted();
    HangingExchange hanging = new HangingExchange("http://a.test/hang");

    Future<Integer> result = sendWithABudget(engine, hanging);
    assertThat(hanging.aborts).hasValue(1);   // asked, and said it cannot
    hanging.answer.countDown();

    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(hanging.discarded).isEmpty();
  }

  @ParameterizedTest(name = "the exchange throws {0}")
  @EnumSource(Thrown.class)
  void L2_whatAnExchangeThrowsAbortingIsAWarningAndItsAttemptGoesOn(Thrown thrown) throws Exception {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    Hostpace engine = Hostpace.builder().time(time).logger(log).timeoutPolicy(TimeoutPolicy.fixed(Duration.ofSeconds(2)))
        .addLimit("a.test", Limits.inFlight(1)).build();
    Throwable boom = thrown.make("an exchange's fault in abort()");
    HangingExchange hanging = new HangingExchange("http://a.test/hang") {
      @Override
      public boolean abort() {
        aborts.incrementAndGet();
        throw Thrown.unchecked(boom);
      }
    };

    // The timer that ran the deadline is not where it ends up: it goes on, and so does the attempt.
    Future<Integer> result = sendWithABudget(engine, hanging);
    assertThat(hanging.aborts).hasValue(1);
    hanging.answer.countDown();

    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("threw " + thrown.className() + " from abort");
    });
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
    BlockingExchange next = new BlockingExchange("http://a.test/next", 200);
    assertThat(callers.submit(() -> engine.send(next)).get(10, TimeUnit.SECONDS)).isEqualTo(200);
  }

  @Test
  void D1_anAnswerThatCameBackAfterTheAbortWasAskedIsLetGoAndTheAttemptIsATimeout() throws Exception {
    Hostpace engine = budgeted();
    HangingExchange hanging = new HangingExchange("http://a.test/hang");
    hanging.abortable = true;
    hanging.abortEndsIt = false;   // the answer was on its way: abort came too late to stop it

    Future<Integer> result = sendWithABudget(engine, hanging);
    hanging.answer.countDown();

    assertThat(thrownBy(result)).isInstanceOf(AttemptTimeoutException.class);
    assertThat(hanging.discarded).containsExactly(200);
  }

  @Test
  void D1_aBudgetThatRunsOutBeforeAnAsynchronousSendReturnsStillEndsItsAttempt() {
    Hostpace engine = Hostpace.builder().time(time).timeoutPolicy(TimeoutPolicy.fixed(Duration.ofMillis(1))).build();
    CompletableFuture<Integer> pending = new CompletableFuture<>();
    HangingExchange slowToReturn = new HangingExchange("http://a.test/") {
      @Override
      public CompletableFuture<Integer> send() {
        time.advance(Duration.ofMillis(2)); // the budget runs out while send() runs, before it returns
        return pending;                     // an asynchronous attempt that cannot be aborted
      }
    };

    CompletableFuture<Integer> call = engine.execute(slowToReturn);
    time.runDue();

    assertThat(slowToReturn.aborts).hasValue(1);
    assertThat(pending).isCancelled();
    assertThatThrownBy(call::join).hasCauseInstanceOf(AttemptTimeoutException.class);
  }
}

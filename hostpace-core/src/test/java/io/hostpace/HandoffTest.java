package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.LearningRule;
import io.hostpace.testing.ScriptedExchange;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A caller that finds the engine's lock held hands its request's arrival or its answer to the
 * thread that holds it, and goes on (SPEC P15). The lock is held here by a learning rule that
 * waits, in the middle of learning from an answer, until the test lets it go: an engine with a
 * rule of its own takes the lock for every call (SPEC P14 is for the rules that ship). Whether a
 * thread waits is read from its state, never from a clock; time is virtual.
 */
class HandoffTest {

  private static final URI HOST = URI.create("http://held.test/resource");

  /** A rule that keeps the pace as it is and, when armed, holds the lock in its next answer. */
  static final class HoldingRule implements LearningRule {
    final CountDownLatch holding = new CountDownLatch(1);
    final CountDownLatch letGo = new CountDownLatch(1);
    volatile boolean armed;

    @Override
    public long onRefusal(long now, long startedAt, long interval, long changedAt) {
      return interval;
    }

    @Override
    public long onAnswer(long now, long startedAt, long interval, long changedAt) {
      if (armed) {
        armed = false;
        holding.countDown();
        CallersThreadsTest.awaitUninterruptibly(letGo);
      }
      return interval;
    }
  }

  /** Attempts answered when the test says, oldest first. */
  private final ConcurrentLinkedQueue<CompletableFuture<Integer>> attempts = new ConcurrentLinkedQueue<>();
  /**
   * The attempts sent and not yet answered, and the most at once: never more than the engine has
   * in flight (counted once sent, uncounted before the answer that frees the place).
   */
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger mostInFlight = new AtomicInteger();

  private ScriptedExchange<Integer> exchange(URI uri) {
    return ScriptedExchange.builder(uri, Integer::intValue).answers(attempt -> {
      mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      CompletableFuture<Integer> answer = new CompletableFuture<>();
      attempts.add(answer);
      return answer;
    }).build();
  }

  /** Answers the oldest attempt in flight with a 200; false when none is. */
  private boolean answerOne() {
    CompletableFuture<Integer> oldest = attempts.poll();
    if (oldest == null) {
      return false;
    }
    inFlight.decrementAndGet(); // before the answer: the engine lets the place go after it
    oldest.complete(200);
    return true;
  }

  /** Runs {@code each} on {@code threads} threads of their own that start it together, and waits for them. */
  private static void runTogether(int threads, Runnable each) throws InterruptedException {
    CountDownLatch ready = new CountDownLatch(threads);
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread caller = daemon(new Thread(() -> {
        ready.countDown();
        CallersThreadsTest.awaitUninterruptibly(ready);
        each.run();
      }, "caller-" + t));
      callers.add(caller);
      caller.start();
    }
    for (Thread caller : callers) {
      caller.join();
    }
  }

  /** What callers that are gone left: the timer sends it and the test answers it, until {@code calls} are done. */
  private void answerWhatIsLeft(VirtualTime time, List<CompletableFuture<Integer>> calls) {
    for (int round = 0; round < 100_000 && !calls.stream().allMatch(CompletableFuture::isDone); round++) {
      time.runDue();
      while (answerOne()) {
        // each answer may start another
      }
    }
  }

  /** A thread that answers the first attempt, its rule holding the lock there until let go. */
  private static Thread holdLock(HoldingRule rule, CompletableFuture<Integer> attempt) throws InterruptedException {
    rule.armed = true;
    Thread holder = daemon(new Thread(() -> attempt.complete(200), "holder"));
    holder.start();
    rule.holding.await();
    return holder;
  }

  /**
   * Waits, without a clock, until {@code thread} has ended (TERMINATED) or is parked on a lock
   * (WAITING, with a lock's synchronizer as what it waits for: the engine's, as nothing else these
   * threads do waits on one). A thread that waits a moment for something else (a class being
   * loaded, the virtual clock's monitor) is waited for.
   */
  private static Thread.State endsOrWaitsForALock(Thread thread) {
    while (true) {
      Thread.State state = thread.getState();
      if (state == Thread.State.TERMINATED
          || state == Thread.State.WAITING && LockSupport.getBlocker(thread) instanceof AbstractQueuedSynchronizer) {
        return state;
      }
      Thread.onSpinWait();
    }
  }

  @Test
  void P15_aCallerThatFindsTheLockHeldHandsItsCallOverGoesOnAndTheCallCompletes() throws Exception {
    VirtualTime time = VirtualTime.create();
    HoldingRule rule = new HoldingRule();
    Hostpace engine = Hostpace.builder().time(time).learningRule(rule).widenFirstContact(false)
        .limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).build();
    CompletableFuture<Integer> first = engine.execute(exchange(HOST));
    Thread holder = holdLock(rule, attempts.poll());

    // The lock is held: these calls are handed over, and the caller goes on at once.
    List<CompletableFuture<Integer>> handed = new ArrayList<>();
    Thread caller = daemon(new Thread(() -> {
      for (int i = 0; i < 3; i++) {
        handed.add(engine.execute(exchange(HOST)));
      }
    }, "caller"));
    caller.start();
    assertThat(endsOrWaitsForALock(caller)).as("the caller, while another thread holds the lock").isEqualTo(Thread.State.TERMINATED);
    caller.join();
    assertThat(handed).hasSize(3).noneSatisfy(call -> assertThat(call).isDone());
    assertThat(attempts).as("nothing started while the lock was held").isEmpty();

    rule.letGo.countDown();
    holder.join();
    time.runDue(); // the caller is gone: the calls its handed arrivals started are the timer's to send
    assertThat(first).isCompletedWithValue(200);
    assertThat(attempts).hasSize(3);
    while (answerOne()) {
      // each answer settles under the lock, free now
    }
    assertThat(handed).allSatisfy(call -> assertThat(call).isCompletedWithValue(200));
    assertHoldsNothing(engine);
  }

  @Test
  void P15_anAnswerHandedOverCompletesItsCallAndIsLearnedBeforeTheNextChange() throws Exception {
    VirtualTime time = VirtualTime.create();
    HoldingRule rule = new HoldingRule();
    // One place: the second call waits for the first's answer, which is handed over.
    Hostpace engine = Hostpace.builder().time(time).learningRule(rule).widenFirstContact(false)
        .limitsForEveryHost(Limits.inFlight(1)).build();
    URI other = URI.create("http://other.test/resource");
    CompletableFuture<Integer> first = engine.execute(exchange(other));
    CompletableFuture<Integer> answeredWhileHeld = engine.execute(exchange(HOST));
    CompletableFuture<Integer> waiting = engine.execute(exchange(HOST));
    CompletableFuture<Integer> firstAttempt = attempts.poll();
    CompletableFuture<Integer> heldHostsAttempt = attempts.poll();
    assertThat(attempts).isEmpty();
    Thread holder = holdLock(rule, firstAttempt);

    Thread answerer = daemon(new Thread(() -> heldHostsAttempt.complete(200), "answerer"));
    answerer.start();
    assertThat(endsOrWaitsForALock(answerer)).as("the answering thread, while another holds the lock").isEqualTo(Thread.State.TERMINATED);
    answerer.join();
    assertThat(answeredWhileHeld).as("its caller's future, completed with the answer").isCompletedWithValue(200);
    assertThat(attempts).as("its place not yet let go").isEmpty();

    rule.letGo.countDown();
    holder.join();
    time.runDue();
    assertThat(first).isCompletedWithValue(200);
    assertThat(attempts).as("the waiting call, started in the place the handed answer let go").hasSize(1);
    answerOne();
    assertThat(waiting).isCompletedWithValue(200);
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }

  @Test
  void P15_aCallerFindingAsManyChangesWaitingAsTheHandoffTakesWaitsForTheLock() throws Exception {
    VirtualTime time = VirtualTime.create();
    HoldingRule rule = new HoldingRule();
    Hostpace engine = Hostpace.builder().time(time).learningRule(rule).widenFirstContact(false)
        .limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).build();
    engine.execute(exchange(HOST));
    Thread holder = holdLock(rule, attempts.poll());

    AtomicInteger returned = new AtomicInteger();
    List<CompletableFuture<Integer>> calls = new ArrayList<>();
    Thread caller = daemon(new Thread(() -> {
      for (int i = 0; i <= Handoff.LIMIT; i++) {
        calls.add(engine.execute(exchange(HOST)));
        returned.incrementAndGet();
      }
    }, "caller"));
    caller.start();
    assertThat(endsOrWaitsForALock(caller)).as("the caller of one more than the handoff takes").isEqualTo(Thread.State.WAITING);
    assertThat(returned.get()).isEqualTo(Handoff.LIMIT);

    rule.letGo.countDown();
    holder.join();
    caller.join();
    time.runDue();
    while (answerOne()) {
      // every call started: answer each
    }
    assertThat(calls).hasSize(Handoff.LIMIT + 1).allSatisfy(call -> assertThat(call).isCompletedWithValue(200));
  }

  @Test
  void P15_aCloseMakesTheArrivalsHandedOverBeforeItAndLosesNone() throws Exception {
    VirtualTime time = VirtualTime.create();
    HoldingRule rule = new HoldingRule();
    Hostpace engine = Hostpace.builder().time(time).learningRule(rule).widenFirstContact(false)
        .limitsForEveryHost(Limits.inFlight(1)).build();
    engine.execute(exchange(HOST));
    Thread holder = holdLock(rule, attempts.poll());
    List<CompletableFuture<Integer>> handed = new ArrayList<>();
    Thread caller = daemon(new Thread(() -> {
      handed.add(engine.execute(exchange(URI.create("http://late.test/"))));
      handed.add(engine.execute(exchange(URI.create("http://late.test/"))));
    }, "caller"));
    caller.start();
    assertThat(endsOrWaitsForALock(caller)).as("the caller, while another thread holds the lock").isEqualTo(Thread.State.TERMINATED);
    caller.join();
    Thread closer = daemon(new Thread(engine::close, "closer"));
    closer.start();
    assertThat(endsOrWaitsForALock(closer)).as("the close, waiting for the lock").isEqualTo(Thread.State.WAITING);

    rule.letGo.countDown();
    holder.join();
    closer.join();
    time.runDue();
    // Made before the close, whichever thread took the lock first: the first started, and its
    // answer ends it; the second waited, and the close ended it as it ends every waiting call.
    assertThat(attempts).hasSize(1);
    answerOne();
    assertThat(handed.get(0)).isCompletedWithValue(200);
    assertThat(handed.get(1)).failsWithin(java.time.Duration.ZERO)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(HostpaceClosedException.class);
  }

  @Test
  void P15_threadsCallingOneGroupAtOnceLoseNothingAndKeepItsLimit() throws Exception {
    VirtualTime time = VirtualTime.create();
    int places = 3;
    Hostpace engine = Hostpace.builder().time(time)
        .limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).widenFirstContact(false)
        .addLimit("*.g.test", Limits.inFlight(places)).build();
    int threads = 4;
    int callsEach = 2_000;
    List<CompletableFuture<Integer>> calls = java.util.Collections.synchronizedList(new ArrayList<>());
    runTogether(threads, () -> {
      for (int i = 0; i < callsEach; i++) {
        calls.add(engine.execute(exchange(URI.create("http://h" + i % 10 + ".g.test/"))));
        answerOne();
      }
    });
    answerWhatIsLeft(time, calls);
    assertThat(calls).hasSize(threads * callsEach).allSatisfy(call -> assertThat(call).isCompletedWithValue(200));
    assertThat(mostInFlight.get()).as("the most attempts in flight at once in the group").isBetween(1, places);
    assertHoldsNothing(engine);
  }

  @Test
  void P15_threadsThatCancelSomeOfTheirCallsAsTheyGoLeaveNothingHeldAndLoseNoOther() throws Exception {
    VirtualTime time = VirtualTime.create();
    Hostpace engine = Hostpace.builder().time(time)
        .limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).widenFirstContact(false)
        .addLimit("*.g.test", Limits.inFlight(3)).build();
    int threads = 4;
    int callsEach = 2_000;
    List<CompletableFuture<Integer>> kept = java.util.Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<Integer>> cancelled = java.util.Collections.synchronizedList(new ArrayList<>());
    runTogether(threads, () -> {
      for (int i = 0; i < callsEach; i++) {
        CompletableFuture<Integer> call = engine.execute(exchange(URI.create("http://h" + i % 10 + ".g.test/")));
        // Waiting, or in flight: either way its place must come back. Another thread may have
        // answered it already, and then it is not cancelled but done.
        if (i % 7 == 3 && call.cancel(true)) {
          cancelled.add(call);
        } else {
          kept.add(call);
        }
        answerOne();
      }
    });
    answerWhatIsLeft(time, kept);
    assertThat(kept).hasSize(threads * callsEach - cancelled.size())
        .allSatisfy(call -> assertThat(call).isCompletedWithValue(200));
    assertThat(cancelled).allSatisfy(call -> assertThat(call).isCancelled());
    assertHoldsNothing(engine);
  }

  /** No host the engine holds has a request in flight or waiting: every place came back. */
  private static void assertHoldsNothing(Hostpace engine) {
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
  }

  /** A test's thread, which a failed check leaves waiting: a daemon, so that the run still ends. */
  private static Thread daemon(Thread thread) {
    thread.setDaemon(true);
    return thread;
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.testing.ScriptedExchange;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Calls run without blocking are sent on the thread that delivers them, and one thread's answer
 * may start another thread's calls (SPEC P13): a thread sends its own, and of the others' at most
 * a share for each of its own; what it leaves, their owners or the engine's timer send. Time is
 * virtual: the timer's turn runs when the test thread asks it to.
 */
class CallersThreadsTest {

  private static final URI HOST = URI.create("http://instant.test/resource");
  private static final CompletableFuture<Integer> OK = CompletableFuture.completedFuture(200);

  /**
   * One thread's exchange, answered at once, that counts who sent it: each send on a thread
   * other than its maker's is counted for the thread that sent it.
   */
  static final class InstantExchange extends ScriptedExchange<Integer> {
    final Thread maker = Thread.currentThread();
    final Map<Thread, AtomicInteger> othersSentBy;
    /** Counted down before this exchange's first send returns, when not null. */
    final @Nullable Runnable beforeFirstAnswer;
    final AtomicInteger sent = new AtomicInteger();
    /** How many of its sends its maker's thread made. */
    final AtomicInteger sentByMaker = new AtomicInteger();

    InstantExchange(Map<Thread, AtomicInteger> othersSentBy, @Nullable Runnable beforeFirstAnswer) {
      super(ScriptedExchange.builder(HOST, Integer::intValue).answers(attempt -> OK));
      this.othersSentBy = othersSentBy;
      this.beforeFirstAnswer = beforeFirstAnswer;
    }

    @Override
    public CompletableFuture<Integer> send() {
      Thread sender = Thread.currentThread();
      if (sender != maker) {
        othersSentBy.computeIfAbsent(sender, thread -> new AtomicInteger()).incrementAndGet();
      } else {
        sentByMaker.incrementAndGet();
      }
      if (sent.getAndIncrement() == 0 && beforeFirstAnswer != null) {
        beforeFirstAnswer.run();
      }
      return super.send();
    }
  }

  @Test
  void P13_aThreadWhoseAnswerStartsOtherThreadsCallsSendsAtMostItsShareOfThemAndEveryCallCompletes()
      throws Exception {
    VirtualTime time = VirtualTime.create();
    // A host nothing is known of opens with one request in flight (SPEC P12): while the first
    // thread's request is in flight, every other thread's call waits in the queue.
    Hostpace engine = Hostpace.builder().clock(time).timer(time).limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).build();
    int others = 3;
    int callsEach = 200;
    Map<Thread, AtomicInteger> othersSentBy = new ConcurrentHashMap<>();
    List<CompletableFuture<Integer>> calls = new ArrayList<>();
    CountDownLatch inFlight = new CountDownLatch(1);
    CountDownLatch othersSubmitted = new CountDownLatch(1);

    // The first thread's call starts and, while it is in flight, the others submit theirs and
    // go away: they never come back to the engine.
    CompletableFuture<CompletableFuture<Integer>> first = new CompletableFuture<>();
    Thread firstThread = new Thread(() -> {
      InstantExchange exchange = new InstantExchange(othersSentBy, () -> {
        inFlight.countDown();
        awaitUninterruptibly(othersSubmitted);
      });
      first.complete(engine.execute(exchange));
    }, "first");
    firstThread.start();
    inFlight.await();
    List<Thread> submitters = new ArrayList<>();
    List<CompletableFuture<Integer>> submitted = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < others; t++) {
      Thread submitter = new Thread(() -> {
        InstantExchange exchange = new InstantExchange(othersSentBy, null);
        for (int i = 0; i < callsEach; i++) {
          submitted.add(engine.execute(exchange));
        }
      }, "submitter-" + t);
      submitters.add(submitter);
      submitter.start();
    }
    for (Thread submitter : submitters) {
      submitter.join();
    }
    assertThat(engine.snapshot().get(0).waiting()).isEqualTo(others * callsEach);

    // Its answer widens the opening, which starts the others' calls one answer after another;
    // the first thread sends its share of them and returns.
    othersSubmitted.countDown();
    firstThread.join();
    calls.add(first.join());
    calls.addAll(submitted);
    assertThat(calls.get(0)).isCompletedWithValue(200);
    assertThat(othersSentBy.getOrDefault(firstThread, new AtomicInteger()).get())
        .as("the other threads' calls the first thread sent besides its own one")
        .isLessThanOrEqualTo(Outbox.SHARE);

    // What it left, the timer sends, as their owners never come back.
    time.runDue();
    assertThat(calls).hasSize(1 + others * callsEach).allSatisfy(call -> assertThat(call).isCompletedWithValue(200));
    assertThat(engine.snapshot()).allSatisfy(host -> {
      assertThat(host.inFlight()).isZero();
      assertThat(host.waiting()).isZero();
    });
  }

  @Test
  void P13_threadsThatKeepSubmittingEachSendTheirOwnAndOfTheOthersAtMostAShareOfTheirOwn() throws Exception {
    VirtualTime time = VirtualTime.create();
    Hostpace engine = Hostpace.builder().clock(time).timer(time).limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).build();
    int threads = 4;
    int callsEach = 5_000;
    Map<Thread, AtomicInteger> othersSentBy = new ConcurrentHashMap<>();
    List<CompletableFuture<Integer>> calls = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicInteger overShare = new AtomicInteger();
    CountDownLatch ready = new CountDownLatch(threads);
    List<Thread> submitters = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread submitter = new Thread(() -> {
        InstantExchange exchange = new InstantExchange(othersSentBy, null);
        AtomicInteger others = othersSentBy.computeIfAbsent(Thread.currentThread(), thread -> new AtomicInteger());
        ready.countDown();
        awaitUninterruptibly(ready);
        for (int i = 0; i < callsEach; i++) {
          int ownBefore = exchange.sentByMaker.get();
          int othersBefore = others.get();
          calls.add(engine.execute(exchange));
          int own = exchange.sentByMaker.get() - ownBefore;
          if (others.get() - othersBefore > own * Outbox.SHARE) {
            overShare.incrementAndGet();
          }
        }
      }, "submitter-" + t);
      submitters.add(submitter);
      submitter.start();
    }
    for (Thread submitter : submitters) {
      submitter.join();
    }
    assertThat(overShare.get())
        .as("calls in which a thread sent more of the others' calls than its share of its own")
        .isZero();

    time.runDue(); // what threads that are done left, the timer sends
    assertThat(calls).hasSize(threads * callsEach).allSatisfy(call -> assertThat(call).isCompletedWithValue(200));
  }

  /** Waits for {@code latch}, whatever interrupts the thread: the test lets it go. */
  static void awaitUninterruptibly(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException e) {
        // the test waits for its own threads only
      }
    }
  }
}

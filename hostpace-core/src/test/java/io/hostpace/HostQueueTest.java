package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.HostStateStore;
import io.hostpace.testing.ScriptedExchange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A host queue's waiting calls (SPEC P1, T1): held in their order of arrival, a retry among the
 * later arrivals by its first one, the cancelled ones dropped as they reach the head.
 */
class HostQueueTest {

  final VirtualTime time = VirtualTime.create();
  final CallRules rules = new CallRules(time, time, 0, false, Duration.ZERO, RefusalStatuses.DEFAULT, false, null,
      CallRules.AfterOutcome.NONE, new EventLog(System.getLogger(HostQueueTest.class.getName()), time));
  final HostQueue queue = new HostQueue(new Node("h.test", false, HostStateStore.inMemory().open("h.test")),
      new QueueKey(Limits.inFlight(1), List.of(), 0), null, new GroupGate[0]);
  long arrivals;

  /** A waiting call that arrived now, its {@code seq} given (calls of the local path share one). */
  Call<Integer> call(long seq) {
    Call<Integer> call = new Call<>(rules, null, ScriptedExchange.statuses("http://h.test/").build(), "h.test",
        CallContext.DEFAULT, Trampoline.INSTANCE, null);
    call.seq = seq;
    call.arrival = ++arrivals;
    call.state = Call.State.WAITING;
    return call;
  }

  List<Call<?>> held() {
    List<Call<?>> held = new ArrayList<>();
    for (int i = 0; i < queue.held(); i++) {
      held.add(queue.heldAt(i));
    }
    return held;
  }

  @Test
  void P1_T1_callsWaitInTheirOrderOfArrivalAndARetryAheadOfThoseThatCameAfterIt() {
    Call<?> first = call(1);
    Call<?> second = call(3);
    Call<?> third = call(5);
    queue.add(first);
    queue.add(second);
    queue.add(third);
    assertThat(queue.head()).isSameAs(first);
    assertThat(queue.takeHead()).isSameAs(first);

    queue.add(first); // refused, and back in line by its first arrival
    assertThat(held()).containsExactly(first, second, third);
    Call<?> local = call(5); // the local path's seq, as the last one's: after it, by its arrival
    queue.add(local);
    assertThat(held()).containsExactly(first, second, third, local);

    second.state = Call.State.CANCELLED; // cancelled: dropped as it reaches the head
    assertThat(queue.takeHead()).isSameAs(first);
    assertThat(queue.head()).isSameAs(third);
    assertThat(held()).containsExactly(third, local);
    queue.clear();
    assertThat(queue.first()).isNull();
    assertThat(queue.poll()).isNull();
  }

  @Test
  void T1_aRetryAmongCallsThatShareItsSeqGoesByItsFirstArrival() {
    Call<?> early = call(4);
    Call<?> late = call(4); // both of the local path, between the same two calls of the lock
    queue.add(late); // the later one's retry came back first
    queue.add(early);
    assertThat(held()).containsExactly(early, late);
  }

  @Test
  void P1_T1_theWaitingCallsComeOutAsAHeapByArrivalWouldGiveThem() {
    // Random arrivals, retries of calls taken out, and heads taken, against a heap of the same
    // calls: the same call comes out first every time, while the array grows and moves its calls.
    Random random = new Random(7);
    PriorityQueue<Call<?>> heap = new PriorityQueue<>(Call.BY_ARRIVAL);
    List<Call<?>> taken = new ArrayList<>();
    long seq = 1;
    for (int step = 0; step < 20_000; step++) {
      int what = random.nextInt(10);
      if (what < 4) {
        if (random.nextInt(3) > 0) {
          seq += 2; // else the seq of the one before, as calls of the local path share theirs
        }
        Call<?> call = call(seq);
        queue.add(call);
        heap.add(call);
      } else if (what < 5 && !taken.isEmpty()) {
        Call<?> retry = taken.remove(random.nextInt(taken.size()));
        queue.add(retry);
        heap.add(retry);
      } else if (!heap.isEmpty()) {
        Call<?> expected = heap.poll();
        assertThat(queue.takeHead()).as("step %d", step).isSameAs(expected);
        taken.add(expected);
      }
      assertThat(queue.held()).isEqualTo(heap.size());
      assertThat(queue.first()).isSameAs(heap.peek());
    }
  }
}

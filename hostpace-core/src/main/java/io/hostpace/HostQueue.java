package io.hostpace;

import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * The queue of one host for one set of limits (SPEC P1, P8): the requests waiting, ordered by
 * arrival (a retry keeps its first arrival, SPEC T1), its places in flight and its rate, and the
 * group gates its requests must also pass. Every request in a queue passes the same limiters,
 * so only the head can be the next to start.
 *
 * <p>Waiting requests leave by cancellation lazily: a cancelled call stays in {@code waiting}
 * until it reaches the head, and {@code live} counts those that still wait. Guarded by the
 * engine's lock.
 */
final class HostQueue extends Limiter {

  final QueueKey queueKey;
  final GroupGate[] gates;
  final PriorityQueue<Call<?>> waiting = new PriorityQueue<>(4, Call.BY_ARRIVAL);
  /** Calls waiting and not cancelled. */
  int live;
  /** Calls attached to this queue in any state: waiting, in flight, or between attempts. */
  int users;
  /** The time a wake-up is registered for, when {@link #wakeRegistered}. */
  long wakeAt;
  boolean wakeRegistered;
  /** The pump round that last took this queue in; see {@code Scheduler.pump}. */
  long pumpRound = -1;
  /** Its claim of a start from the engine's fleet (SPEC S2); null until the fleet paces it. */
  @Nullable StartClaim startClaim;

  HostQueue(Node node, QueueKey queueKey, @Nullable RateState rate, GroupGate[] gates) {
    super(node, queueKey.host(), rate, queueKey.fleetInFlight());
    this.queueKey = queueKey;
    this.gates = gates;
  }

  /** Counts {@code counter} for the queue's host and each of its groups. */
  void count(Node.Counter counter) {
    node.count(counter);
    for (GroupGate gate : gates) {
      gate.node.count(counter);
    }
  }

  /** The first call still waiting, dropping the cancelled ones before it. */
  @Nullable Call<?> head() {
    Call<?> head = waiting.peek();
    while (head != null && head.state != Call.State.WAITING) {
      waiting.poll();
      head = waiting.peek();
    }
    return head;
  }

  @Override
  public String toString() {
    return node.key + queueKey.host();
  }
}

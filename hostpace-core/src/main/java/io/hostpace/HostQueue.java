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
  /** The pump round that last took this queue in; see {@code Scheduler.pump}. */
  long pumpRound = -1;
  /**
   * Whether the queue is in a gate's index, under the arrival of which head, and in whose: while a
   * gate holds its head back, in that gate's alone ({@code indexedIn}), as only that gate's
   * release or wake-up can let it start, so that another gate's walks never pass over it; while
   * the fleet's places do, in each of its gates' ({@code indexedIn} null), as the fleet's answer
   * about any of its groups walks that group's gates; not while its own limits do (see
   * {@code Scheduler}).
   */
  boolean indexed;
  long indexedSeq;
  @Nullable GroupGate indexedIn;
  /** The gate whose walk took the queue into the current pump, if one did. */
  @Nullable GroupGate walkedFrom;
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

  /**
   * Puts the queue under its head in the index of {@code holder}, the gate that holds the head
   * back, or in each of its gates' when that is the fleet's places (null); or moves it there when
   * its head or holder changed.
   */
  void index(@Nullable GroupGate holder) {
    Call<?> head = head();
    if (head == null || indexed && indexedSeq == head.seq && indexedIn == holder) {
      return;
    }
    unindex();
    if (holder != null) {
      holder.byHead.put(head.seq, this);
    } else {
      for (GroupGate gate : gates) {
        gate.byHead.put(head.seq, this);
      }
    }
    indexed = true;
    indexedSeq = head.seq;
    indexedIn = holder;
  }

  /** Takes the queue out of the index or indexes it is in. */
  void unindex() {
    if (indexed) {
      GroupGate holder = indexedIn;
      if (holder != null) {
        holder.byHead.remove(indexedSeq);
      } else {
        for (GroupGate gate : gates) {
          gate.byHead.remove(indexedSeq);
        }
      }
      indexed = false;
      indexedIn = null;
    }
  }

  @Override
  public String toString() {
    return node.key + queueKey.host();
  }
}

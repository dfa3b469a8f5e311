package io.hostpace;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The queue of one host for one set of limits (SPEC P1, P8): the requests waiting, ordered by
 * arrival (a retry keeps its first arrival, SPEC T1), its places in flight and its rate, and the
 * group gates its requests must also pass. Every request in a queue passes the same limiters,
 * so only the head can be the next to start.
 *
 * <p>Waiting requests leave by cancellation lazily: a cancelled call stays in the queue until it
 * reaches the head, and {@code live} counts those that still wait. Guarded by the engine's lock.
 *
 * <p>The waiting calls are kept in order in an array of the queue's own, {@code calls[from]} the
 * oldest: calls arrive in order, each after the last (a call's {@code seq} grows with its
 * arrival), so one is added at the end with no call of the queue read, its {@code seq} compared
 * with the last one's, kept here; only a retry, which keeps its first arrival (SPEC T1), goes in
 * between, found by a binary search. A heap would compare a new call with waiting ones, and
 * reorder them as the head leaves: with many hosts those are calls no cache holds any more.
 */
final class HostQueue extends Limiter {

  final QueueKey queueKey;
  final GroupGate[] gates;
  private static final Call<?>[] NO_CALLS = new Call<?>[0];

  /**
   * The waiting calls, oldest first, at {@code calls[from]} to {@code calls[to - 1]}; null elsewhere.
   * Made with the first call that waits: most queues start every call at once.
   */
  private @Nullable Call<?>[] calls = NO_CALLS;
  private int from;
  private int to;
  /** The {@code seq} of {@code calls[to - 1]}, while any call waits. */
  private long lastSeq;
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
    Call<?> head = first();
    while (head != null && head.state != Call.State.WAITING) {
      poll();
      head = first();
    }
    return head;
  }

  /** Adds {@code call} to the waiting calls, in its order of arrival ({@link Call#BY_ARRIVAL}). */
  void add(Call<?> call) {
    if (to == calls.length) {
      makeRoom();
    }
    if (from == to || call.seq > lastSeq) {
      calls[to++] = call;
      lastSeq = call.seq;
      return;
    }
    int low = from;
    int high = to;
    while (low < high) { // the first waiting call that comes after it
      int mid = (low + high) >>> 1;
      if (Call.BY_ARRIVAL.compare(calls[mid], call) <= 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    System.arraycopy(calls, low, calls, low + 1, to - low);
    calls[low] = call;
    if (low == to++) {
      lastSeq = call.seq;
    }
  }

  /** The oldest waiting call, cancelled or not; null when none waits. */
  @Nullable Call<?> first() {
    return from == to ? null : calls[from];
  }

  /** Takes the oldest waiting call out, cancelled or not; null when none waits. */
  @Nullable Call<?> poll() {
    if (from == to) {
      return null;
    }
    Call<?> call = calls[from];
    calls[from++] = null;
    if (from == to) {
      from = to = 0;
    }
    return call;
  }

  /** Takes the head out: the oldest waiting call, which the caller found waiting. */
  Call<?> takeHead() {
    Call<?> call = poll();
    if (call == null) {
      throw new IllegalStateException("no call waits in " + this);
    }
    return call;
  }

  /** Lets go of every waiting call, cancelled or not. */
  void clear() {
    Arrays.fill(calls, from, to, null);
    from = to = 0;
  }

  /** How many calls the queue holds, cancelled or not. */
  int held() {
    return to - from;
  }

  /** The waiting call {@code i} of {@link #held}, oldest first, cancelled or not. */
  Call<?> heldAt(int i) {
    Call<?> call = calls[from + i];
    if (i < 0 || call == null) {
      throw new IndexOutOfBoundsException(i);
    }
    return call;
  }

  /**
   * Makes the array for the first call that waits; then moves the calls to its start, or to one
   * twice as long when more than half of it holds them.
   */
  private void makeRoom() {
    if (calls.length == 0) {
      calls = new Call<?>[4];
      return;
    }
    int n = to - from;
    if (2 * n > calls.length) {
      calls = Arrays.copyOfRange(calls, from, from + 2 * calls.length);
    } else {
      System.arraycopy(calls, from, calls, 0, n);
      Arrays.fill(calls, n, to, null);
    }
    from = 0;
    to = n;
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

package io.hostpace;

import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A host or a group as the engine holds it: what it taught ({@link HostState}, shared by all
 * its queues, SPEC P10), its queues (a host) or gates (a group) by limits, the rate spacings
 * still in force, and its counters. Held while anything in it is in use or still matters;
 * then dropped, so memory follows the hosts in use.
 *
 * <p>Guarded by the engine's lock once {@link #global}; before, by the node's own monitor, and
 * with it its queues and the calls in them ({@link LocalPath}).
 */
final class Node {

  private static final HostQueue[] NO_QUEUES = new HostQueue[0];

  final String key;
  final boolean group;
  /**
   * Whether the engine's lock guards the node, else its own monitor ({@link LocalPath}). Written
   * under both: set as anything of the lock's touches the node, cleared when the lock hands it back
   * with nothing of its own left in it; a local call reads it under the monitor.
   */
  volatile boolean global;
  /**
   * Whether a call of the {@link LocalPath} is in the node's monitor. Another thread that finds it
   * so takes the lock's way, which waits for the monitor once, rather than both threads taking
   * the monitor in turn for each of their calls: two threads calling one host at once then queue
   * on the engine's lock, which lets each run a while, where the monitor handed the host back and
   * forth on every call. Only a hint, read and written without the monitor's order.
   */
  volatile boolean busy;
  /** Set, under what guards the node, as it is let go: one found before that is looked up anew. */
  boolean dropped;
  final HostState state;
  /**
   * A host's queues, by their limits: the first in a field, the others (a host called with other
   * limits at once, rare) in an array after it, so that a host's usual one queue is found, taken up
   * and let go with no map, entry or array to write on each call. Ordered as they came.
   */
  private @Nullable HostQueue firstQueue;
  private HostQueue[] otherQueues = NO_QUEUES;
  private int queueCount;
  /**
   * A host's queue that its last call left, with nothing in it: the next call with its limits
   * takes it up again instead of a new one. It goes with the node; null when none.
   */
  @Nullable HostQueue spare;
  final Map<Limits, GroupGate> gates;
  /**
   * The spacings of its queues' rates by limits, made with the first: null when none, so that the
   * many hosts with no rate hold no map.
   */
  @Nullable Map<Limits, RateState> rates;
  /** The quota the learning rule set on {@link #state}; null when none. */
  @Nullable LearnedQuota quota;
  /** A host's requests in flight, over all its queues; 0 for a group (its gates count theirs). */
  int inFlight;
  /**
   * While a host nothing was known of is opened (SPEC P12), how many of its requests may be in
   * flight; 0 once the opening is over, or for a host that was known.
   */
  int opening;
  /**
   * During the opening, the most requests in flight with which an accepted one started; once above
   * 0, the host is known by what its opening was widened to, which the node keeps while it is idle
   * until what it taught is forgotten (SPEC P12, {@link Nodes#dropIfIdle}).
   */
  int openingAccepted;
  /**
   * Answers accepted since the opening last widened, once it is {@link Learning#OPENING_DOUBLES_UP_TO}
   * wide or more: from there it widens by one for as many accepted answers as it is wide.
   */
  int openingAnswers;
  /**
   * The host's starts when a refusal ended its opening, and when: a request whose {@code startSeq}
   * is not above it was started by the opening, before that end, even when in the same nanosecond.
   */
  long openedBefore;
  long openingEndedAt;
  /** How many calls have arrived at the host: each call's {@code hostArrival} is the count before it. */
  long arrivals;
  /**
   * How many calls had arrived at the host ({@link #arrivals}) when it last accepted one of its
   * requests: a call whose {@code hostArrival} is below it came before that acceptance, so the host
   * has accepted others since it came (SPEC R10). Written under what guards the node, read by a
   * call judging its answer; 0 before any.
   */
  volatile long acceptedSeq;
  /** When the host last accepted one of its requests, another process's too, once {@link #accepted}. */
  volatile long acceptedAt;
  /** Whether the host has accepted a request, here or (let go and made anew since) before. */
  volatile boolean accepted;
  /**
   * The host's requests started within {@link Scheduler#SAME_MOMENT} of {@link #recentAt}: an
   * answer that arrives that soon after they started was not in flight beside them at the server,
   * though the engine saw it only later. Null until the host's first start.
   */
  @Nullable ArrayList<Call<?>> recent;
  long recentAt;
  long starts;
  /** The quota the host last announced (SPEC R8); null until it announces one. */
  @Nullable AnnouncedBudget announced;
  long refusals;
  long retries;
  long gaveUps;
  /** What the node waits for from the fleet and holds of it (SPEC S2); null until it does. */
  @Nullable FleetState fleet;
  /** Whether the fleet was asked what it keeps of the node (SPEC S3), and whether its answer is still to come. */
  boolean recallAsked;
  boolean recalling;
  /** What this engine last kept of the node in the fleet, and when; null before it kept anything. */
  Fleet.@Nullable Kept kept;
  long keptAt;
  /** Whether a timer will look at this node again to drop it. */
  boolean cleanupScheduled;
  /** When, and its place among the looks added: guarded by the engine's {@link Looks}. */
  long lookAt;
  long lookSeq;

  Node(String key, boolean group, HostState state) {
    this.key = key;
    this.group = group;
    this.state = state;
    this.gates = group ? new HashMap<>(2) : Map.of();
  }

  /** Ends the host's opening (SPEC P12), and with it the count of answers toward its next widening. */
  void endOpening() {
    opening = 0;
    openingAnswers = 0;
  }

  /** The host's queue for {@code key}; null when none. */
  @Nullable HostQueue queue(QueueKey key) {
    int i = indexOf(key);
    return i < 0 ? null : queueAt(i);
  }

  /** Where the host's queue for {@code key} is, as {@link #queueAt} counts; -1 when none. */
  private int indexOf(QueueKey key) {
    for (int i = 0; i < queueCount; i++) {
      QueueKey held = queueAt(i).queueKey;
      if (held == key || held.equals(key)) {
        return i;
      }
    }
    return -1;
  }

  /** Adds {@code queue}, whose limits the host has no queue for yet. */
  void addQueue(HostQueue queue) {
    if (firstQueue == null) {
      firstQueue = queue;
    } else {
      if (queueCount - 1 == otherQueues.length) {
        otherQueues = Arrays.copyOf(otherQueues, Math.max(2, 2 * otherQueues.length));
      }
      otherQueues[queueCount - 1] = queue;
    }
    queueCount++;
  }

  /** Removes the host's queue for {@code key}, if any; the others keep their order. */
  void removeQueue(QueueKey key) {
    int i = indexOf(key);
    if (i < 0) {
      return;
    }
    if (i == 0) {
      firstQueue = queueCount > 1 ? otherQueues[0] : null;
      removeOther(0);
    } else {
      removeOther(i - 1);
    }
    queueCount--;
  }

  private void removeOther(int i) {
    int others = queueCount - 1;
    if (i < others) {
      System.arraycopy(otherQueues, i + 1, otherQueues, i, others - i - 1);
      otherQueues[others - 1] = null;
    }
  }

  /** How many queues the host has. */
  int queueCount() {
    return queueCount;
  }

  /** The host's queue {@code i}, of {@link #queueCount}, in the order they came. */
  HostQueue queueAt(int i) {
    HostQueue queue = i == 0 ? firstQueue : otherQueues[i - 1];
    if (queue == null) {
      throw new IndexOutOfBoundsException(i);
    }
    return queue;
  }

  /** The node's announced budget, made on first use. */
  AnnouncedBudget announced() {
    AnnouncedBudget budget = announced;
    if (budget == null) {
      budget = announced = new AnnouncedBudget();
    }
    return budget;
  }

  /** What a node counts of its requests, for snapshots. */
  enum Counter { REFUSALS, RETRIES, GAVE_UPS }

  void count(Counter counter) {
    switch (counter) {
      case REFUSALS -> refusals++;
      case RETRIES -> retries++;
      case GAVE_UPS -> gaveUps++;
    }
  }

  /** The node's {@link FleetState}, made on first use. */
  FleetState fleet() {
    FleetState state = fleet;
    if (state == null) {
      state = fleet = new FleetState();
    }
    return state;
  }

  @Override
  public String toString() {
    return key;
  }
}

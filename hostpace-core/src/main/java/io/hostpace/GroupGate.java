package io.hostpace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The limits of a {@code *.domain} group as one set of contexts gives them: places and a rate
 * that all hosts of the group share (SPEC P5, P6). Requests wait in their hosts' queues, not
 * here; the gate counts them, and indexes by their head's arrival the queues it holds back, so
 * that a freed place goes to the one that has waited longest (SPEC P7) without a look at the
 * others. Guarded by the engine's lock.
 */
final class GroupGate extends Limiter {

  /** The calls waiting behind this gate, in all its hosts' queues: what a snapshot shows. */
  int waiting;
  /**
   * The waiting queues behind this gate whose head this gate holds back, by the {@code seq} of
   * their head, and those the fleet's places hold (in each of their gates'); those another gate
   * or their own limits hold are not in it, so that a walk meets no head it must pass over for
   * another gate's sake more than once a hold. See {@code Scheduler}.
   */
  final HeadIndex<HostQueue> byHead = new HeadIndex<>();
  /** The pump round walking this gate, and the head the walk has reached; see {@code Scheduler.pump}. */
  long walkRound = -1;
  long walkedTo;
  /** Host queues that pass this gate. */
  int users;
  /**
   * For each other gate, how many of the host queues that pass this gate pass it too: when all of
   * them do, a head that gate holds back tells that it holds every head of this gate's index.
   */
  final Map<GroupGate, Integer> alongside = new HashMap<>(2);
  /**
   * The gates whose walk stopped at a head this gate holds back, all their queues passing this
   * gate: walked again when this gate is, as then its hold may end. Each once, by {@link #walkHeld}.
   */
  final ArrayList<GroupGate> heldWalks = new ArrayList<>(1);
  /** Whether this gate is in another gate's {@link #heldWalks}. */
  boolean walkHeld;

  /** A gate of {@code limits}; with {@code fleet}, its in-flight limit (given by key, as a group's always is) is the fleet's. */
  GroupGate(Node node, Limits limits, @Nullable RateState rate, boolean fleet) {
    super(node, limits, rate, fleet && limits.inFlight() != null ? limits.inFlight() : 0);
  }

  /** Whether every host queue that passes this gate passes {@code other} too. */
  boolean passesAllThrough(GroupGate other) {
    Integer both = alongside.get(other);
    return both != null && both == users;
  }

  /** Counts ({@code delta} 1) or uncounts (-1) a host queue that passes {@code gates}, in each one's {@link #alongside}. */
  static void passedTogether(GroupGate[] gates, int delta) {
    for (GroupGate gate : gates) {
      for (GroupGate other : gates) {
        if (other != gate && gate.alongside.merge(other, delta, Integer::sum) == 0) {
          gate.alongside.remove(other);
        }
      }
    }
  }

  @Override
  public String toString() {
    return node.key + limits;
  }
}

package io.hostpace;

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
   * The waiting queues behind this gate whose head its gates or the fleet hold back, by the
   * {@code seq} of their head; those their own limits hold are not in it. See {@code Scheduler}.
   */
  final HeadIndex<HostQueue> byHead = new HeadIndex<>();
  /** The pump round walking this gate, and the head the walk has reached; see {@code Scheduler.pump}. */
  long walkRound = -1;
  long walkedTo;
  /** Host queues that pass this gate. */
  int users;

  /** A gate of {@code limits}; with {@code fleet}, its in-flight limit (given by key, as a group's always is) is the fleet's. */
  GroupGate(Node node, Limits limits, @Nullable RateState rate, boolean fleet) {
    super(node, limits, rate, fleet && limits.inFlight() != null ? limits.inFlight() : 0);
  }

  @Override
  public String toString() {
    return node.key + limits;
  }
}

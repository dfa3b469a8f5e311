package io.hostpace;

import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The way of a call whose host needs nothing of the engine's lock: it starts at once and its answer
 * is accepted, so that its whole life touches its host's node and nothing shared. Such a call is
 * started and settled under its node's monitor, not the engine's lock, so that threads calling
 * different hosts do not wait on one another (nor on one lock's cache line). It does what the
 * {@link Scheduler} would do for it, to the same fields in the same order; everything else takes
 * the lock's way, and the node with it ({@link Node#global}), until the lock hands it back.
 *
 * <p>What takes the local path:
 * <ul>
 *   <li>The engine: no fleet, the in-memory store and one of the rules that ship (which keep what
 *       they learn in each host's state, so that hosts learn independently). The events a call
 *       makes here are the call's own ({@link Told}), told the listeners after the monitor, as the
 *       outbox tells them after the lock.
 *   <li>A submission: its queue has no gate, rate or fleet limit; its host's node is the local
 *       path's or new; nothing holds it back (a place free in its queue and its host's learned and
 *       opening limits; no pause, interval, quota or announced budget), so it starts at once; and
 *       {@link Scheduler#passable} (open, no calls left to take, no wake-up due).
 *   <li>An answer: accepted, ending the call (no refusal, retry, give-up or announced quota), on a
 *       node still the local path's, and {@link Scheduler#passable}.
 * </ul>
 * A call that would wait, a refusal, a retry, a cancellation, a timeout, a context with a gate, a
 * forget or anything else of the lock's takes the lock, which first takes the node from the local
 * path ({@link Nodes#adopt}, under the node's monitor): so the local path never holds a waiting
 * call, and nothing else it would have to pump. The lock hands the node back once nothing of its
 * own is left in it (nothing waiting, between attempts or to wake, no gate, rate or fleet); a node
 * made anew starts out the local path's.
 *
 * <p>Lock order: the engine's lock, then a node's monitor; the local path takes a monitor alone and
 * never the lock while holding one.
 */
final class LocalPath {

  /** What {@link #settle} answers: the lock's to settle; settled, the call live; the call was not live. */
  static final int NOT_TAKEN = 0;
  static final int LIVE = 1;
  static final int NOT_LIVE = 2;

  private final Scheduler scheduler;
  private final Nodes nodes;
  private final Learning learning;
  private final Clock clock;
  private final Outbox outbox;
  /** The heads this path has looked at: the {@link Scheduler}'s count of readiness checks, its share. */
  private final LongAdder readinessChecks = new LongAdder();

  LocalPath(Scheduler scheduler, Nodes nodes, Learning learning, Clock clock, Outbox outbox) {
    this.scheduler = scheduler;
    this.nodes = nodes;
    this.learning = learning;
    this.clock = clock;
    this.outbox = outbox;
  }

  /** Whether an engine so set up may take the local path: see the class comment. */
  static boolean allowed(@Nullable Fleet fleet, HostStateStore store, LearningRule rule) {
    return fleet == null && store == HostStateStore.inMemory()
        && (rule == LearningRule.hostpace() || rule == LearningRule.seed());
  }

  /** A call's events on the local path, when anybody listens: told after its host's monitor is let go. */
  final class Told implements Events {
    final List<HostpaceEvent> events = new ArrayList<>(4);

    @Override
    public boolean listens() {
      return true;
    }

    @Override
    public void emit(HostpaceEvent event) {
      events.add(event);
    }

    @Override
    public void ruleThrew(Object rule, Throwable failure) {
      ruleFailed(rule, failure);
    }
  }

  /** Where a call's events go when nobody listens: nowhere, and none is built. */
  private final Events silent = new Events() {
    @Override
    public boolean listens() {
      return false;
    }

    @Override
    public void emit(HostpaceEvent event) {
      throw new IllegalStateException("an event built for nobody: " + event);
    }

    @Override
    public void ruleThrew(Object rule, Throwable failure) {
      ruleFailed(rule, failure);
    }
  };

  /**
   * The learning rule threw on this path: logged at once, under the host's monitor, which no call
   * of another host waits on, and at most once a minute for each kind ({@link EventLog}). Only the
   * rules that ship take this path, so this is the engine's own fault if it ever comes.
   */
  private void ruleFailed(Object rule, Throwable failure) {
    outbox.log.ruleThrew(rule, failure);
  }

  /** What the call's decisions tell: a {@link Told} when anybody listens now, else {@link #silent}. */
  private Events events() {
    return outbox.listens() ? new Told() : silent;
  }

  /** Tells the listeners what {@code events} holds, after the monitor. */
  private void tell(Events events) {
    if (events instanceof Told told) {
      outbox.tell(told.events);
    }
  }

  long readinessChecks() {
    return readinessChecks.sum();
  }

  /**
   * Starts {@code call} at once and sends it, when it may take the local path (see the class
   * comment); false, having changed nothing, when it is the lock's.
   */
  boolean submit(Call<?> call, String hostKey, QueueKey key, int opening) {
    if (!key.gates().isEmpty() || key.host().rate() != null || key.fleetInFlight() > 0) {
      return false;
    }
    long now = clock.nanoTime();
    if (!scheduler.passable(now)) {
      return false;
    }
    while (true) {
      Node node = nodes.localNode(hostKey, opening, now);
      if (node == null) {
        return false;
      }
      if (node.busy) {
        return false; // another thread is in the node: the lock's way waits for it there
      }
      Events events = events();
      synchronized (node) {
        node.busy = true;
        try {
          if (node.dropped) {
            continue; // let go since it was found: looked up anew
          }
          if (node.global || !startsAtOnce(node, key)) {
            return false;
          }
          HostQueue queue = nodes.localQueue(node, key);
          queue.users++;
          call.queue = queue;
          call.seq = scheduler.localSeq();
          call.arrival = Trampoline.turn().arrivals++;
          call.hostArrival = node.arrivals++;
          readinessChecks.increment();
          call.state = Call.State.IN_FLIGHT;
          call.queuedAt = now;
          call.startedAt = now;
          Scheduler.takePlaces(queue, call, now);
          if (events.listens()) { // what the lock's enqueue and start tell
            events.emit(new HostpaceEvent.Queued(node.key, call.uri(), call.attempt, now));
            events.emit(new HostpaceEvent.Started(node.key, call.uri(), call.attempt, Duration.ZERO, now));
          }
        } finally {
          node.busy = false;
        }
      }
      tell(events);
      call.dispatch();
      outbox.handOverLeft(); // what answers settled on its way left, as a delivery would
      return true;
    }
  }

  /**
   * Whether a call of {@code node}'s queue for {@code key} starts at once: what the scheduler's
   * readiness finds for a queue without gate or rate, on a host the local path holds (no fleet,
   * nothing waiting), where only places, learned and opening limits, a pause, an interval and
   * quotas could hold it back.
   */
  private static boolean startsAtOnce(Node node, QueueKey key) {
    HostQueue queue = node.queue(key);
    if (queue != null && (queue.live > 0 || queue.full())) {
      return false;
    }
    if (queue == null) { // made anew, or its spare taken up: nothing in flight
      Integer cap = key.host().inFlight();
      if (cap != null && cap <= 0) {
        return false;
      }
    }
    HostState state = node.state;
    int learned = state.inFlightLimit();
    if (learned > 0 && node.inFlight >= learned || node.opening > 0 && node.inFlight >= node.opening) {
      return false;
    }
    return !state.paused() && state.interval() <= 0 && node.quota == null && node.announced == null
        && !node.recalling;
  }

  /**
   * Settles {@code call}'s accepted answer under its node's monitor, as {@link Scheduler#settle}
   * would (learned from before its place is let go, SPEC R5); {@link #NOT_TAKEN} when it is the
   * lock's.
   */
  int settle(Call<?> call, Verdict verdict) {
    HostQueue queue = call.queue;
    Node node = queue.node;
    if (node.global || verdict.refusal() || verdict.next() != Verdict.Next.DONE || verdict.quotaRemaining() >= 0) {
      return NOT_TAKEN;
    }
    long now = clock.nanoTime();
    if (!scheduler.passable(now)) {
      return NOT_TAKEN;
    }
    if (node.busy) {
      return NOT_TAKEN;
    }
    Events events = events();
    synchronized (node) {
      node.busy = true;
      try {
        if (node.global) {
          return NOT_TAKEN;
        }
        if (call.state != Call.State.IN_FLIGHT) {
          return NOT_LIVE;
        }
        node.acceptedSeq = node.arrivals; // accepted after every call of the host so far (SPEC R10)
        node.acceptedAt = now;
        node.accepted = true;
        learning.learn(call, verdict, now, events);
        queue.inFlight--;
        Scheduler.uncount(node, call, now);
        Scheduler.letGoQuota(queue, call);
        call.state = Call.State.DONE;
        nodes.left(queue, now);
      } finally {
        node.busy = false;
      }
    }
    tell(events);
    return LIVE;
  }
}

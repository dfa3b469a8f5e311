package io.hostpace;

import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The hosts and groups the engine holds, and their queues and gates: made when a call first needs
 * them, let go when nothing of them matters any more, so that memory follows the hosts in use
 * (SPEC P10). A node is let go once it has no queue or gate, no pause or rate spacing ahead, and
 * what it taught is forgotten, which it is once it has started nothing for {@code forgetIdleAfter};
 * when only time stands in the way, it is looked at again then ({@link Looks}, one timer task for
 * all such nodes).
 *
 * <p>Example: a host answers its one request at 2 s and teaches an interval; its queue is let go
 * at once, the node kept, and with the default hour it is forgotten and let go at 3602 s. A host
 * whose first contact (SPEC P12) was widened by accepted answers is kept so too, with its opening.
 * While a node is kept, its last queue without a rate or a gate stays with it, empty, as its
 * {@link Node#spare}: the host's next call with the same limits takes it up, so a host called now
 * and then makes no queue for each call; the spare goes with the node.
 *
 * <p>Guarded by the engine's lock: called under it, and its looks come back in through
 * {@code underLock}, the engine's way of running a change under its lock. The one exception is
 * the {@link LocalPath}: it finds and makes nodes without the lock ({@link #localNode}) and lets
 * them go under their own monitor; so the map of nodes is a concurrent one, and a node the lock's
 * side meets that is not {@link Node#global} yet is made so first ({@link #adopt}).
 */
final class Nodes {

  private static final GroupGate[] NO_GATES = {};

  private final Map<String, Node> byKey = new ConcurrentHashMap<>();
  /**
   * When hosts let go had last accepted a request, the most recent {@value #ACCEPTED_KEPT}: a
   * call that comes soon after its host was let go is spared by those acceptances as by any
   * (SPEC R10), though the node that heard them is gone. Guarded by its own monitor, as the local
   * path reaches it too.
   */
  private final Map<String, Long> lastAccepted = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
      return size() > ACCEPTED_KEPT;
    }
  };
  static final int ACCEPTED_KEPT = 1024;
  private final HostStateStore store;
  private final Clock clock;
  /** When kept nodes are looked at again: one timer task for all of them. */
  private final Looks looks;
  private final long forgetIdleAfter;
  /** How many in flight a host nothing is known of opens with (SPEC P12); 0 when the engine opens none gently. */
  private final int opening;
  /** This run's retry delay limit, which holds what a store opened (SPEC S1). */
  private final long retryDelayLimit;
  private final Outbox outbox;
  private final boolean fleet;
  /** Asks the fleet what it keeps of a node the engine meets (SPEC S3); null when the fleet keeps nothing. */
  private @Nullable FleetMemory memory;

  Nodes(HostStateStore store, Clock clock, Timer timer, Duration forgetIdleAfter, int opening,
      Duration retryDelayLimit, Outbox outbox, Consumer<Runnable> underLock, boolean fleet) {
    this.store = store;
    this.clock = clock;
    this.looks = new Looks(clock, timer, underLock, this::lookAgain);
    this.forgetIdleAfter = forgetIdleAfter.toNanos();
    this.opening = opening;
    this.retryDelayLimit = retryDelayLimit.toNanos();
    this.outbox = outbox;
    this.fleet = fleet;
  }

  /** From now on, a node the engine meets is first read from the fleet through {@code memory} (SPEC S3). */
  void recallFrom(FleetMemory memory) {
    this.memory = memory;
  }

  /**
   * A node a queue or gate is about to use: unless done, asks the fleet what it keeps of it, and
   * its queues start nothing until the answer (SPEC S3).
   */
  private void meet(Node node) {
    FleetMemory memory = this.memory;
    if (memory != null && !node.recallAsked) {
      node.recallAsked = true;
      memory.met(node);
    }
  }

  /** The node of {@code key}, adopted by the engine's lock, or null when the engine holds none. */
  @Nullable Node get(String key) {
    while (true) {
      Node node = byKey.get(key);
      if (node == null || adopt(node)) {
        return node;
      }
    }
  }

  /**
   * Makes {@code node} the engine's lock's to guard, waiting for a local call on it to end; false
   * when the local path let it go meanwhile (then it is to be looked up anew). Under the lock.
   */
  static boolean adopt(Node node) {
    if (node.global) {
      return true;
    }
    synchronized (node) {
      if (node.dropped) {
        return false;
      }
      node.global = true;
      return true;
    }
  }

  /** Every node the engine holds. */
  Collection<Node> all() {
    return byKey.values();
  }

  /** Whether the engine still holds {@code node}: it was not let go (and perhaps made anew) meanwhile. */
  boolean holds(Node node) {
    return byKey.get(node.key) == node;
  }

  /**
   * The node of {@code key}, made from what the store knows of it when the engine holds none: held
   * to this run's limits (SPEC S1), and holding a quota it knows from the first start.
   */
  Node node(String key, boolean group, long now) {
    while (true) {
      Node node = get(key);
      if (node != null) {
        return node;
      }
      node = made(key, group, now);
      node.global = true;
      if (byKey.putIfAbsent(key, node) == null) {
        welcome(node, now, true);
        return node;
      }
      store.close(node.state); // the local path made it first: that one is adopted
    }
  }

  /** A node for {@code key} made from what the store knows of it, not yet in the map. */
  private Node made(String key, boolean group, long now) {
    HostState state = store.open(key);
    OpenedState.holdToLimits(state, now, retryDelayLimit);
    Node node = new Node(key, group, state);
    node.quota = LearnedQuota.opened(state.quotaPermits(), state.quotaWindow(), now);
    return node;
  }

  /**
   * {@code node} was put in the map: it hears what a host let go had last accepted, and, when
   * {@code told} (under the engine's lock), the listener what the store knew.
   */
  private void welcome(Node node, long now, boolean told) {
    Long acceptedAt;
    synchronized (lastAccepted) {
      acceptedAt = lastAccepted.remove(node.key);
    }
    if (acceptedAt != null) {
      node.acceptedAt = acceptedAt;
      node.accepted = true;
    }
    if (told && outbox.listens()) {
      heardFromStore(node, now);
    }
  }

  /**
   * For the {@link LocalPath}, without the engine's lock: the host node of {@code key}, made and
   * opened with {@code opening} (as {@link #queue} does) when the engine holds none; null when the
   * engine's lock guards it. The caller takes its monitor and checks it is not {@link Node#dropped}.
   */
  @Nullable Node localNode(String key, int opening, long now) {
    Node node = byKey.get(key);
    if (node == null) {
      Node made = made(key, false, now);
      if (opening > 0 && knowsNothing(made.state)) {
        made.opening = opening;
      }
      synchronized (made) { // nobody uses it before it is welcomed
        node = byKey.putIfAbsent(key, made);
        if (node == null) {
          welcome(made, now, false); // the local path's in-memory store opens states that know nothing
          return made;
        }
      }
      store.close(made.state);
    }
    return node.global ? null : node;
  }

  /**
   * For the {@link LocalPath}, under {@code node}'s monitor: its queue for {@code key}, which has
   * no gate and no rate, taken up from its spare or made.
   */
  HostQueue localQueue(Node node, QueueKey key) {
    HostQueue queue = node.queue(key);
    if (queue == null && node.spare != null && node.spare.queueKey.equals(key)) {
      queue = node.spare;
      node.spare = null;
      node.addQueue(queue);
    }
    if (queue == null) {
      queue = new HostQueue(node, key, null, NO_GATES);
      node.addQueue(queue);
    }
    return queue;
  }

  /**
   * A state the store opened knowing something (kept from another run, SPEC S1, or shared): the
   * listener hears it as learned now, as if taught, so that what it shows is what the host goes by.
   */
  private void heardFromStore(Node node, long now) {
    HostState state = node.state;
    if (state.interval() > 0) {
      outbox.emit(new HostpaceEvent.IntervalChanged(node.key, Duration.ZERO, Duration.ofNanos(state.interval()), now));
    }
    if (state.inFlightLimit() > 0) {
      outbox.emit(new HostpaceEvent.InFlightLimitChanged(node.key, 0, state.inFlightLimit(), now));
    }
    if (node.quota != null) {
      outbox.emit(new HostpaceEvent.QuotaChanged(node.key, null, Learning.quotaOf(node.quota), now));
    }
    if (state.paused() && state.pausedUntil() - now > 0) {
      outbox.emit(new HostpaceEvent.Paused(node.key, Duration.ofNanos(state.pausedUntil() - now), now));
    }
  }

  /**
   * The queue of {@code hostKey} for {@code key}, made with its gates when missing. A host node
   * made here opens with {@code opening} requests in flight (SPEC P12) when nothing is known of it:
   * its state, as the store opened it, knows nothing; {@code opening} is 0 when the host was told
   * limits by key or by a group, or the rule opens with the whole burst.
   */
  HostQueue queue(String hostKey, QueueKey key, int opening, long now) {
    Node node = get(hostKey);
    if (node == null) {
      node = node(hostKey, false, now);
      if (opening > 0 && knowsNothing(node.state)) {
        node.opening = opening;
      }
    }
    meet(node);
    HostQueue queue = node.queue(key);
    if (queue == null && node.spare != null && node.spare.queueKey.equals(key)) {
      queue = node.spare; // empty: its calls left it, and its waiting list is cleared as the last leaves
      node.spare = null;
      node.addQueue(queue);
    }
    if (queue == null) {
      List<GateKey> gateKeys = key.gates();
      GroupGate[] gates = new GroupGate[gateKeys.size()];
      for (int i = 0; i < gates.length; i++) {
        gates[i] = gate(gateKeys.get(i), now);
        gates[i].users++;
      }
      GroupGate.passedTogether(gates, 1);
      queue = new HostQueue(node, key, rate(node, key.host()), gates);
      node.addQueue(queue);
    }
    return queue;
  }

  /** Whether {@code state} holds nothing a host taught: no pause, interval, in-flight limit, quota, nor the rule's memory. */
  private static boolean knowsNothing(HostState state) {
    return !state.paused() && state.interval() == 0 && state.inFlightLimit() == 0 && state.quotaPermits() == 0
        && state.memory() == null;
  }

  private GroupGate gate(GateKey key, long now) {
    Node node = node(key.group(), true, now);
    meet(node);
    GroupGate gate = node.gates.get(key.limits());
    if (gate == null) {
      gate = new GroupGate(node, key.limits(), rate(node, key.limits()), fleet);
      node.gates.put(key.limits(), gate);
    }
    return gate;
  }

  private static @Nullable RateState rate(Node node, Limits limits) {
    Rate rate = limits.rate();
    if (rate == null) {
      return null;
    }
    Map<Limits, RateState> rates = node.rates;
    if (rates == null) {
      rates = node.rates = new HashMap<>(2);
    }
    RateState state = rates.get(limits);
    if (state == null) {
      state = new RateState(limits, rate);
      rates.put(limits, state);
    }
    state.users++;
    return state;
  }

  /** A call of {@code queue} left it for good; the queue, its gates and its nodes go when nothing holds them. */
  void left(HostQueue queue, long now) {
    if (--queue.users > 0) {
      return;
    }
    Node node = queue.node;
    node.removeQueue(queue.queueKey);
    queue.wakeRegistered = false;
    if (!fleet && queue.gates.length == 0 && queue.rate == null) {
      // Kept for the host's next call, which an idle host then queues without making anything;
      // a queue that holds a rate, a gate or a fleet's claim is made anew, as they are let go.
      node.spare = queue;
    }
    letGo(node, queue.rate, now);
    GroupGate.passedTogether(queue.gates, -1);
    for (GroupGate gate : queue.gates) {
      if (--gate.users == 0) {
        gate.node.gates.remove(gate.limits);
        gate.wakeRegistered = false;
        letGo(gate.node, gate.rate, now);
        dropIfIdle(gate.node, now);
      }
    }
    dropIfIdle(node, now);
  }

  private static void letGo(Node node, @Nullable RateState rate, long now) {
    Map<Limits, RateState> rates = node.rates;
    if (rate != null && --rate.users == 0 && !rate.mattersAt(now) && rates != null) {
      rates.remove(rate.limits);
      if (rates.isEmpty()) {
        node.rates = null;
      }
    }
  }

  /**
   * Drops {@code node} when nothing of it matters any more: no queue or gate, no pause or rate
   * spacing still ahead, and what it taught (a learned interval, in-flight limit or quota)
   * forgotten, which it is once the node has started nothing for {@code forgetIdleAfter}. When
   * only time stands in the way, looks again then.
   */
  void dropIfIdle(Node node, long now) {
    if (node.queueCount() > 0 || !node.gates.isEmpty()) {
      return;
    }
    HostState state = node.state;
    long forgetAt = now;
    // What a host that started nothing here learned (from the fleet's lessons, or a store) does not
    // hold it: it is let go with the node, not forgotten (the store keeps what it kept). An opening
    // its accepted answers widened is taught too (SPEC P12): the host is known, and met again before
    // the forget time it opens at that width, not at one as a host nothing is known of.
    if (state.started()
        && (state.interval() > 0 || state.inFlightLimit() > 0 || node.quota != null || node.openingAccepted > 0)) {
      forgetAt = state.lastStart() + forgetIdleAfter;
      if (forgetAt - now <= 0) {
        state.interval(0, now);
        state.inFlightLimit(0);
        state.quota(0, 0);
        state.memory(null);
        node.quota = null;
        if (node.openingAccepted > 0) { // known by its opening alone no more: opened anew when met again
          node.openingAccepted = 0;
          node.opening = opening;
        }
      }
    }
    Map<Limits, RateState> rates = node.rates;
    if (rates != null) {
      rates.values().removeIf(rate -> rate.users == 0 && !rate.mattersAt(now));
      if (rates.isEmpty()) {
        rates = node.rates = null;
      }
    }
    long until = forgetAt;
    boolean waitFor = forgetAt - now > 0;
    if (state.paused()) {
      if (state.pausedUntil() - now > 0) {
        waitFor = true;
        until = later(until, state.pausedUntil());
      } else {
        state.clearPause();
      }
    }
    if (rates != null) {
      for (RateState rate : rates.values()) {
        waitFor = true;
        until = later(until, rate.expiresAt());
      }
    }
    AnnouncedBudget announced = node.announced;
    if (announced != null && announced.keepsIdle(now, node.starts)) {
      waitFor = true; // an announced quota with few left holds until its reset (SPEC R8)
      until = later(until, announced.resetAt());
    }
    if (waitFor) {
      if (!node.cleanupScheduled) {
        node.cleanupScheduled = true;
        looks.add(node, until, now);
      }
      return;
    }
    if (byKey.remove(node.key, node)) {
      node.dropped = true;
      store.close(state);
      if (node.accepted) {
        synchronized (lastAccepted) {
          lastAccepted.put(node.key, node.acceptedAt);
        }
      }
    }
  }

  private static long later(long a, long b) {
    return b - a > 0 ? b : a;
  }

  /** The timer's look at {@code node}, under the engine's lock, and its own monitor while the local path guards it. */
  private void lookAgain(Node node) {
    synchronized (node) {
      node.cleanupScheduled = false;
      if (holds(node)) {
        dropIfIdle(node, clock.nanoTime());
      }
    }
  }
}

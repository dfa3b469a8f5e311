package io.hostpace;

import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Decides which waiting requests start, and learns from what hosts answer. All of it is
 * arithmetic under one lock; nothing here waits. What the decisions set in motion (sending an
 * attempt, telling a listener) happens after the lock is let go.
 *
 * <h2>The model</h2>
 * A request waits in a {@link HostQueue}: one per host and set of limits its context gives
 * (SPEC P8). To start, it must pass every {@link Limiter} on its way: its queue's places and
 * rate, then each {@link GroupGate} of the {@code *.domain} groups its host is in (SPEC P6);
 * and the host and each group must be ready by what they taught: not paused, and their learned
 * interval passed since their last start ({@link HostState}, shared by all of a key's queues,
 * SPEC P10).
 *
 * <p>Since every request of a queue passes the same limiters, only a queue's head can be next.
 * After each event the affected queues are <em>pumped</em>: repeatedly, of the heads that can
 * start now, the one that arrived first starts (SPEC P7: across hosts, in arrival order). A head
 * held back by time (a rate, a pause, an interval) registers a wake-up; one held back by places
 * waits for a release, which pumps every queue behind the limiter that freed a place.
 *
 * <p>Invariant, after every locked section: no waiting head could start now, except one whose
 * wake-up is due and about to run. That is why an arrival in a queue that already has requests
 * waiting needs no pump at all: its head could not start, and it cannot start before its head.
 *
 * <p>Example: {@code *.wikidata.org} has 1 place, {@code query.wikidata.org} and
 * {@code commons.wikidata.org} each have requests waiting, the oldest in commons. When the one
 * in flight is answered, both queues are pumped, and commons' head, being older, takes the
 * place, though query's requests keep arriving.
 */
final class Scheduler {

  /** A group and the limits a context gives it: the identity of a {@link GroupGate}. */
  record GateKey(String group, Limits limits) {}

  /**
   * The limits a context gives a host and its groups: the identity of a {@link HostQueue}.
   * {@code fleetInFlight} is the host's in-flight limit when it was given for the host by key (not
   * for every host, nor built in) and the engine has a fleet: the fleet's processes hold no more
   * than it together (SPEC S2); else 0.
   */
  record QueueKey(Limits host, List<GateKey> gates, int fleetInFlight) {
    QueueKey(Limits host, List<GateKey> gates) {
      this(host, gates, 0);
    }
  }

  /** A queue's registered wake-up; stale when the queue has since registered another. */
  private record Wake(long at, HostQueue queue) {}

  /** Answers and starts this close are taken as one moment; see {@link #uncount}. */
  static final long SAME_MOMENT = 1_000_000L;

  private static final Comparator<HostQueue> BY_HEAD =
      Comparator.comparingLong(queue -> queue.waiting.peek().seq);

  final ReentrantLock lock = new ReentrantLock();
  private final Clock clock;
  private final Timer timer;
  private final HostStateStore store;
  private final LearningRule rule;
  private final long retryDelayLimit;
  private final long forgetIdleAfter;
  private final @Nullable HostpaceListener listener;
  /** The processes this engine shares what hosts teach with (SPEC S2), or null. */
  private final @Nullable Fleet fleet;
  /** The fleet's claims of starts and places (SPEC S2); null without a fleet. */
  private final @Nullable FleetClaims claims;

  // @GuardedBy("lock")
  private final Map<String, Node> nodes = new HashMap<>();
  // @GuardedBy("lock")
  private long nextSeq;
  // @GuardedBy("lock"): marks the queues already taken into the current pump
  private long pumpRound;
  // @GuardedBy("lock")
  private final PriorityQueue<Wake> wakes =
      new PriorityQueue<>((a, b) -> Long.compare(a.at - b.at, 0));
  // @GuardedBy("lock")
  private Timer.@Nullable Cancellable armed;
  // @GuardedBy("lock")
  private long armedAt;
  // @GuardedBy("lock"): what the decisions of the current locked section set in motion
  private final ArrayList<Call<?>> started = new ArrayList<>();
  // @GuardedBy("lock")
  private final ArrayList<HostpaceEvent> events = new ArrayList<>();
  // @GuardedBy("lock"): the candidates of the last release; see release()
  private final Set<HostQueue> releaseCandidates = new LinkedHashSet<>();
  // @GuardedBy("lock"): scratch of readiness(), to return two values without allocating
  boolean blockedByPlaces;
  // @GuardedBy("lock")
  private long readyAt;

  Scheduler(
      Clock clock,
      Timer timer,
      HostStateStore store,
      LearningRule rule,
      Duration retryDelayLimit,
      Duration forgetIdleAfter,
      @Nullable HostpaceListener listener,
      @Nullable Fleet fleet) {
    this.clock = clock;
    this.timer = timer;
    this.store = store;
    this.rule = rule;
    this.retryDelayLimit = retryDelayLimit.toNanos();
    this.forgetIdleAfter = forgetIdleAfter.toNanos();
    this.listener = listener;
    this.fleet = fleet;
    this.claims = fleet == null ? null : new FleetClaims(this, fleet, clock, timer);
    if (fleet != null) {
      fleet.listen(this::heard); // the engine lives as long as the fleet; closing the fleet ends it
    }
  }

  // ---------------------------------------------------------------- the calls' transitions

  /** A new call enters the queue of {@code hostKey} for {@code key}. */
  void submit(Call<?> call, String hostKey, QueueKey key) {
    lock.lock();
    try {
      long now = clock.nanoTime();
      HostQueue queue = queue(hostKey, key);
      queue.users++;
      call.queue = queue;
      call.seq = nextSeq++;
      enqueue(call, now, true);
    } finally {
      unlockAndDeliver();
    }
  }

  /**
   * An attempt was answered. Learns from the answer before its place is let go (SPEC R5), then
   * retries, parks or ends the call as {@code verdict} says.
   *
   * @return false when the call was cancelled meanwhile: the caller lets the response go
   */
  boolean settle(Call<?> call, Verdict verdict) {
    lock.lock();
    try {
      if (call.state != Call.State.IN_FLIGHT) {
        return false;
      }
      long now = clock.nanoTime();
      HostQueue queue = call.queue;
      learn(call, verdict, now);
      Set<HostQueue> candidates = release(call, now);
      switch (verdict.next()) {
        case RETRY -> {
          count(queue, Counter.RETRIES);
          call.attempt++;
          if (listener != null) {
            emit(new HostpaceEvent.Retried(queue.node.key, call.uri(), call.attempt, Duration.ZERO, now));
          }
          enqueue(call, now, false);
          candidates.add(queue);
        }
        case RETRY_LATER -> {
          count(queue, Counter.RETRIES);
          call.attempt++;
          long delay = verdict.delayNanos();
          if (listener != null) {
            emit(new HostpaceEvent.Retried(queue.node.key, call.uri(), call.attempt, Duration.ofNanos(delay), now));
          }
          call.state = Call.State.PARKED;
          call.parked = timer.schedule(() -> unpark(call), delay);
        }
        case GIVE_UP -> {
          count(queue, Counter.GAVE_UPS);
          if (listener != null) {
            emit(new HostpaceEvent.GaveUp(
                queue.node.key, call.uri(), call.attempt, verdict.status(), verdict.reason(), now));
          }
          finish(call, Call.State.DONE, now);
        }
        case DONE -> finish(call, Call.State.DONE, now);
      }
      pump(candidates, now);
      return true;
    } finally {
      unlockAndDeliver();
    }
  }

  /**
   * An attempt failed without an answer: a timeout or a network failure, which teaches
   * nothing (SPEC R6).
   *
   * @return false when the call was cancelled meanwhile
   */
  boolean fail(Call<?> call) {
    lock.lock();
    try {
      if (call.state != Call.State.IN_FLIGHT) {
        return false;
      }
      long now = clock.nanoTime();
      Set<HostQueue> candidates = release(call, now);
      finish(call, Call.State.DONE, now);
      pump(candidates, now);
      return true;
    } finally {
      unlockAndDeliver();
    }
  }

  /**
   * The caller gave up on the call (SPEC T5): it leaves its queue if it waits, and frees its
   * place if it holds one. It frees nothing it does not hold.
   */
  void cancel(Call<?> call) {
    lock.lock();
    try {
      long now = clock.nanoTime();
      switch (call.state) {
        case WAITING -> {
          HostQueue queue = call.queue;
          call.state = Call.State.CANCELLED;
          leaveWaiting(queue);
          finish(call, Call.State.CANCELLED, now);
        }
        case IN_FLIGHT -> {
          Set<HostQueue> candidates = release(call, now);
          finish(call, Call.State.CANCELLED, now);
          pump(candidates, now);
        }
        case PARKED -> {
          Timer.Cancellable parked = call.parked;
          if (parked != null) {
            parked.cancel();
          }
          finish(call, Call.State.CANCELLED, now);
        }
        default -> {
          // DONE or CANCELLED already: nothing held.
        }
      }
    } finally {
      unlockAndDeliver();
    }
  }

  private void unpark(Call<?> call) {
    lock.lock();
    try {
      if (call.state == Call.State.PARKED) {
        call.parked = null;
        enqueue(call, clock.nanoTime(), true);
      }
    } finally {
      unlockAndDeliver();
    }
  }

  // ---------------------------------------------------------------- forgetting

  /** Clears what {@code key} taught: its pause and interval (SPEC R7). */
  void forget(String key) {
    lock.lock();
    try {
      Node node = nodes.get(key);
      if (node != null) {
        forget(node);
      }
    } finally {
      unlockAndDeliver();
    }
  }

  /** Clears what every host and group taught (SPEC R7). */
  void forgetAll() {
    lock.lock();
    try {
      for (Node node : List.copyOf(nodes.values())) {
        forget(node);
      }
    } finally {
      unlockAndDeliver();
    }
  }

  private void forget(Node node) {
    long now = clock.nanoTime();
    node.state.clearPause();
    node.state.interval(0, now);
    node.state.inFlightLimit(0);
    node.state.quota(0, 0);
    node.quota = null;
    node.state.memory(null);
    node.announcedRemaining = -1;
    Set<HostQueue> candidates = new LinkedHashSet<>();
    if (node.group) {
      for (GroupGate gate : node.gates.values()) {
        candidates.addAll(gate.waitingQueues);
      }
    } else {
      candidates.addAll(node.queues.values());
    }
    pump(candidates, now);
    dropIfIdle(node, now);
  }

  // ---------------------------------------------------------------- snapshot

  List<HostSnapshot> snapshot() {
    lock.lock();
    try {
      long now = clock.nanoTime();
      List<HostSnapshot> hosts = new ArrayList<>(nodes.size());
      for (Node node : nodes.values()) {
        int inFlight = 0;
        int waiting = 0;
        int queues;
        if (node.group) {
          queues = node.gates.size();
          for (GroupGate gate : node.gates.values()) {
            inFlight += gate.inFlight;
            for (HostQueue queue : gate.waitingQueues) {
              waiting += queue.live;
            }
          }
        } else {
          queues = node.queues.size();
          for (HostQueue queue : node.queues.values()) {
            inFlight += queue.inFlight;
            waiting += queue.live;
          }
        }
        HostState state = node.state;
        long pausedFor = state.paused() ? Math.max(0, state.pausedUntil() - now) : 0;
        hosts.add(new HostSnapshot(
            node.key, node.group, queues, inFlight, waiting,
            Duration.ofNanos(pausedFor), Duration.ofNanos(state.interval()), state.inFlightLimit(),
            quotaOf(node.quota),
            node.starts, node.refusals, node.retries, node.gaveUps));
      }
      hosts.sort(Comparator.comparing(HostSnapshot::key));
      return hosts;
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- queues and pumping

  /** Puts {@code call} in its queue; pumps the queue when the call is its new head and {@code pump}. */
  private void enqueue(Call<?> call, long now, boolean pump) {
    HostQueue queue = call.queue;
    call.state = Call.State.WAITING;
    call.queuedAt = now;
    Call<?> headBefore = queue.live == 0 ? null : queue.head();
    queue.waiting.add(call);
    if (queue.live++ == 0) {
      for (GroupGate gate : queue.gates) {
        gate.waitingQueues.add(queue);
      }
    }
    if (listener != null) {
      emit(new HostpaceEvent.Queued(queue.node.key, call.uri(), call.attempt, now));
    }
    if (pump && (headBefore == null || call.seq < headBefore.seq)) {
      pump(Set.of(queue), now);
    }
  }

  /**
   * Starts, of the heads of {@code candidates} and of the queues whose wake-up is due, the
   * oldest that can start, until none can.
   */
  void pump(Set<HostQueue> candidates, long now) {
    pumpRound++;
    PriorityQueue<HostQueue> byHead = null;
    for (HostQueue queue : candidates) {
      byHead = offer(byHead, queue);
    }
    while (!wakes.isEmpty() && wakes.peek().at - now <= 0) {
      Wake wake = wakes.poll();
      HostQueue queue = wake.queue;
      if (queue.wakeRegistered && queue.wakeAt == wake.at) {
        queue.wakeRegistered = false;
        byHead = offer(byHead, queue);
      }
    }
    if (byHead == null) {
      return;
    }
    while (!byHead.isEmpty()) {
      HostQueue queue = byHead.poll();
      if (readiness(queue, now)) {
        start(queue, now);
        queue.pumpRound = pumpRound - 1;
        offer(byHead, queue);
      } else if (!blockedByPlaces) {
        registerWake(queue, readyAt);
      }
    }
  }

  private @Nullable PriorityQueue<HostQueue> offer(
      @Nullable PriorityQueue<HostQueue> byHead, HostQueue queue) {
    if (queue.pumpRound == pumpRound || queue.live == 0 || queue.head() == null) {
      return byHead;
    }
    queue.pumpRound = pumpRound;
    PriorityQueue<HostQueue> result = byHead != null ? byHead : new PriorityQueue<>(4, BY_HEAD);
    result.add(queue);
    return result;
  }

  /**
   * Whether the head of {@code queue} can start at {@code now}. When not, sets
   * {@link #blockedByPlaces} when some limiter has no place (a release will pump it), else
   * {@link #readyAt} to the time all of them are ready.
   */
  private boolean readiness(HostQueue queue, long now) {
    blockedByPlaces = false;
    readyAt = now;
    consider(queue, now);
    int learned = queue.node.state.inFlightLimit();
    if (learned > 0 && queue.node.inFlight >= learned) {
      blockedByPlaces = true;
    }
    for (GroupGate gate : queue.gates) {
      consider(gate, now);
    }
    boolean ready = !blockedByPlaces && readyAt - now <= 0;
    FleetClaims claims = this.claims;
    if (ready && claims != null) { // ready here: claim the fleet's start now, then its places
      // A granted start waits for its places: a quota's, then those in flight; each place is given
      // back unless used at once (kept while another of the start's claims is asked).
      ready = claims.claimed(queue, now) && claims.quotaPlaced(queue, now) && claims.placed(queue, now);
    }
    return ready;
  }

  /** The queues that start requests of {@code node}: a host's own, or the waiting ones of a group's gates. */
  static Set<HostQueue> queuesOf(Node node) {
    if (!node.group) {
      return new LinkedHashSet<>(node.queues.values());
    }
    Set<HostQueue> queues = new LinkedHashSet<>();
    for (GroupGate gate : node.gates.values()) {
      queues.addAll(gate.waitingQueues);
    }
    return queues;
  }

  private void consider(Limiter limiter, long now) {
    if (limiter.full()) {
      blockedByPlaces = true;
    }
    RateState rate = limiter.rate;
    if (rate != null && rate.holdsAt(now)) {
      later(rate.readyAt());
    }
    Node node = limiter.node;
    if (node.announcedRemaining >= 0) {
      if (node.announcedResetAt - now <= 0) {
        node.announcedRemaining = -1; // reset: the next answers will say
      } else if (node.announcedRemaining - (node.starts - node.announcedAt) <= 0) {
        later(node.announcedResetAt); // as many started since as remained: none left until the reset
      }
    }
    LearnedQuota quota = node.quota;
    if (quota != null) {
      if (quota.probing()) {
        blockedByPlaces = true; // the probe's answer pumps the host's queues
      } else {
        later(quota.readyAt(now));
      }
    }
    HostState state = node.state;
    if (state.paused()) {
      if (state.pausedUntil() - now > 0) {
        later(state.pausedUntil());
      } else {
        state.clearPause();
      }
    }
    long interval = state.interval();
    if (interval > 0 && state.started()) {
      long next = state.lastStart() + interval;
      if (next - now > 0) {
        later(next);
      }
    }
  }

  void later(long time) {
    if (time - readyAt > 0) {
      readyAt = time;
    }
  }

  private void start(HostQueue queue, long now) {
    Call<?> call = queue.waiting.poll();
    leaveWaiting(queue);
    call.state = Call.State.IN_FLIGHT;
    call.startedAt = now;
    if (claims != null) {
      claims.started(queue, call);
    }
    take(queue, now);
    startQuota(queue.node, call, now);
    for (GroupGate gate : queue.gates) {
      startQuota(gate.node, call, now);
    }
    Node host = queue.node;
    call.startSeq = host.starts;
    call.inFlightAtStart = ++host.inFlight;
    if (call.inFlightAtStart > 1) { // alone, it has nobody to stop counting: see uncount()
      ArrayList<Call<?>> recent = host.recent;
      if (recent == null) {
        recent = host.recent = new ArrayList<>(4);
      }
      if (recent.isEmpty() || now - host.recentAt > SAME_MOMENT) {
        recent.clear();
        host.recentAt = now;
      }
      recent.add(call);
    }
    for (GroupGate gate : queue.gates) {
      take(gate, now);
    }
    started.add(call);
    if (listener != null) {
      emit(new HostpaceEvent.Started(
          queue.node.key, call.uri(), call.attempt, Duration.ofNanos(now - call.queuedAt), now));
    }
  }

  private static void take(Limiter limiter, long now) {
    limiter.inFlight++;
    RateState rate = limiter.rate;
    if (rate != null) {
      rate.start(now);
    }
    Node node = limiter.node;
    node.state.start(now);
    node.starts++;
  }

  private static void startQuota(Node node, Call<?> call, long now) {
    LearnedQuota quota = node.quota;
    if (quota != null) {
      quota.start(call, now);
    }
  }

  /** {@code call} no longer holds a place; a quota's probe that got no answer lets another go. */
  private static void letGoQuota(HostQueue queue, Call<?> call) {
    if (queue.node.quota != null) {
      queue.node.quota.letGo(call);
    }
    for (GroupGate gate : queue.gates) {
      if (gate.node.quota != null) {
        gate.node.quota.letGo(call);
      }
    }
  }

  private static void leaveWaiting(HostQueue queue) {
    if (--queue.live == 0) {
      queue.waiting.clear();
      for (GroupGate gate : queue.gates) {
        gate.waitingQueues.remove(queue);
      }
    }
  }

  /**
   * Frees the places of a call of {@code queue}; returns the queues that may now start one, in
   * a set of the scheduler's own that the next release reuses (no allocation per answer).
   */
  private Set<HostQueue> release(Call<?> call, long now) {
    HostQueue queue = call.queue;
    letGoPlaces(call);
    queue.inFlight--;
    uncount(queue.node, call, now);
    letGoQuota(queue, call);
    Set<HostQueue> candidates = releaseCandidates;
    candidates.clear();
    for (HostQueue sibling : queue.node.queues.values()) {
      if (sibling.live > 0) {
        candidates.add(sibling);
      }
    }
    for (GroupGate gate : queue.gates) {
      gate.inFlight--;
      candidates.addAll(gate.waitingQueues);
    }
    return candidates;
  }

  /**
   * {@code call} of {@code host} no longer holds a place. The requests that started in the same
   * moment had counted it in flight beside them; it was answered before they reached the server,
   * so they count it no more (with virtual time, several answers of one moment are settled one
   * after another, and the requests started in between would otherwise count those still to come).
   */
  private static void uncount(Node host, Call<?> call, long now) {
    host.inFlight--;
    ArrayList<Call<?>> recent = host.recent;
    if (recent == null || now - host.recentAt > SAME_MOMENT) {
      return;
    }
    // Calls that hold no place any more leave the list, so it is never longer than what is in flight.
    for (int i = recent.size() - 1; i >= 0; i--) {
      Call<?> other = recent.get(i);
      if (other == call || other.state != Call.State.IN_FLIGHT) {
        int last = recent.size() - 1;
        recent.set(i, recent.get(last));
        recent.remove(last);
      } else if (other.inFlightAtStart > 1) {
        other.inFlightAtStart--;
      }
    }
  }

  private void registerWake(HostQueue queue, long at) {
    if (queue.wakeRegistered && queue.wakeAt - at <= 0) {
      return;
    }
    queue.wakeRegistered = true;
    queue.wakeAt = at;
    wakes.add(new Wake(at, queue));
    arm(at);
  }

  private void arm(long at) {
    if (armed != null) {
      if (armedAt - at <= 0) {
        return;
      }
      armed.cancel();
    }
    armedAt = at;
    armed = timer.schedule(this::onWake, at - clock.nanoTime());
  }

  private void onWake() {
    lock.lock();
    try {
      armed = null;
      long now = clock.nanoTime();
      pump(Set.of(), now);
      while (!wakes.isEmpty()) {
        Wake next = wakes.peek();
        if (next.queue.wakeRegistered && next.queue.wakeAt == next.at) {
          arm(next.at);
          break;
        }
        wakes.poll();
      }
    } finally {
      unlockAndDeliver();
    }
  }

  // ---------------------------------------------------------------- learning

  private void learn(Call<?> call, Verdict verdict, long now) {
    HostQueue queue = call.queue;
    if (verdict.refusal()) {
      count(queue, Counter.REFUSALS);
      if (listener != null) {
        emit(new HostpaceEvent.Refused(
            queue.node.key, call.uri(), call.attempt, verdict.status(),
            verdict.retryAfterNanos() < 0 ? null : Duration.ofNanos(verdict.retryAfterNanos()), now));
      }
    }
    teach(queue.node, call, call.startedAt, verdict.refusal(), verdict.retryAfterNanos(), now);
    if (verdict.refusal() && call.place != null) {
      claims.letGoQuotaPlace(call, true);
    }
    // How many were in flight at the start: for an answer, this process's own count is a floor of
    // what the host held at once; for a refusal, the fleet's count of places is a ceiling (0: none).
    int inFlight = verdict.refusal() ? FleetClaims.fleetCount(call) : call.inFlightAtStart;
    tell(queue.node, call, verdict, inFlight, now);
    for (GroupGate gate : queue.gates) {
      teach(gate.node, call, call.startedAt, verdict.refusal(), verdict.retryAfterNanos(), now);
      tell(gate.node, call, verdict, 0, now);
    }
    learnInFlight(queue.node, call.startedAt, inFlight > 0 ? inFlight : call.inFlightAtStart, verdict.refusal(),
        verdict.retryAfterNanos(), now);
    announced(queue.node, call, verdict, now); // the host's own quota, not its groups'
  }

  /**
   * An idle host is held until its announced reset only while fewer than this remain (the default
   * in flight, SPEC P3): with more, the requests that come next cannot overrun it before their
   * answers say anew, and a crawler need not hold every host that announces plenty.
   */
  static final long FEW_REMAINING = 32;

  /**
   * What the answer announced of the host's quota (SPEC R8): the latest-started attempt's word
   * stands, less the starts since it; nothing remaining pauses the host until the reset.
   */
  private void announced(Node node, Call<?> call, Verdict verdict, long now) {
    if (verdict.quotaRemaining() < 0 || call.startSeq < node.announcedAt) {
      return;
    }
    long reset = Math.min(verdict.quotaResetNanos(), retryDelayLimit);
    node.announcedRemaining = verdict.quotaRemaining();
    node.announcedAt = call.startSeq;
    node.announcedResetAt = now + reset;
    if (verdict.quotaRemaining() == 0 && reset > 0) {
      pause(node, reset, now);
    }
  }

  /** Pauses the host or group for {@code nanos}, at most the retry delay limit, unless it is paused longer already. */
  private void pause(Node node, long nanos, long now) {
    HostState state = node.state;
    long pause = Math.min(nanos, retryDelayLimit);
    long until = now + pause;
    if (!state.paused() || until - state.pausedUntil() > 0) {
      state.pauseUntil(until);
      if (listener != null) {
        emit(new HostpaceEvent.Paused(node.key, Duration.ofNanos(pause), now));
      }
    }
  }

  /**
   * What the host's answer to a request started at {@code startedAt} as the {@code inFlightAtStart}-th
   * at once says of how many requests it holds at once; hosts only, not groups.
   */
  private void learnInFlight(
      Node node, long startedAt, int inFlightAtStart, boolean refusal, long retryAfterNanos, long now) {
    HostState state = node.state;
    int before = state.inFlightLimit();
    int after;
    if (!refusal) {
      after = rule.inFlightAfterAnswer(now, startedAt, inFlightAtStart, state);
    } else if (retryAfterNanos >= 0) {
      after = rule.inFlightAfterPause(now, startedAt, inFlightAtStart, state);
    } else {
      return;
    }
    after = Math.max(0, after);
    if (after != before) {
      state.inFlightLimit(after);
      if (listener != null) {
        emit(new HostpaceEvent.InFlightLimitChanged(node.key, before, after, now));
      }
    }
  }

  /** Tells the fleet, if any, what {@code call}'s answer taught {@code node} (SPEC S2). */
  private void tell(Node node, Call<?> call, Verdict verdict, int inFlightAtStart, long now) {
    if (fleet != null) {
      fleet.tell(new Fleet.Lesson(
          node.key, verdict.refusal(), verdict.retryAfterNanos(), now - call.startedAt, inFlightAtStart));
    }
  }

  /**
   * What another process of the fleet was told by a host or group: it teaches as if the answer had
   * been this engine's (SPEC S2), and the node's queues look again at their pace. About a node
   * this engine does not hold, only a {@code Retry-After} is kept (the host is held, paused, until
   * its pause ends, so that a request this process sends it meanwhile waits too); the rest is let
   * go: the rule learns from answers to hosts in use.
   */
  private void heard(Fleet.Lesson lesson) {
    lock.lock();
    try {
      long now = clock.nanoTime();
      Node node = nodes.get(lesson.key());
      if (node == null) {
        if (!lesson.refused() || lesson.retryAfterNanos() < 0) {
          return;
        }
        node = node(lesson.key(), HostKey.isGroup(lesson.key()));
        pause(node, lesson.retryAfterNanos(), now);
        dropIfIdle(node, now); // held until the pause ends, then let go
        return;
      }
      long startedAt = now - lesson.tookNanos();
      teach(node, null, startedAt, lesson.refused(), lesson.retryAfterNanos(), now);
      if (!node.group && lesson.inFlightAtStart() > 0) {
        learnInFlight(node, startedAt, lesson.inFlightAtStart(), lesson.refused(), lesson.retryAfterNanos(), now);
      }
      if (node.fleet != null) {
        node.fleet.placesFull = false; // an answer came: a place may have been let go
      }
      pump(queuesOf(node), now);
    } finally {
      unlockAndDeliver();
    }
  }

  /**
   * Teaches {@code node} an answer to a request started at {@code startedAt}: {@code call}'s, or,
   * when null, another process's (which the node's learned quota, counting this engine's starts,
   * does not hear).
   */
  private void teach(
      Node node, @Nullable Call<?> call, long startedAt, boolean refusal, long retryAfterNanos, long now) {
    HostState state = node.state;
    if (refusal && retryAfterNanos >= 0) {
      pause(node, retryAfterNanos, now);
      return;
    }
    long interval = state.interval();
    int permits = state.quotaPermits();
    long window = state.quotaWindow();
    if (node.quota != null) {
      node.quota.answered(call, !refusal);
    }
    long next = refusal
        ? rule.onRefusal(now, startedAt, state)
        : rule.onAnswer(now, startedAt, state);
    if (state.quotaPermits() != permits || state.quotaWindow() != window) {
      learnQuota(node, startedAt, now);
    }
    next = Math.max(0, Math.min(next, Long.MAX_VALUE / 4));
    if (next != interval) {
      state.interval(next, now);
      long to = next;
      if (listener != null) {
        emit(new HostpaceEvent.IntervalChanged(node.key, Duration.ofNanos(interval), Duration.ofNanos(to), now));
      }
    }
  }

  /**
   * The rule changed the host's quota: the engine holds the host's starts to it from now on, its
   * windows counted as before, or, for a new quota, from the start of the request that taught it.
   */
  private void learnQuota(Node node, long startedAt, long now) {
    HostState state = node.state;
    int permits = state.quotaPermits();
    long window = state.quotaWindow();
    LearnedQuota before = node.quota;
    if (permits <= 0 || window <= 0) {
      node.quota = null;
    } else if (before == null) {
      node.quota = new LearnedQuota(permits, window, startedAt);
    } else {
      node.quota = new LearnedQuota(permits, window, before);
    }
    if (listener != null) {
      emit(new HostpaceEvent.QuotaChanged(node.key, quotaOf(before), quotaOf(node.quota), now));
    }
  }

  private static @Nullable Rate quotaOf(@Nullable LearnedQuota quota) {
    return quota == null ? null : quota.rate();
  }

  private enum Counter { REFUSALS, RETRIES, GAVE_UPS }

  private static void count(HostQueue queue, Counter counter) {
    bump(queue.node, counter);
    for (GroupGate gate : queue.gates) {
      bump(gate.node, counter);
    }
  }

  private static void bump(Node node, Counter counter) {
    switch (counter) {
      case REFUSALS -> node.refusals++;
      case RETRIES -> node.retries++;
      case GAVE_UPS -> node.gaveUps++;
    }
  }

  // ---------------------------------------------------------------- holding and letting go

  private Node node(String key, boolean group) {
    Node node = nodes.get(key);
    if (node == null) {
      node = new Node(key, group, store.open(key));
      nodes.put(key, node);
      if (listener != null) {
        heardFromStore(node);
      }
    }
    return node;
  }

  /**
   * A state the store opened knowing something (kept from another run, SPEC S1, or shared): the
   * listener hears it as learned now, as if taught, so that what it shows is what the host goes by.
   */
  private void heardFromStore(Node node) {
    HostState state = node.state;
    long now = clock.nanoTime();
    if (state.interval() > 0) {
      emit(new HostpaceEvent.IntervalChanged(node.key, Duration.ZERO, Duration.ofNanos(state.interval()), now));
    }
    if (state.inFlightLimit() > 0) {
      emit(new HostpaceEvent.InFlightLimitChanged(node.key, 0, state.inFlightLimit(), now));
    }
    if (state.paused() && state.pausedUntil() - now > 0) {
      emit(new HostpaceEvent.Paused(node.key, Duration.ofNanos(state.pausedUntil() - now), now));
    }
  }

  private HostQueue queue(String hostKey, QueueKey key) {
    Node node = node(hostKey, false);
    HostQueue queue = node.queues.get(key);
    if (queue == null) {
      List<GateKey> gateKeys = key.gates();
      GroupGate[] gates = new GroupGate[gateKeys.size()];
      for (int i = 0; i < gates.length; i++) {
        gates[i] = gate(gateKeys.get(i));
        gates[i].users++;
      }
      queue = new HostQueue(node, key, rate(node, key.host()), gates);
      node.queues.put(key, queue);
    }
    return queue;
  }

  private GroupGate gate(GateKey key) {
    Node node = node(key.group(), true);
    GroupGate gate = node.gates.get(key.limits());
    if (gate == null) {
      gate = new GroupGate(node, key.limits(), rate(node, key.limits()), fleet != null);
      node.gates.put(key.limits(), gate);
    }
    return gate;
  }

  private static @Nullable RateState rate(Node node, Limits limits) {
    Rate rate = limits.rate();
    if (rate == null) {
      return null;
    }
    RateState state = node.rates.get(limits);
    if (state == null) {
      state = new RateState(limits, rate);
      node.rates.put(limits, state);
    }
    state.users++;
    return state;
  }

  /** The call leaves its queue for good; the queue, its gates and its nodes go when nothing holds them. */
  /** Lets go the fleet's places {@code call} holds, as its attempt ends. */
  private void letGoPlaces(Call<?> call) {
    if (call.place != null) {
      claims.letGoPlaces(call);
    }
  }

  private void finish(Call<?> call, Call.State state, long now) {
    letGoPlaces(call);
    call.state = state;
    HostQueue queue = call.queue;
    if (--queue.users > 0) {
      return;
    }
    Node node = queue.node;
    node.queues.remove(queue.queueKey);
    queue.wakeRegistered = false;
    letGo(node, queue.rate, now);
    for (GroupGate gate : queue.gates) {
      if (--gate.users == 0) {
        gate.node.gates.remove(gate.limits);
        letGo(gate.node, gate.rate, now);
        dropIfIdle(gate.node, now);
      }
    }
    dropIfIdle(node, now);
  }

  private static void letGo(Node node, @Nullable RateState rate, long now) {
    if (rate != null && --rate.users == 0 && !rate.mattersAt(now)) {
      node.rates.remove(rate.limits);
    }
  }

  /**
   * Drops {@code node} when nothing of it matters any more: no queue or gate, no pause or rate
   * spacing still ahead, and what it taught (a learned interval, in-flight limit or quota)
   * forgotten, which it is once the node has started nothing for {@code forgetIdleAfter}. When
   * only time stands in the way, looks again then.
   */
  private void dropIfIdle(Node node, long now) {
    if (!node.queues.isEmpty() || !node.gates.isEmpty()) {
      return;
    }
    HostState state = node.state;
    long forgetAt = now;
    // What a host that started nothing here learned (from the fleet's lessons, or a store) does not
    // hold it: it is let go with the node, not forgotten (the store keeps what it kept).
    if (state.started() && (state.interval() > 0 || state.inFlightLimit() > 0 || node.quota != null)) {
      forgetAt = state.lastStart() + forgetIdleAfter;
      if (forgetAt - now <= 0) {
        state.interval(0, now);
        state.inFlightLimit(0);
        state.quota(0, 0);
        state.memory(null);
        node.quota = null;
      }
    }
    node.rates.values().removeIf(rate -> rate.users == 0 && !rate.mattersAt(now));
    boolean waitFor = forgetAt - now > 0;
    long until = forgetAt;
    if (state.paused()) {
      if (state.pausedUntil() - now > 0) {
        waitFor = true;
        if (state.pausedUntil() - until > 0) {
          until = state.pausedUntil();
        }
      } else {
        state.clearPause();
      }
    }
    for (RateState rate : node.rates.values()) {
      waitFor = true;
      if (rate.expiresAt() - until > 0) {
        until = rate.expiresAt();
      }
    }
    if (node.announcedRemaining >= 0 && node.announcedResetAt - now > 0
        && node.announcedRemaining - (node.starts - node.announcedAt) < FEW_REMAINING) {
      waitFor = true; // an announced quota with few left holds until its reset (SPEC R8)
      if (node.announcedResetAt - until > 0) {
        until = node.announcedResetAt;
      }
    }
    if (waitFor) {
      if (!node.cleanupScheduled) {
        node.cleanupScheduled = true;
        timer.schedule(() -> lookAgain(node), until - now);
      }
      return;
    }
    if (nodes.get(node.key) == node) {
      nodes.remove(node.key);
      store.close(state);
    }
  }

  private void lookAgain(Node node) {
    lock.lock();
    try {
      node.cleanupScheduled = false;
      if (nodes.get(node.key) == node) {
        dropIfIdle(node, clock.nanoTime());
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether the engine still holds {@code node}: it was not let go (and perhaps made anew) meanwhile. */
  boolean holds(Node node) {
    return nodes.get(node.key) == node;
  }

  // ---------------------------------------------------------------- after the lock

  // @GuardedBy("lock"): how many events were built, for the test that none is without a listener
  private long eventsBuilt;

  /** Records an event; every caller builds it only when somebody listens. */
  private void emit(HostpaceEvent event) {
    events.add(event);
    eventsBuilt++;
  }

  long eventsBuilt() {
    lock.lock();
    try {
      return eventsBuilt;
    } finally {
      lock.unlock();
    }
  }

  void unlockAndDeliver() {
    if (started.isEmpty() && events.isEmpty()) {
      lock.unlock();
      return;
    }
    Call<?>[] starting = started.toArray(new Call<?>[0]);
    HostpaceEvent[] heard = events.isEmpty() ? null : events.toArray(new HostpaceEvent[0]);
    started.clear();
    events.clear();
    lock.unlock();
    if (heard != null && listener != null) {
      for (HostpaceEvent event : heard) {
        try {
          listener.onEvent(event);
        } catch (RuntimeException e) {
          // SPEC principle: a listener that throws cannot break the engine.
        }
      }
    }
    for (Call<?> call : starting) {
      call.dispatch();
    }
  }

  /** The number of queues the engine holds, for tests: memory follows the hosts in use (SPEC P10). */
  int queueCount() {
    lock.lock();
    try {
      int count = 0;
      for (Node node : nodes.values()) {
        count += node.queues.size();
      }
      return count;
    } finally {
      lock.unlock();
    }
  }

  int nodeCount() {
    lock.lock();
    try {
      return nodes.size();
    } finally {
      lock.unlock();
    }
  }
}

package io.hostpace;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Decides which waiting requests start. All of it is arithmetic under one lock; nothing here
 * waits, and what the decisions set in motion (sending an attempt, telling a listener) happens
 * after the lock is let go.
 *
 * <h2>The model</h2>
 * A request waits in a {@link HostQueue}: one per host and set of limits its context gives
 * (SPEC P8). To start, it must pass every {@link Limiter} on its way: its queue's places and
 * rate, then each {@link GroupGate} of the {@code *.domain} groups its host is in (SPEC P6);
 * and the host and each group must be ready by what they taught: not paused, their learned
 * interval passed since their last start, their quota not spent ({@link HostState}, shared by
 * all of a key's queues, SPEC P10). With a fleet, the fleet has the last say
 * ({@link FleetClaims#readiness}).
 *
 * <p>Since every request of a queue passes the same limiters, only a queue's head can be next.
 * After each event the affected queues are <em>pumped</em>: repeatedly, of the heads that can
 * start now, the one that arrived first starts (SPEC P7: across hosts, in arrival order). A head
 * that cannot start is left with what holds it back, which looks at it again when it may:
 * <ul>
 *   <li>Its own limits (its queue's places and rate; its host's places, pause, interval and
 *       quota; the fleet's time): its own wake-up, or a change of its host (a release, a lesson),
 *       which pumps the host's queues.
 *   <li>A gate (no place; its rate, pause, interval or quota): that gate's index alone
 *       ({@link GroupGate#byHead}), its waiting queues ordered by their head's arrival. A change of
 *       the gate (a release, a lesson) or its one wake-up <em>walks</em> the index: the pump takes
 *       its queues lazily, one as the one before it is looked at, in head order, while they start
 *       or turn out held by something else (each then moves to its new holder's index), and stops
 *       at the first the gate holds back, since then it holds all of them. It stops too at one
 *       another gate holds back that every queue of the walk's gate passes (an outer group's, for
 *       a group nested in it), as that gate then holds them all; the walk waits on that gate
 *       ({@link GroupGate#heldWalks}) and is walked again with it.
 *   <li>The fleet's places: the index of each of its gates, which the fleet's answer about a group
 *       walks.
 * </ul>
 * A head two gates hold back is in one index, so a release of either looks at the heads next in
 * line, not at those the other holds: with {@code *.a.example.org} nested in {@code *.example.org},
 * a release of the outer group never passes over the inner group's heads.
 * So what a request costs does not grow with the hosts of its group: a release looks at the
 * heads next in line, not at every waiting host.
 *
 * <p>Example: {@code *.wikidata.org} has 1 place, {@code query.wikidata.org} and
 * {@code commons.wikidata.org} each have requests waiting, the oldest in commons. When the one
 * in flight is answered, query's queue is pumped and the gate's index walked, and commons' head,
 * being older, takes the place, though query's requests keep arriving. With 10 places, hosts
 * that each allow 1 request a second and two requests waiting in each of 10,000 of them, a
 * release walks the index: the oldest head starts, its queue's next head is held by its host's
 * rate and leaves the index with a wake-up of its own, and the next head finds the gate full:
 * three looks, however many hosts wait.
 *
 * <h2>The invariants</h2>
 * <ul>
 *   <li>After every locked section no waiting head could start now, except one whose wake-up is
 *       due and about to run. That is why an arrival in a queue that already has requests waiting
 *       needs no pump at all: its head could not start, and it cannot start before its head.
 *   <li>A waiting queue is in an index, under its head's {@code seq}, exactly when its last look
 *       found a gate or the fleet's places holding it back: that gate's, or each of its gates'
 *       for the fleet's ({@link HostQueue#index}); a head a gate's time holds back has the gate's
 *       wake-up, not one of its own. A head changes by a start (its queue is
 *       looked at again in the same pump), an older call queued (its queue is pumped), a
 *       cancellation of the head (the queue moves under its next head) and the last call leaving
 *       (the queue leaves). That keeps the first: a head its own limits hold back can start only
 *       after its wake-up or a change of its host, which pump it; one a gate holds back, only after
 *       the gate's wake-up or a change of the gate, which walk the gate's index and the walks waiting
 *       on it, and a walk passes no head that could start: it stops only at one a gate holds back
 *       that holds every head left in the index.
 *   <li>What an answer teaches is learned before its request lets its place go (SPEC R5), so the
 *       request started in its place already goes at the new pace.
 *   <li>A call holds its queue (and the queue its gates and nodes) from its submission until it
 *       is done or cancelled; then {@link Nodes} lets go what nothing holds, so memory follows the
 *       hosts in use.
 * </ul>
 *
 * <h2>The concurrency</h2>
 * A call that starts at once on a host that holds nothing else of the lock's, and is accepted, is
 * started and settled under its host node's monitor instead ({@link LocalPath}), so that threads
 * calling different hosts do not wait on one another; the lock adopts a node as anything else
 * touches it ({@link Nodes#adopt}) and hands it back once nothing of its own is left in it
 * ({@code handBack}). Lock order: the lock, then a node's monitor. For the rest, the scheduler
 * owns the engine's one lock, and only it takes it: for a call's transitions
 * (submit, settle, fail, cancel), for its own wake-ups, and, through {@link Reentry}, for the
 * parts that answer later on threads of their own (the fleet's claims, a node's clean-up timer),
 * which hand it their change and ask for a node to be looked at again. Under the lock run the
 * decisions and what they ask of {@link Learning} (what answers teach), {@link Nodes} (holding and
 * letting go) and {@link FleetClaims}; a {@link Fleet}'s methods are called under it, through a
 * {@link GuardedFleet} that catches what they throw, and must not block. After it,
 * {@link Outbox} tells the listener and dispatches the calls that started: an HTTP client and a
 * listener never run under the lock. A call a caller runs without blocking is
 * sent on the thread that delivers it ({@link Trampoline}), and one thread's answer may start
 * another's call: the outbox gives each thread its own calls and a bounded share of the others',
 * and leaves the rest to their owners' next sections or, should those not come, to the timer
 * ({@link #handOverLeft}). So callers that keep submitting each send their own, and none is kept
 * sending for all of them.
 *
 * <p>Nor does a caller wait for another's bookkeeping (SPEC P15): a call's submission or answer
 * that finds the lock held is handed to its holder ({@link Handoff}) and the caller goes on. Every
 * section runs what was handed over first ({@code runHanded}), in the order it was handed, and the
 * thread that lets the lock go runs what came during its section right after
 * ({@code runHandedLeft}), a bounded number of times before it leaves the rest to the timer; the
 * calls those changes start are left for their owners, as above. So a section sees every change
 * handed over before it began, and the {@link LocalPath} is closed while any waits.
 *
 * <h2>The route</h2>
 * One request, from {@link Hostpace#execute} to its caller's future:
 * <ol>
 *   <li>{@code Hostpace.start}: the host's key, and a {@link Call} handed the engine's
 *       {@link CallRules} and this scheduler as its {@link Settlement}; while the timeout policy
 *       holds the endpoint, the call first waits for {@link ProbeSender#beforeRequest}.
 *   <li>{@code Hostpace.queue}: {@link LimitLevels#queueKey} resolves its limits; {@link #submit}:
 *       {@link Nodes#queue} finds its {@link HostQueue}, {@code enqueue} puts the call in it and,
 *       the call being its head, {@code pump}s it.
 *   <li>{@code pump} → {@code readiness} ({@code consider} of each limiter, then
 *       {@link FleetClaims#readiness}) → {@code start}: places and rates taken,
 *       {@link Outbox#started}; or {@code hold}: the head left with what holds it back.
 *   <li>After the lock, {@link Outbox#take} and {@link Outbox#deliver} → {@link Call#dispatch} →
 *       on the call's executor (the delivering thread's {@link Trampoline}, for {@code execute})
 *       {@code Call.send} → {@link io.hostpace.spi.Exchange#send}, under a {@code Call.Deadline}
 *       when the policy budgets it.
 *   <li>The answer: {@code Call.answered} → {@code Call.judge}, the guard clauses, → a
 *       {@link Verdict} → {@link #settle} → {@code answered}: {@link Learning#learn} first, then
 *       {@code release} of its places, {@code finish} ({@link Nodes#left}), and {@code pump} of
 *       its host's queues and the walks of its gates.
 *   <li>Delivery: after the lock, {@link Outbox#deliver} tells the listeners and dispatches what
 *       started; back in {@code Call.answered}, the call's future completes with the response.
 * </ol>
 *
 * <p>One fleet claim, for the head of a paced host's queue (SPEC S2): {@code readiness} →
 * {@link FleetClaims#readiness}, which first claims the places in flight the host and its groups
 * hold in the fleet, if any, one at a time in their order ({@code FleetClaims.placed} →
 * {@link Fleet#claimPlace} → {@code FleetClaims.placeAnswered}), the head keeping each while it
 * waits for the next; then {@code FleetClaims.claimed} asks {@link Fleet#claimStart} and answers
 * {@link FleetClaims#BLOCKED}: the head waits, and the lock is let go. The fleet answers on a
 * thread of its own: {@code FleetClaims.startClaimed} → {@link Reentry#underLock} marks the grant
 * → {@link Reentry#lookAgain(HostQueue, long)} → {@code pump} → {@code readiness}, where the grant
 * is {@link FleetClaims#READY}; then {@code start} → {@link FleetClaims#started} uses the grant.
 * At the attempt's end {@code release} → {@code letGoPlaces} → {@link FleetClaims#letGoPlaces} →
 * {@link Fleet#releasePlace} gives its places back.
 */
final class Scheduler implements Settlement {

  /** A queue's or a gate's registered wake-up; stale when it has since registered another. */
  private record Wake(long at, Limiter limiter) {}

  private static final GroupGate[] NO_GATES = {};

  /** How many sections of changes handed over a thread runs after its own; see {@link #runHandedLeft}. */
  static final int HANDED_ROUNDS = 2;

  /** Answers and starts this close are taken as one moment; see {@link #uncount}. */
  static final long SAME_MOMENT = 1_000_000L;

  private static final Comparator<HostQueue> BY_HEAD =
      (a, b) -> Call.BY_ARRIVAL.compare(a.first(), b.first());

  private final CountedLock lock = new CountedLock();

  /** The engine's lock, counting its turns: what a test asks to know that a way of a call takes none. */
  private static final class CountedLock extends ReentrantLock {
    /** Written while held, so by one thread at a time; read without it by tests, once the calls they count returned. */
    private long turns;

    @Override
    public void lock() {
      super.lock();
      turns++;
    }

    @Override
    public boolean tryLock() {
      if (!super.tryLock()) {
        return false;
      }
      turns++;
      return true;
    }
  }
  private final Clock clock;
  private final Timer timer;
  final Outbox outbox;
  private final Nodes nodes;
  private final Learning learning;
  /** What the fleet keeps of hosts (SPEC S3); null without a fleet that keeps. */
  private final @Nullable FleetMemory memory;
  /** The fleet's claims of starts and places (SPEC S2); null without a fleet. */
  private final @Nullable FleetClaims claims;

  /** How many calls the lock has queued: the next one's {@code seq} is twice it, plus one; see {@link #localSeq}. */
  private final AtomicLong nextSeq = new AtomicLong();
  /** The way of calls whose host needs nothing of the lock; null when the engine's set-up allows none. */
  private final @Nullable LocalPath local;
  /** Marks the queues already taken into the current pump. */
  @GuardedBy("lock")
  private long pumpRound;
  @GuardedBy("lock")
  private final PriorityQueue<Wake> wakes =
      new PriorityQueue<>((a, b) -> Long.compare(a.at - b.at, 0));
  /** The timer's turn for the earliest wake-up; written under the lock, read by {@link #passable} too. */
  private volatile Timer.@Nullable Cancellable armed;
  private volatile long armedAt;
  /**
   * The queues the next pump is to look at: a release's, or the one queue of an arrival. One list,
   * cleared and filled again by each, which a pump reads whole before it looks at any head, so a
   * pump that a fleet's answer starts within another (through {@link Reentry}) may fill it anew.
   */
  @GuardedBy("lock")
  private final ArrayList<HostQueue> candidates = new ArrayList<>();
  /** The heads a pump orders by arrival: the scheduler's own, made once, for the outermost pump. */
  @GuardedBy("lock")
  private final PriorityQueue<HostQueue> heads = new PriorityQueue<>(8, BY_HEAD);
  /** Whether a pump is under way: one started within it orders its heads in a queue of its own. */
  @GuardedBy("lock")
  private boolean pumping;
  /** What readiness() found besides its answer: whether places hold the head back, else until when time does. */
  @GuardedBy("lock")
  private boolean blockedByPlaces;
  @GuardedBy("lock")
  private long readyAt;
  /**
   * And what holds it: the first limiter without a place, or the one ready last; the head's own
   * queue for its own limits (the queue's and its host's), null for the fleet's places.
   */
  @GuardedBy("lock")
  private @Nullable Limiter placeHolder;
  @GuardedBy("lock")
  private @Nullable Limiter timeHolder;
  /** How many heads readiness() has looked at: what a request costs the engine, for tests. */
  @GuardedBy("lock")
  private long readinessChecks;
  /** The calls waiting out a retry delay (SPEC T2), which no queue holds: {@link #close} ends them too. */
  @GuardedBy("lock")
  private final Set<Call<?>> parked = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
  /** Set by {@link #close}, under the lock: a retry delay that ends then queues nothing. */
  private volatile boolean closed;
  /**
   * Set as the engine's close begins ({@link #beginClose}), before it ends what waits: read
   * without the lock, by a new call and by an answer being judged (SPEC T8).
   */
  private volatile boolean closing;
  @GuardedBy("lock")
  private Fleet.@Nullable Listening listening;
  /** Whether the timer is to send the calls the outbox has left; see {@link #handOverLeft}. */
  private final AtomicBoolean leftHandedOver = new AtomicBoolean();
  /** The arrivals and answers threads handed over as they found the lock held. */
  private final Handoff handoff = new Handoff();

  Scheduler(
      Clock clock,
      Timer timer,
      HostStateStore store,
      LearningRule rule,
      Duration retryDelayLimit,
      Duration forgetIdleAfter,
      int opening,
      List<HostpaceListener> listeners,
      System.Logger logger,
      @Nullable Fleet given) {
    this.clock = clock;
    this.timer = timer;
    this.outbox = new Outbox(listeners, new EventLog(logger, clock), this::handOverLeft);
    // What the fleet throws is caught, logged and answered as a fleet that could not be asked (SPEC L2).
    @Nullable Fleet fleet = given == null ? null : new GuardedFleet(given, timer, outbox.log);
    Reentry reentry = new Reentry() {
      @Override
      public void underLock(Runnable change) {
        Scheduler.this.underLock(change);
      }

      @Override
      @GuardedBy("Scheduler.this.lock")
      public void lookAgain(Node node, long now) {
        if (nodes.holds(node)) {
          pump(node, now);
        }
      }

      @Override
      @GuardedBy("Scheduler.this.lock")
      public void lookAgain(HostQueue queue, long now) {
        if (queue.node.queue(queue.queueKey) == queue && nodes.holds(queue.node)) {
          pump(queue, now);
        }
      }

      @Override
      @GuardedBy("Scheduler.this.lock")
      public void recalled(Node node, Fleet.@Nullable Kept kept) {
        if (nodes.holds(node)) {
          long now = clock.nanoTime();
          learning.recalled(node, kept, now);
          pump(node, now);
        }
      }

      @Override
      @GuardedBy("Scheduler.this.lock")
      public void rejoined(Node node, Fleet.@Nullable Kept kept) {
        if (nodes.holds(node)) {
          long now = clock.nanoTime();
          learning.rejoined(node, kept, now);
          pump(node, now);
        }
      }
    };
    this.nodes = new Nodes(
        store, clock, timer, forgetIdleAfter, opening, retryDelayLimit, outbox, reentry::underLock, fleet != null);
    FleetMemory memory = fleet != null && fleet.keeps() ? new FleetMemory(fleet, reentry, forgetIdleAfter.toNanos()) : null;
    this.claims = fleet == null ? null : new FleetClaims(fleet, clock, timer, reentry, memory);
    this.memory = memory;
    this.learning = new Learning(rule, retryDelayLimit, outbox, fleet, claims, memory, clock);
    if (memory != null) {
      nodes.recallFrom(memory);
    }
    if (fleet != null) {
      listening = fleet.listen(this::heard); // until the engine is closed, or the fleet is
    }
    this.local = LocalPath.allowed(fleet, store, rule) ? new LocalPath(this, nodes, learning, clock, outbox) : null;
  }

  /*
   * Every locked section has one shape, which the build's GuardedBy check reads: the lock, the
   * section, then under the lock what it set in motion taken out of the outbox, and after the
   * lock is let go that delivered.
   */

  /** Runs {@code change} under the lock, then delivers what it set in motion. */
  private void underLock(Runnable change) {
    Object delivery;
    lock.lock();
    try {
      runHanded();
      change.run();
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  /**
   * Runs the changes other threads handed over ({@link Handoff}), in their order, before anything
   * else the section does; the calls they start are left for their owners ({@link
   * Outbox#leaveForOwners}), as the outbox leaves other threads' calls.
   */
  @GuardedBy("lock")
  private void runHanded() {
    if (!handoff.waiting() || lock.getHoldCount() > 1) {
      return; // nothing handed over, or a section within another (a fleet's answer given at once), whose start ran them
    }
    Runnable change;
    while ((change = handoff.poll()) != null) {
      change.run();
    }
    outbox.leaveForOwners();
  }

  /**
   * Hands {@code change} to the lock's holder, found holding it: false, and nothing handed, when
   * as many changes wait as the {@link Handoff} takes (the caller then takes the lock and waits).
   * The holder may have let go meanwhile, so the change is then run here.
   */
  private boolean handOver(Runnable change) {
    if (!handoff.offer(change)) {
      return false;
    }
    runHandedLeft();
    return true;
  }

  /**
   * After a section has let the lock go: runs what was handed over while it held it and came
   * after its start, in sections of their own while the lock is free (its holder runs them
   * otherwise). At most {@link #HANDED_ROUNDS} such sections a thread: should other threads keep
   * handing over, the timer's turn runs the rest, so that no thread is kept running others'
   * changes.
   */
  private void runHandedLeft() {
    if (lock.isHeldByCurrentThread()) {
      return; // a section within another: the outer one runs them after it
    }
    for (int round = 0; handoff.waiting(); round++) {
      if (round == HANDED_ROUNDS) {
        handOverLeft();
        return;
      }
      if (!lock.tryLock()) {
        return;
      }
      Object delivery;
      try {
        runHanded();
      } finally {
        delivery = outbox.take();
        lock.unlock();
      }
      outbox.deliver(delivery);
    }
  }

  /**
   * A delivery ended with calls left in the outbox for their owners, who may not come back, or
   * changes handed over were left for the lock's next section: the
   * timer's turn sends and runs them, once for all that are left when it comes, unless a turn is due
   * already. Without the lock, from the delivery that left them.
   */
  private void handOverLeft() {
    if (leftHandedOver.compareAndSet(false, true)) {
      timer.schedule(this::sendLeft, 0);
    }
  }

  private void sendLeft() {
    Object delivery;
    lock.lock();
    try {
      leftHandedOver.set(false); // before the take: calls left after it hand themselves over again
      runHanded();
    } finally {
      delivery = outbox.takeAll();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  /**
   * Whether a call on the {@link LocalPath} at {@code now} does what the lock's way would: the
   * engine is open, no thread's calls are left to take, and no wake-up is due, which a pump under
   * the lock would run first. Read without the lock: in
   * real time a race only orders the call against what happens beside it, which no order binds.
   */
  boolean passable(long now) {
    if (closed || outbox.hasLeft() || handoff.waiting()) {
      return false;
    }
    return armed == null || armedAt - now > 0;
  }

  /**
   * The {@code seq} of a call of the local path arriving now: even, after every call the lock
   * queued before (whose are odd, {@code 2n + 1}) and before every one it queues after; read, not
   * taken, so that calls on different hosts share no write.
   */
  long localSeq() {
    return 2 * nextSeq.get();
  }

  // ---------------------------------------------------------------- the calls' transitions

  /**
   * A new call enters the queue of {@code hostKey} for {@code key}; a host made for it, that
   * nothing is known of, opens with {@code opening} in flight (SPEC P12; 0 for the whole burst).
   * False, and nothing done, once the engine is closed (SPEC T8). What its arrival throws (a
   * store that cannot open the host's state) fails the call, delivered after the lock.
   */
  boolean submit(Call<?> call, String hostKey, QueueKey key, int opening) {
    LocalPath local = this.local;
    if (local != null && local.submit(call, hostKey, key, opening)) {
      return true;
    }
    if (closing) {
      lock.lock(); // no hand-over once closing: the close decides whether it is queued or fails
    } else if (!lock.tryLock()) {
      if (handOver(new Arrival(call, hostKey, key, opening))) {
        return true;
      }
      lock.lock();
    }
    boolean open;
    Object delivery;
    try {
      runHanded();
      open = !closed;
      if (open) {
        arriveOrFail(call, hostKey, key, opening);
      }
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
    return open;
  }

  /**
   * {@link #arrive}, on either path of {@link #submit}: what it throws fails the call, delivered
   * after the lock, not the thread that made the change.
   */
  @GuardedBy("lock")
  private void arriveOrFail(Call<?> call, String hostKey, QueueKey key, int opening) {
    try {
      arrive(call, hostKey, key, opening);
    } catch (RuntimeException | Error e) {
      outbox.failed(call, e);
    }
  }

  /** {@link #submit}'s change: the call joins its queue, which is pumped when the call is its head. */
  @GuardedBy("lock")
  private void arrive(Call<?> call, String hostKey, QueueKey key, int opening) {
    long now = clock.nanoTime();
    HostQueue queue = nodes.queue(hostKey, key, opening, now);
    queue.users++;
    call.queue = queue;
    call.seq = 2 * nextSeq.getAndIncrement() + 1;
    call.hostArrival = queue.node.arrivals++;
    enqueue(call, now, true);
    handBack(queue.node);
  }

  /**
   * A call's arrival, handed over ({@link #submit}): made as the lock would have made it then, or,
   * when the engine closed meanwhile, the call fails as a closed engine fails it (SPEC T8). What it
   * throws fails the call, not the thread that runs it.
   */
  private final class Arrival implements Runnable {
    private final Call<?> call;
    private final String hostKey;
    private final QueueKey key;
    private final int opening;

    Arrival(Call<?> call, String hostKey, QueueKey key, int opening) {
      this.call = call;
      this.hostKey = hostKey;
      this.key = key;
      this.opening = opening;
    }

    @Override
    @GuardedBy("Scheduler.this.lock")
    public void run() {
      if (closed) {
        outbox.failed(call, call.closed());
        return;
      }
      arriveOrFail(call, hostKey, key, opening);
    }
  }

  /** A call's answer, handed over ({@link #settle}); what it throws fails the call. */
  private final class Answer implements Runnable {
    private final Call<?> call;
    private final Verdict verdict;

    Answer(Call<?> call, Verdict verdict) {
      this.call = call;
      this.verdict = verdict;
    }

    @Override
    @GuardedBy("Scheduler.this.lock")
    public void run() {
      try {
        settleUnderLock(call, verdict);
      } catch (RuntimeException e) {
        outbox.failed(call, e);
      }
    }
  }

  /**
   * An attempt was answered. Learns from the answer before its place is let go (SPEC R5), then
   * retries, parks or ends the call as {@code verdict} says.
   *
   * <p>When another thread holds the lock the answer is handed over to it ({@link Handoff}) and
   * this returns true at once: a call cancelled meanwhile has its future done already, so that the
   * caller's completing it with the response does nothing but let the response go.
   *
   * @return false when the call was cancelled meanwhile: the caller lets the response go
   */
  @Override
  public boolean settle(Call<?> call, Verdict verdict) {
    LocalPath local = this.local;
    if (local != null) {
      int settled = local.settle(call, verdict);
      if (settled != LocalPath.NOT_TAKEN) {
        return settled == LocalPath.LIVE;
      }
    }
    if (!lock.tryLock()) {
      if (handOver(new Answer(call, verdict))) {
        return true;
      }
      lock.lock();
    }
    boolean live;
    Object delivery;
    try {
      runHanded();
      live = settleUnderLock(call, verdict);
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
    return live;
  }

  /** {@link #settle}'s change: whether the call was still in flight, and then its answer decided. */
  @GuardedBy("lock")
  private boolean settleUnderLock(Call<?> call, Verdict verdict) {
    Nodes.adopt(call.queue.node);
    boolean live = call.state == Call.State.IN_FLIGHT;
    if (live) {
      answered(call, verdict);
    }
    handBack(call.queue.node);
    return live;
  }

  /** The answer of {@code call}'s attempt, in flight until now: what {@link #settle} decides. */
  @GuardedBy("lock")
  private void answered(Call<?> call, Verdict verdict) {
    long now = clock.nanoTime();
    HostQueue queue = call.queue;
    GroupGate[] walks = gatesToWalk(queue, call); // before the answer ends a probe
    if (!verdict.refusal()) {
      queue.node.acceptedSeq = queue.node.arrivals; // accepted after every call of the host so far (SPEC R10)
      queue.node.acceptedAt = now;
      queue.node.accepted = true;
    }
    answered(queue, call.startedAt, now);
    for (GroupGate gate : queue.gates) {
      answered(gate, call.startedAt, now);
    }
    learning.learn(call, verdict, now);
    List<HostQueue> candidates = release(call, now);
    if (closed && verdict.retries()) {
      // judged before the close, answered after it: ended, its caller told by the call (SPEC T8)
      finish(call, Call.State.DONE, now);
      pump(candidates, walks, now);
      return;
    }
    switch (verdict.next()) {
      case RETRY -> retryAtOnce(call, queue, candidates, now);
      case RETRY_LATER -> {
        queue.count(Node.Counter.RETRIES);
        call.attempt++;
        long delay = verdict.delayNanos();
        if (outbox.listens()) {
          outbox.emit(new HostpaceEvent.Retried(queue.node.key, call.uri(), call.attempt, Duration.ofNanos(delay), now));
        }
        call.state = Call.State.PARKED;
        parked.add(call);
        call.parked = timer.schedule(() -> unpark(call), delay);
      }
      case GIVE_UP -> {
        queue.count(Node.Counter.GAVE_UPS);
        if (outbox.listens()) {
          outbox.emit(new HostpaceEvent.GaveUp(
              queue.node.key, call.uri(), call.attempt, verdict.status(), verdict.reason(), now));
        }
        finish(call, Call.State.DONE, now);
      }
      case DONE -> finish(call, Call.State.DONE, now);
    }
    pump(candidates, walks, now);
  }

  /** Counts a retry of {@code call} and queues it again at once, ahead of later arrivals. */
  @GuardedBy("lock")
  private void retryAtOnce(Call<?> call, HostQueue queue, List<HostQueue> candidates, long now) {
    queue.count(Node.Counter.RETRIES);
    call.attempt++;
    if (outbox.listens()) {
      outbox.emit(new HostpaceEvent.Retried(queue.node.key, call.uri(), call.attempt, Duration.ZERO, now));
    }
    enqueue(call, now, false);
    candidates.add(queue);
  }

  /**
   * An attempt failed without an answer: a timeout or a network failure, which teaches
   * nothing (SPEC R6).
   *
   * @return false when the call was cancelled meanwhile
   */
  @Override
  public boolean fail(Call<?> call) {
    boolean live;
    Object delivery;
    lock.lock();
    try {
      runHanded();
      Nodes.adopt(call.queue.node);
      live = call.state == Call.State.IN_FLIGHT;
      if (live) {
        long now = clock.nanoTime();
        GroupGate[] walks = gatesToWalk(call.queue, call);
        List<HostQueue> candidates = release(call, now);
        finish(call, Call.State.DONE, now);
        pump(candidates, walks, now);
      }
      handBack(call.queue.node);
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
    return live;
  }

  /**
   * An attempt failed on a connection that died before any answer (SPEC T6): the call lets its
   * place go and goes back to its queue, ahead of later arrivals, as a retry does; the failure
   * teaches nothing (SPEC R6).
   *
   * @return false when the call is not queued again: it was cancelled meanwhile, or the engine was
   *     closed, which ends it (SPEC T8)
   */
  @Override
  public boolean resend(Call<?> call) {
    boolean queued = false;
    Object delivery;
    lock.lock();
    try {
      runHanded();
      Nodes.adopt(call.queue.node);
      if (call.state == Call.State.IN_FLIGHT) {
        long now = clock.nanoTime();
        HostQueue queue = call.queue;
        GroupGate[] walks = gatesToWalk(queue, call);
        List<HostQueue> candidates = release(call, now);
        if (closed) {
          finish(call, Call.State.DONE, now);
        } else {
          retryAtOnce(call, queue, candidates, now);
          queued = true;
        }
        pump(candidates, walks, now);
      }
      handBack(call.queue.node);
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
    return queued;
  }

  /**
   * The caller gave up on the call (SPEC T5): it leaves its queue if it waits, and frees its
   * place if it holds one. It frees nothing it does not hold.
   */
  @Override
  public void cancel(Call<?> call) {
    if (call.ended()) {
      return; // a call answered as it was queued, or failed: nothing held, and no lock taken for it
    }
    Object delivery;
    lock.lock();
    try {
      runHanded();
      HostQueue submitted = call.queue;
      if (submitted != null) { // null before its submission: nothing held, and its state is NEW
        Nodes.adopt(submitted.node); // a local call's state is then the lock's to read
      }
      long now = clock.nanoTime();
      switch (call.state) {
        case WAITING -> {
          HostQueue queue = call.queue;
          call.state = Call.State.CANCELLED;
          leaveWaiting(queue);
          if (queue.indexed && queue.indexedSeq == call.seq) {
            queue.index(queue.indexedIn); // under its next head, where it was
          }
          finish(call, Call.State.CANCELLED, now);
        }
        case IN_FLIGHT -> {
          GroupGate[] walks = gatesToWalk(call.queue, call);
          List<HostQueue> candidates = release(call, now);
          finish(call, Call.State.CANCELLED, now);
          pump(candidates, walks, now);
        }
        case PARKED -> {
          Timer.Cancellable delay = call.parked;
          if (delay != null) {
            delay.cancel();
          }
          parked.remove(call);
          finish(call, Call.State.CANCELLED, now);
        }
        default -> {
          // DONE or CANCELLED already: nothing held.
        }
      }
      if (submitted != null) {
        handBack(submitted.node);
      }
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  private void unpark(Call<?> call) {
    Object delivery;
    lock.lock();
    try {
      runHanded();
      if (call.state == Call.State.PARKED && !closed) {
        parked.remove(call);
        call.parked = null;
        enqueue(call, clock.nanoTime(), true);
      }
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  /**
   * Hands {@code node} back to the {@link LocalPath} once nothing of the lock's holds it: a host
   * the engine still holds, outside any fleet, whose queues have no gate, rate or fleet claim,
   * nothing waiting or between attempts, and no wake-up. Its calls in flight are then settled
   * there; what the lock wrote of them is the monitor's to read, handed over under both.
   */
  @GuardedBy("lock")
  private void handBack(Node node) {
    if (local == null || !node.global || node.group || node.fleet != null || node.recalling || !nodes.holds(node)) {
      return;
    }
    for (int i = 0; i < node.queueCount(); i++) {
      HostQueue queue = node.queueAt(i);
      if (queue.gates.length > 0 || queue.rate != null || queue.live > 0 || queue.users != queue.inFlight
          || queue.wakeRegistered || queue.startClaim != null) {
        return;
      }
    }
    synchronized (node) {
      node.global = false;
    }
  }

  // ---------------------------------------------------------------- forgetting, the fleet, snapshots

  /**
   * Clears what {@code key} taught: its pause and interval (SPEC R7); and what the fleet keeps of
   * it (SPEC S3), which a node made anew would otherwise read back.
   */
  void forget(String key) {
    Object delivery;
    lock.lock();
    try {
      runHanded();
      Node node = nodes.get(key);
      if (node != null) {
        forget(node);
      } else if (memory != null) {
        memory.forgot(key, null, clock.nanoTime());
      }
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  /** Clears what every host and group taught (SPEC R7). */
  void forgetAll() {
    Object delivery;
    lock.lock();
    try {
      runHanded();
      for (Node node : List.copyOf(nodes.all())) {
        if (Nodes.adopt(node)) {
          forget(node);
        }
      }
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  @GuardedBy("lock")
  private void forget(Node node) {
    long now = clock.nanoTime();
    Learning.forget(node, now);
    FleetMemory memory = this.memory;
    if (memory != null) {
      memory.forgot(node.key, node, now);
    }
    pump(node, now);
    nodes.dropIfIdle(node, now);
  }

  /**
   * What another process of the fleet was told by a host or group: it teaches as if the answer had
   * been this engine's (SPEC S2), and the node's queues look again at their pace. About a node
   * this engine does not hold, only a {@code Retry-After} is kept (the host is held, paused, until
   * its pause ends, so that a request this process sends it meanwhile waits too); the rest is let
   * go: the rule learns from answers to hosts in use.
   */
  private void heard(Fleet.Lesson lesson) {
    Object delivery;
    lock.lock();
    try {
      runHanded();
      hear(lesson, clock.nanoTime());
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  @GuardedBy("lock")
  private void hear(Fleet.Lesson lesson, long now) {
    Node node = nodes.get(lesson.key());
    if (node == null) {
      if (lesson.refused() && lesson.retryAfterNanos() >= 0) {
        node = nodes.node(lesson.key(), HostKey.isGroup(lesson.key()), now);
        learning.pause(node, lesson.retryAfterNanos(), now);
        nodes.dropIfIdle(node, now); // held until the pause ends, then let go
      }
      return;
    }
    if (!lesson.refused() && !node.group) {
      node.acceptedSeq = node.arrivals; // another process's request accepted, after every call so far (SPEC R10)
      node.acceptedAt = now;
      node.accepted = true;
    }
    learning.heard(node, lesson, now);
    FleetClaims claims = this.claims;
    if (claims != null) {
      claims.heard(node);
    }
    pump(node, now);
  }

  /** The engine's close begins: a call made from now on is refused, an answer judged now is not retried (SPEC T8). */
  void beginClose() {
    closing = true;
  }

  @Override
  public boolean closing() {
    return closing;
  }

  /**
   * The engine is closed: stops hearing the fleet, and returns the calls that wait, in a queue or
   * out a retry delay, for the engine to end (outside the lock, as a caller ends a call). Calls in
   * flight are not among them: their answers end them.
   */
  List<Call<?>> close() {
    List<Call<?>> waiting = new ArrayList<>();
    Fleet.@Nullable Listening heard;
    Object delivery;
    lock.lock();
    try {
      runHanded();
      closed = true;
      for (Node node : nodes.all()) {
        if (!node.global) {
          continue; // the local path's: its calls start at once, none waits
        }
        for (int i = 0; i < node.queueCount(); i++) {
          HostQueue queue = node.queueAt(i);
          for (int j = 0; j < queue.held(); j++) {
            Call<?> call = queue.heldAt(j);
            if (call.state == Call.State.WAITING) {
              waiting.add(call);
            }
          }
        }
      }
      waiting.addAll(parked);
      heard = listening;
      listening = null;
    } finally {
      delivery = outbox.take(); // what the changes handed over before the close set in motion
      lock.unlock();
    }
    outbox.deliver(delivery);
    if (heard != null) {
      heard.close();
    }
    return waiting;
  }

  /** How many times the engine has looked at whether a waiting request can start. */
  long readinessChecks() {
    LocalPath local = this.local;
    long checks;
    Object delivery;
    lock.lock();
    try {
      runHanded();
      checks = readinessChecks + (local == null ? 0 : local.readinessChecks());
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    return checks;
  }

  /** How many times the engine's lock was taken. */
  long lockTurns() {
    return lock.turns;
  }

  /** How many calls started on the {@link LocalPath}. */
  long localStarts() {
    LocalPath local = this.local;
    return local == null ? 0 : local.readinessChecks();
  }

  /** What the engine knows now of every host and group it holds, sorted by key. */
  List<HostSnapshot> snapshot() {
    List<HostSnapshot> snapshot;
    Object delivery;
    lock.lock();
    try {
      runHanded();
      snapshot = Snapshots.of(nodes.all(), clock.nanoTime());
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    return snapshot;
  }

  // ---------------------------------------------------------------- queues and pumping

  /** Puts {@code call} in its queue; pumps the queue when the call is its new head and {@code pump}. */
  @GuardedBy("lock")
  private void enqueue(Call<?> call, long now, boolean pump) {
    HostQueue queue = call.queue;
    call.state = Call.State.WAITING;
    call.queuedAt = now;
    Call<?> headBefore = queue.live == 0 ? null : queue.head();
    queue.add(call);
    queue.live++;
    for (GroupGate gate : queue.gates) {
      gate.waiting++;
    }
    FleetClaims claims = this.claims;
    if (claims != null && headBefore != null && headBefore.place != null && queue.head() != headBefore) {
      claims.displaced(headBefore);
    }
    if (outbox.listens()) {
      outbox.emit(new HostpaceEvent.Queued(queue.node.key, call.uri(), call.attempt, now));
    }
    if (pump && (headBefore == null || Call.BY_ARRIVAL.compare(call, headBefore) < 0)) {
      pump(queue, now);
    }
  }

  /** Pumps what a change to {@code node} may let start: a host's queues, or the walks of a group's gates. */
  @GuardedBy("lock")
  private void pump(Node node, long now) {
    if (node.group) {
      pump(List.of(), node.gates.values().toArray(NO_GATES), now);
    } else {
      candidates.clear();
      for (int i = 0; i < node.queueCount(); i++) {
        candidates.add(node.queueAt(i));
      }
      pump(candidates, NO_GATES, now);
    }
  }

  /** Pumps the one queue {@code queue}. */
  @GuardedBy("lock")
  private void pump(HostQueue queue, long now) {
    candidates.clear();
    candidates.add(queue);
    pump(candidates, NO_GATES, now);
  }

  /**
   * Starts, of the heads of {@code queues}, of the queues the walks of {@code gates} take, and of
   * those whose wake-up is due (a gate's walks it), the oldest that can start, until none can.
   */
  @GuardedBy("lock")
  private void pump(List<HostQueue> queues, GroupGate[] gates, long now) {
    pumpRound++;
    boolean outermost = !pumping;
    PriorityQueue<HostQueue> byHead = outermost ? heads : new PriorityQueue<>(4, BY_HEAD);
    pumping = true;
    try {
      for (int i = 0; i < queues.size(); i++) { // by index: a list of the scheduler's, no iterator
        offer(byHead, queues.get(i));
      }
      for (GroupGate gate : gates) {
        walk(byHead, gate);
      }
      while (!wakes.isEmpty() && wakes.peek().at - now <= 0) {
        Wake wake = wakes.poll();
        Limiter limiter = wake.limiter;
        if (limiter.wakeRegistered && limiter.wakeAt == wake.at) {
          limiter.wakeRegistered = false;
          if (limiter instanceof GroupGate gate) {
            walk(byHead, gate);
          } else {
            offer(byHead, (HostQueue) limiter);
          }
        }
      }
      while (!byHead.isEmpty()) {
        HostQueue queue = byHead.poll();
        GroupGate walked = queue.walkedFrom;
        queue.walkedFrom = null;
        if (readiness(queue, now)) {
          start(queue, now);
          queue.unindex(); // its next head is looked at below, and held where it waits
          queue.pumpRound = pumpRound - 1;
          offer(byHead, queue);
        } else {
          hold(queue, walked);
        }
        if (walked != null) {
          walkOn(byHead, walked);
        }
      }
    } finally {
      if (outermost) {
        pumping = false;
        heads.clear(); // empty but after a failure, which must not leave a queue for the next pump
      }
    }
  }

  /** Adds {@code queue} to the pump's heads unless it is in already, or has none waiting; whether it was added. */
  @GuardedBy("lock")
  private boolean offer(PriorityQueue<HostQueue> byHead, HostQueue queue) {
    if (queue.pumpRound == pumpRound || queue.live == 0 || queue.head() == null) {
      return false;
    }
    queue.pumpRound = pumpRound;
    byHead.add(queue);
    return true;
  }

  /** Starts a walk of {@code gate}'s index in this pump, unless one has started, and the walks that wait on it. */
  @GuardedBy("lock")
  private void walk(PriorityQueue<HostQueue> byHead, GroupGate gate) {
    if (gate.walkRound == pumpRound) {
      return;
    }
    gate.walkRound = pumpRound;
    gate.walkedTo = Long.MIN_VALUE;
    walkOn(byHead, gate);
    ArrayList<GroupGate> held = gate.heldWalks;
    while (!held.isEmpty()) { // from the last: a walk below may hold another here again
      GroupGate stopped = held.remove(held.size() - 1);
      stopped.walkHeld = false;
      walk(byHead, stopped);
    }
  }

  /**
   * Offers the next queue of {@code gate}'s index not yet in this pump: one at a time, as the one
   * before it is looked at, so that the pump takes them in head order and no further than it needs.
   */
  @GuardedBy("lock")
  private void walkOn(PriorityQueue<HostQueue> byHead, GroupGate gate) {
    while (true) {
      int next = gate.byHead.higher(gate.walkedTo);
      if (next < 0) {
        return;
      }
      gate.walkedTo = gate.byHead.keyAt(next);
      HostQueue queue = gate.byHead.valueAt(next);
      if (queue.pumpRound != pumpRound && offer(byHead, queue)) {
        queue.walkedFrom = gate;
        return;
      }
    }
  }

  /**
   * Leaves a head that cannot start with what holds it back, which looks again when it may:
   * its own limits, out of the indexes (its host's release or its wake-up); a gate, in that gate's
   * index alone, which also ends the gate's walk, the gate holding all its queues back (the gate's
   * release or wake-up); the fleet's places, in each of its gates' indexes (the fleet's answer).
   * A queue another gate's walk took in thus moves to its holder's index, and that walk goes on.
   */
  @GuardedBy("lock")
  private void hold(HostQueue queue, @Nullable GroupGate walked) {
    Limiter holder = blockedByPlaces ? placeHolder : timeHolder;
    if (holder == queue) {
      queue.unindex();
      if (!blockedByPlaces) {
        registerWake(queue, readyAt);
      }
      return;
    }
    @Nullable GroupGate gate = (GroupGate) holder; // null for the fleet's places
    queue.index(gate);
    if (gate != null) {
      if (!blockedByPlaces) {
        registerWake(gate, readyAt);
      }
      if (gate.walkRound == pumpRound) {
        gate.walkedTo = Long.MAX_VALUE;
      }
      if (walked != null && walked != gate && walked.passesAllThrough(gate)) {
        walked.walkedTo = Long.MAX_VALUE; // the gate holds every head of the walk's index too
        if (!walked.walkHeld) {
          walked.walkHeld = true;
          gate.heldWalks.add(walked);
        }
      }
    }
  }

  /**
   * How many of {@code host}'s requests this engine may have in flight while its opening lasts
   * (SPEC P12); 0 when it has no opening. In a fleet (SPEC S2) the processes open the host as one
   * engine: each holds its share of the opening's width, which every process's accepted answers
   * widen, rounded up as a share of places is ({@link FleetClaims#share}).
   */
  @GuardedBy("lock")
  private int openingShare(Node host) {
    FleetClaims claims = this.claims;
    return host.opening > 0 && claims != null ? claims.share(host.opening) : host.opening;
  }

  /**
   * Whether the head of {@code queue} can start at {@code now}. When not, sets
   * {@link #blockedByPlaces} when some limiter has no place (a release will pump it), else
   * {@link #readyAt} to the time all of them are ready.
   */
  @GuardedBy("lock")
  private boolean readiness(HostQueue queue, long now) {
    readinessChecks++;
    blockedByPlaces = false;
    readyAt = now;
    placeHolder = null;
    timeHolder = queue;
    consider(queue, queue, now);
    Node host = queue.node;
    int learned = host.state.inFlightLimit();
    int opening = openingShare(host);
    if (learned > 0 && host.inFlight >= learned || opening > 0 && host.inFlight >= opening) {
      if (!blockedByPlaces) {
        placeHolder = queue;
      }
      blockedByPlaces = true; // an answer lets a place go, or widens the opening (SPEC P12)
    }
    for (GroupGate gate : queue.gates) {
      consider(queue, gate, now);
    }
    boolean ready = !blockedByPlaces && readyAt - now <= 0;
    FleetClaims claims = this.claims;
    if (ready && claims != null) { // ready here: the fleet's say comes last, as each say is a claim
      long fleet = claims.readiness(queue, now);
      if (fleet == FleetClaims.BLOCKED) {
        blockedByPlaces = true; // placeHolder null: the fleet's answer looks again
      } else if (fleet != FleetClaims.READY) {
        later(now + fleet);
        timeHolder = queue;
      }
      ready = fleet == FleetClaims.READY;
    }
    return ready;
  }

  /** Tells {@code limiter}'s rate, if any, that the request started at {@code startedAt} was answered (SPEC P1). */
  private static void answered(Limiter limiter, long startedAt, long now) {
    RateState rate = limiter.rate;
    if (rate != null) {
      rate.answered(startedAt, now);
    }
  }

  /** Holds {@code limiter}'s head back while it has no place, or until its rate, announced quota, learned quota, pause and interval allow. */
  @GuardedBy("lock")
  private void consider(HostQueue queue, Limiter limiter, long now) {
    boolean placed = !blockedByPlaces;
    long before = readyAt;
    if (limiter.full()) {
      blockedByPlaces = true;
    }
    Node node = limiter.node;
    if (node.recalling) {
      blockedByPlaces = true; // the fleet's answer of what it keeps pumps the node's queues (SPEC S3)
    }
    // The spacing a fleet also keeps may be asked of it ahead of this pace (FleetClaims.askAhead).
    FleetClaims claims = this.claims;
    long ahead = claims == null ? 0 : claims.askAhead(queue, limiter);
    RateState rate = limiter.rate;
    if (rate != null && rate.holdsAt(now + ahead)) {
      later(rate.readyAt() - ahead);
    }
    AnnouncedBudget announced = node.announced;
    if (announced != null && announced.holds(now, node.starts)) {
      later(announced.resetAt()); // as many started since as remained: none left until the reset
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
    later(Decisions.intervalReadyAt(state.interval(), state.started(), state.lastStart(), now + ahead) - ahead);
    if (placed && blockedByPlaces) {
      placeHolder = limiter;
    }
    if (readyAt != before) {
      timeHolder = limiter;
    }
  }

  @GuardedBy("lock")
  private void later(long time) {
    if (time - readyAt > 0) {
      readyAt = time;
    }
  }

  @GuardedBy("lock")
  private void start(HostQueue queue, long now) {
    Call<?> call = queue.takeHead();
    leaveWaiting(queue);
    call.state = Call.State.IN_FLIGHT;
    call.startedAt = now;
    if (claims != null) {
      claims.started(queue, call);
    }
    takePlaces(queue, call, now);
    outbox.started(call);
    if (outbox.listens()) {
      outbox.emit(new HostpaceEvent.Started(
          queue.node.key, call.uri(), call.attempt, Duration.ofNanos(now - call.queuedAt), now));
    }
  }

  /**
   * {@code call}, of {@code queue}, takes its places and rates, counts against its quotas, and
   * notes the requests in flight beside it: a start's bookkeeping, on either path.
   */
  static void takePlaces(HostQueue queue, Call<?> call, long now) {
    take(queue, now, false);
    startQuota(queue.node, call, now);
    for (GroupGate gate : queue.gates) {
      startQuota(gate.node, call, now);
    }
    Node host = queue.node;
    call.startSeq = host.starts;
    // The pace a start went at: the host's interval, or while a learned quota spaces the starts
    // (the interval 0), its window, which the rule lengthens as the quota's probes are refused.
    LearnedQuota quota = host.quota;
    long interval = host.state.interval();
    long pace = interval == 0 && quota != null ? quota.window : interval;
    call.startedSlower = pace - call.paceAtStart > 0;
    call.paceAtStart = pace;
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
    boolean hostsFirst = host.starts == 1; // a group's rate counts it at its answer (SPEC P1)
    for (GroupGate gate : queue.gates) {
      take(gate, now, hostsFirst);
    }
  }

  private static void take(Limiter limiter, long now, boolean hostsFirst) {
    limiter.inFlight++;
    RateState rate = limiter.rate;
    if (rate != null) {
      rate.start(now, hostsFirst);
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
  static void letGoQuota(HostQueue queue, Call<?> call) {
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
    for (GroupGate gate : queue.gates) {
      gate.waiting--;
    }
    if (--queue.live == 0) {
      queue.unindex();
      queue.clear();
    }
  }

  /**
   * Frees the places of a call of {@code queue}; returns its host's queues that may now start one,
   * in the scheduler's list of the next pump's queues (no allocation per answer). The walks of the
   * queue's gates find the others.
   */
  @GuardedBy("lock")
  private List<HostQueue> release(Call<?> call, long now) {
    HostQueue queue = call.queue;
    letGoPlaces(call);
    queue.inFlight--;
    uncount(queue.node, call, now);
    letGoQuota(queue, call);
    candidates.clear();
    Node node = queue.node;
    for (int i = 0; i < node.queueCount(); i++) {
      HostQueue sibling = node.queueAt(i);
      if (sibling.live > 0) {
        candidates.add(sibling);
      }
    }
    for (GroupGate gate : queue.gates) {
      gate.inFlight--;
    }
    return candidates;
  }

  /**
   * The gates whose walks the end of {@code call}'s attempt pumps: its queue's, and where the call
   * is the probe of a group's learned quota, every gate of that group, whose probe holds the heads
   * of all of them whatever limits their contexts give the group (SPEC P10). Asked before the end
   * is told to the quota, which ends the probe.
   */
  private static GroupGate[] gatesToWalk(HostQueue queue, Call<?> call) {
    GroupGate[] gates = queue.gates;
    ArrayList<GroupGate> walks = null;
    for (GroupGate gate : gates) {
      Node group = gate.node;
      LearnedQuota quota = group.quota;
      if (quota == null || !quota.probe(call) || group.gates.size() == 1) {
        continue;
      }
      if (walks == null) {
        walks = new ArrayList<>(List.of(gates));
      }
      for (GroupGate other : group.gates.values()) {
        if (!walks.contains(other)) {
          walks.add(other);
        }
      }
    }
    return walks == null ? gates : walks.toArray(NO_GATES);
  }

  /**
   * {@code call} of {@code host} no longer holds a place. The requests that started in the same
   * moment had counted it in flight beside them; it was answered before they reached the server,
   * so they count it no more (with virtual time, several answers of one moment are settled one
   * after another, and the requests started in between would otherwise count those still to come).
   */
  static void uncount(Node host, Call<?> call, long now) {
    host.inFlight--;
    ArrayList<Call<?>> recent = host.recent;
    if (recent == null) {
      return;
    }
    if (now - host.recentAt > SAME_MOMENT) {
      // The moment is over: nobody counts beside these any more, and the next start clears them.
      // Cleared now, so that a host kept in use holds nothing of calls that ended (their requests
      // and bodies) until its next start with another in flight.
      if (!recent.isEmpty()) {
        recent.clear();
      }
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

  @GuardedBy("lock")
  private void registerWake(Limiter limiter, long at) {
    if (limiter.wakeRegistered && limiter.wakeAt - at <= 0) {
      return;
    }
    limiter.wakeRegistered = true;
    limiter.wakeAt = at;
    wakes.add(new Wake(at, limiter));
    arm(at);
  }

  @GuardedBy("lock")
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
    Object delivery;
    lock.lock();
    try {
      runHanded();
      armed = null;
      long now = clock.nanoTime();
      pump(List.of(), NO_GATES, now);
      while (!wakes.isEmpty()) {
        Wake next = wakes.peek();
        if (next.limiter.wakeRegistered && next.limiter.wakeAt == next.at) {
          arm(next.at);
          break;
        }
        wakes.poll();
      }
    } finally {
      delivery = outbox.take();
      lock.unlock();
    }
    outbox.deliver(delivery);
    runHandedLeft();
  }

  /** Lets go the fleet's places {@code call} holds, as its attempt ends. */
  private void letGoPlaces(Call<?> call) {
    FleetClaims claims = this.claims;
    if (call.place != null && claims != null) {
      claims.letGoPlaces(call);
    }
  }

  /** The call leaves its queue for good; the queue, its gates and its nodes go when nothing holds them. */
  @GuardedBy("lock")
  private void finish(Call<?> call, Call.State state, long now) {
    letGoPlaces(call);
    call.state = state;
    FleetClaims claims = this.claims;
    if (claims != null) {
      claims.left(call.queue.node);
    }
    nodes.left(call.queue, now);
  }
}

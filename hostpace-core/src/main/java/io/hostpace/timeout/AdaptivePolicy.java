package io.hostpace.timeout;

import io.hostpace.internal.Lru;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.timeout.Budget.Basis;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The adaptive timeout policy (SPEC D1 to D8). Its rules are listed in {@link AdaptiveTimeouts};
 * this comment says why they are so, and what state carries them.
 *
 * <h2>From the naive version up</h2>
 * Seed 003's policy kept one bit per endpoint: after two timeouts in a row, every request got
 * 10 s, until one answered within 10 s. Two heavy attempts of one query (each cut off by the
 * server at 300 s) clamped every later query, heavy or not, to 10 s; their timeouts kept it
 * clamped; only a lucky fast query relaxed it. Ten of twenty stages of a healthy endpoint were
 * lost. Three mistakes, and what this class does instead:
 *
 * <ol>
 * <li><b>It learnt from timeouts.</b> A timeout says only "longer than the budget". Here only
 *     successes are evidence of what a kind takes, kept per (endpoint, kind) ({@link Kind}); a
 *     timeout below the full budget sends the kind back to the full budget, and a timeout at the
 *     full budget changes nothing of the kind's own budget: no shorter one could serve it, and
 *     no longer one is allowed.
 * <li><b>It mixed "dead" with "slow".</b> A dead endpoint fails at once (refused, reset, DNS), and
 *     that is the signal to fail fast ({@link Endpoint#down}). A slow one is still answering: it
 *     only ever reduces the budget of kinds that showed nothing, only when different kinds were
 *     slow at the full budget with no success between ({@link Endpoint#degraded}), and never
 *     below what a kind has been seen to need.
 * <li><b>Its tightened state fed itself.</b> Timeouts at a reduced budget are not evidence of
 *     anything here, and every reduced state decays: a down endpoint gets a trial after a
 *     cool-down that doubles; a degraded one gets the full budget again after a set time or
 *     number of requests. A success of any kind ends degraded; an answer of any kind ends down.
 * </ol>
 *
 * <p>Two more, from a run of eight queries to one endpoint, two of them heavy (SPEC D7, D8). The
 * reduced budget was the floor: the ordinary queries after the heavy ones, no slower than what the
 * endpoint had answered before, were cut off by it. It is now never below what the endpoint's own
 * recent successes took, with the margin ({@link Endpoint#recent}); the floor is for an endpoint
 * with no history. And a heavy query that reaches the server's own limit was evidence that the
 * endpoint is slow, and was sent again at the same budget, to the same 504 each time. The limit is
 * now learned from the 504s ({@link Endpoint#limits}); an attempt that reaches it is the query's
 * own cost: no evidence against the endpoint, and not sent again.
 *
 * <p>With a probe (SPEC D6) the trial and the decay are the engine's probe instead of a real
 * request: down, a probe is due at the end of each cool-down, and one that fails doubles it;
 * degraded, at the decay, and one that fails starts the decay over. A request that would fail
 * fast or get the reduced budget may ask for one at once ({@link #probe} with its kind). Only a
 * probe that succeeds ends either state, as any success or answer does.
 *
 * <h2>A worked example</h2>
 * Default 300 s, floor 30 s, margin 2. {@code subjects} succeeds in 95 s: its budget is 190 s.
 * {@code datatypes} is answered 504 at 300 s, and again on its retry: one kind slow, so nothing
 * else changes, and {@code triples} gets 300 s (it showed nothing). Had {@code triples} been cut
 * off at 300 s too, two kinds would be slow with no success between: degraded, so
 * {@code class-partition} would get 30 s, {@code subjects} still 190 s, and after 4 reduced budgets
 * (or 5 minutes) one kind would get 300 s again. Separately, three refusals in a row make the
 * endpoint down: attempts fail fast for 1 s (or 2 failed-fast attempts), then one trial goes; if
 * it is refused too, the cool-down is 2 s (4 attempts), then 4 s, up to 60 s (64).
 *
 * <h2>Invariants</h2>
 * After every locked section: an endpoint is {@code down} iff, since its last answer (or its last
 * successful probe), it was unreachable {@code failFastAfter} times in a row; while down, an
 * attempt goes only as the one trial in flight, and with a probe never: the probe is the trial.
 * At most one probe per endpoint is out ({@code probeOut}), one unreported for twice its budget
 * taken as lost. An endpoint is {@code degraded} iff,
 * since its last success, {@code degradeAfterKinds} different kinds were slow at the full budget;
 * {@code slowKinds} holds the fewer distinct kinds slow since the last success or since it became
 * degraded. A kind's {@code learned} budget is 0 or in [floor, default budget], and comes from its
 * successes only. A budget given to a kind with successes is at least its slowest recent success
 * (up to the default budget); one given to a kind with none, unless it fails fast, at least the
 * endpoint's slowest recent success (the margin applied to both, with the default percentile).
 * An attempt that reached the server's limit never adds a kind to {@code slowKinds}.
 *
 * <p>Thread-safe: all state is guarded by {@code lock}, held for a few map lookups and some
 * arithmetic; events are delivered after it is let go. Memory is bounded: at most
 * {@code capacity} endpoints and {@code capacity} (endpoint, kind) pairs, the least recently
 * used forgotten (as if never seen). {@link #budget} of an endpoint never reported on allocates
 * nothing and stores nothing.
 */
final class AdaptivePolicy implements TimeoutPolicy {

  /** How many of an endpoint's latest 504s after at least the floor its limit is read from. */
  private static final int LIMIT_SAMPLES = 4;

  /** What the policy knows of one endpoint. */
  private static final class Endpoint {
    // The unreachable side.
    int unreachableInARow;
    boolean down;
    /** When the cool-down ends. */
    long downUntil;
    /** The current cool-down: doubles with each failed trial, back to the first on an answer. */
    long coolDown;
    int coolDownRequests;
    /** Attempts failed fast since the cool-down began. */
    int failedFast;
    boolean trialOut;
    long trialAt;
    boolean probeOut;
    long probeAt;

    // The slow side.
    final String[] slowKinds;
    int slowCount;
    boolean degraded;
    /** Since when the full budget has not been tried while degraded. */
    long decayFrom;
    /** Reduced budgets given since then. */
    int reducedSince;
    /** The durations of the last successes of any kind, a ring. */
    final Successes recent;
    /** The budget they call for, the reduced budget's least (D7); 0 before any success. */
    long learned;

    // The server's own limit (D8).
    /** The durations of the last 504s that came after at least the floor, a ring. */
    final long[] limits = new long[LIMIT_SAMPLES];
    int limitCount;
    int limitNext;

    Endpoint(int kinds, int window) {
      this.slowKinds = new String[kinds];
      this.recent = new Successes(window);
    }
  }

  /** The durations of the last successes, a ring. */
  private static final class Successes {
    final long[] durations;
    int size;
    int next;

    Successes(int window) {
      this.durations = new long[window];
    }

    void add(long nanos) {
      durations[next] = Math.max(0, nanos);
      next = (next + 1) % durations.length;
      size = Math.min(size + 1, durations.length);
    }
  }

  /** What the policy knows of one kind at one endpoint. */
  private static final class Kind {
    /** The last successes' durations. */
    final Successes recent;
    /** The budget learned from them; 0 when nothing is learned. */
    long learned;
    /** Cut off below the full budget since its last success: it gets the full budget next. */
    boolean restore;

    Kind(int window) {
      this.recent = new Successes(window);
    }
  }

  private record KindKey(String endpoint, String kind) {}

  private final AdaptiveTimeouts config;
  private final long full;
  private final long floor;
  private final double margin;
  private final double percentile;
  private final int window;
  private final int failFastAfter;
  private final long firstCoolDown;
  private final long maxCoolDown;
  private final int firstCoolDownRequests;
  private final int maxCoolDownRequests;
  private final int degradeAfterKinds;
  private final long decayAfter;
  private final int decayAfterRequests;
  /** The probe's budget; 0 when there is no probe. */
  private final long probe;
  /** The server's limit as configured, until a 504 teaches it; 0 when none is known. */
  private final long configuredLimit;
  private final @Nullable Consumer<TimeoutEvent> listener;
  private final Budget fullBudget;
  private final Budget reducedBudget;

  private final ReentrantLock lock = new ReentrantLock();
  @GuardedBy("lock")
  private final Lru<String, Endpoint> endpoints;
  @GuardedBy("lock")
  private final Lru<KindKey, Kind> kinds;
  // the events of the current locked section, delivered after it
  @GuardedBy("lock")
  private final List<TimeoutEvent> events = new ArrayList<>();

  AdaptivePolicy(AdaptiveTimeouts config) {
    this.config = config;
    this.full = config.defaultBudget().toNanos();
    this.floor = config.floor().toNanos();
    this.margin = config.margin();
    this.percentile = config.percentile();
    this.window = config.window();
    this.failFastAfter = config.failFastAfter();
    this.firstCoolDown = config.coolDown().toNanos();
    this.maxCoolDown = config.maxCoolDown().toNanos();
    this.firstCoolDownRequests = config.coolDownRequests();
    this.maxCoolDownRequests = config.maxCoolDownRequests();
    this.degradeAfterKinds = config.degradeAfterKinds();
    this.decayAfter = config.decayAfter().toNanos();
    this.decayAfterRequests = config.decayAfterRequests();
    this.probe = config.probeBudget() == null ? 0 : config.probeBudget().toNanos();
    this.configuredLimit = config.serverLimit() == null ? 0 : config.serverLimit().toNanos();
    this.listener = config.listener();
    this.fullBudget = Budget.send(full, Basis.DEFAULT);
    this.reducedBudget = Budget.send(config.degradedBudget().toNanos(), Basis.DEGRADED);
    this.endpoints = new Lru<>(config.capacity());
    this.kinds = new Lru<>(config.capacity());
  }

  // ---------------------------------------------------------------- decisions

  @Override
  public Budget budget(long now, String endpoint, String kind) {
    List<TimeoutEvent> delivered = List.of();
    lock.lock();
    try {
      try {
        Endpoint state = endpoints.get(endpoint);
        if (state == null) {
          return fullBudget;
        }
        return decide(now, state, kinds.get(new KindKey(endpoint, kind)));
      } finally {
        delivered = takeEvents();
      }
    } finally {
      lock.unlock();
      deliver(delivered);
    }
  }

  @Override
  public boolean probes() {
    return probe > 0;
  }

  @Override
  public @Nullable Budget probe(long now, String endpoint, @Nullable String kind) {
    if (probe == 0) {
      return null;
    }
    lock.lock();
    try {
      Endpoint state = endpoints.get(endpoint);
      if (state == null || !(state.down || state.degraded) || !probeFree(state, now)) {
        return null;
      }
      boolean due;
      if (kind != null) {
        // A request asks: down, it would fail fast; degraded, a kind that showed nothing would get
        // the reduced budget. Either way a cheap probe first may spare it.
        Kind known = kinds.get(new KindKey(endpoint, kind));
        due = state.down || known == null || (!known.restore && known.learned == 0);
      } else {
        due = probeIn(state, now) == 0;
      }
      if (!due) {
        return null;
      }
      state.probeOut = true;
      state.probeAt = now;
      return Budget.probe(probe);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long probeIn(long now, String endpoint) {
    if (probe == 0) {
      return -1;
    }
    lock.lock();
    try {
      Endpoint state = endpoints.get(endpoint);
      return state == null ? -1 : probeIn(state, now);
    } finally {
      lock.unlock();
    }
  }

  /** When the timer's next probe of a held endpoint is due, from now; -1 for a healthy one. */
  private long probeIn(Endpoint state, long now) {
    if (!(state.down || state.degraded)) {
      return -1;
    }
    if (state.probeOut && now - state.probeAt < 2 * probe) {
      return state.probeAt + 2 * probe - now; // when the probe out is taken as lost
    }
    if (state.down) {
      return Math.max(0, state.downUntil - now);
    }
    if (state.reducedSince >= decayAfterRequests) {
      return 0;
    }
    return Math.max(0, state.decayFrom + decayAfter - now);
  }

  @Override
  public void onProbe(long now, String endpoint, Outcome outcome, long durationNanos) {
    List<TimeoutEvent> delivered = List.of();
    lock.lock();
    try {
      try {
        Endpoint state = endpoints.get(endpoint);
        if (state == null || probe == 0) {
          return;
        }
        state.probeOut = false;
        if (outcome == Outcome.SUCCESS) {
          // Up, and a cheap query answered in time: not busy either. The full budget is back.
          reachable(state, now, endpoint);
          if (state.degraded) {
            recover(state, now, endpoint);
          }
        } else if (state.down) {
          // The probe is the trial: it failed, so the cool-down doubles, and with it the next probe.
          lengthenCoolDown(state, now, endpoint);
        } else if (state.degraded) {
          // Still slow, or worse: the state holds, and the next probe is a decay away.
          state.decayFrom = now;
          state.reducedSince = 0;
          if (outcome == Outcome.UNREACHABLE) {
            unreachable(state, now, endpoint, false);
          }
        }
      } finally {
        delivered = takeEvents();
      }
    } finally {
      lock.unlock();
      deliver(delivered);
    }
  }

  /** The decision for an attempt of {@code kind}; may change the counters of a reduced state. */
  private Budget decide(long now, Endpoint state, @Nullable Kind kind) {
    if (state.down) {
      if (probe > 0) {
        // The engine's probe is the trial (SPEC D6): no real request goes until one succeeds.
        state.failedFast++;
        return Budget.failFast(state.downUntil - now);
      }
      boolean trialInFlight = state.trialOut && now - state.trialAt < state.coolDown;
      boolean trialDue = now - state.downUntil >= 0 || state.failedFast >= state.coolDownRequests;
      if (!trialInFlight && trialDue) {
        state.trialOut = true;
        state.trialAt = now;
        return Budget.send(own(kind), Basis.TRIAL);
      }
      state.failedFast++;
      return Budget.failFast(state.downUntil - now);
    }
    if (kind != null && kind.restore) {
      return fullBudget;
    }
    if (kind != null && kind.learned > 0) {
      return Budget.send(kind.learned, Basis.LEARNED);
    }
    if (!state.degraded) {
      return fullBudget;
    }
    // With a probe, the decay is the probe's (SPEC D6): a real request gets the full budget again
    // only once a probe succeeded.
    if (probe == 0 && (now - state.decayFrom >= decayAfter || state.reducedSince >= decayAfterRequests)) {
      state.decayFrom = now;
      state.reducedSince = 0;
      return Budget.send(full, Basis.DECAY);
    }
    state.reducedSince++;
    // Never below what the endpoint was seen to take lately (SPEC D7).
    return state.learned > reducedBudget.nanos() ? Budget.send(state.learned, Basis.DEGRADED) : reducedBudget;
  }

  /** The kind's own budget, as if the endpoint were healthy. */
  private long own(@Nullable Kind kind) {
    return kind != null && !kind.restore && kind.learned > 0 ? kind.learned : full;
  }

  /** No probe in flight (one not reported within twice its budget is taken as lost). */
  private boolean probeFree(Endpoint state, long now) {
    return probe > 0 && (!state.probeOut || now - state.probeAt >= 2 * probe);
  }

  // ---------------------------------------------------------------- outcomes

  @Override
  public void onOutcome(long now, String endpoint, String kind, Outcome outcome, long durationNanos) {
    List<TimeoutEvent> delivered = List.of();
    lock.lock();
    try {
      try {
        Endpoint state = stateOf(endpoint);
        switch (outcome) {
          case SUCCESS -> {
            reachable(state, now, endpoint);
            learn(kind(endpoint, kind), durationNanos);
            state.recent.add(durationNanos);
            state.learned = budgetFrom(state.recent);
            state.slowCount = 0;
            Arrays.fill(state.slowKinds, null);
            if (state.degraded) {
              recover(state, now, endpoint);
            }
          }
          case REJECTED, SERVER_ERROR -> reachable(state, now, endpoint);
          case SERVER_TIMEOUT -> {
            reachable(state, now, endpoint);
            if (durationNanos >= floor) {
              state.limits[state.limitNext] = durationNanos;
              state.limitNext = (state.limitNext + 1) % LIMIT_SAMPLES;
              state.limitCount = Math.min(state.limitCount + 1, LIMIT_SAMPLES);
            }
            // The server's own limit is the query's cost, not the endpoint's slowness (D8).
            if (!reachedLimit(state, durationNanos)) {
              slow(state, now, endpoint, kind);
            }
          }
          case TIMED_OUT -> {
            // The connection was made and the endpoint is working on it: slow, not dead (D3).
            reachable(state, now, endpoint);
            // At the full budget, give or take the adapter's timing (1 %): slow evidence; below it,
            // the kind was cut off at a learned or reduced budget and needs more.
            if (durationNanos >= full - full / 100) {
              if (!reachedLimit(state, durationNanos)) {
                slow(state, now, endpoint, kind);
              }
            } else {
              kind(endpoint, kind).restore = true;
            }
          }
          case UNREACHABLE -> unreachable(state, now, endpoint, true);
        }
      } finally {
        delivered = takeEvents();
      }
    } finally {
      lock.unlock();
      deliver(delivered);
    }
  }

  @GuardedBy("lock")
  private Kind kind(String endpoint, String kind) {
    KindKey key = new KindKey(endpoint, kind);
    Kind state = kinds.get(key);
    if (state == null) {
      state = new Kind(window);
      kinds.put(key, state);
    }
    return state;
  }

  private void learn(Kind kind, long durationNanos) {
    kind.recent.add(durationNanos);
    kind.restore = false;
    kind.learned = budgetFrom(kind.recent);
  }

  /**
   * The budget that successes call for: their {@code percentile} times the margin, between the
   * floor and the full budget; 0 for none.
   */
  private long budgetFrom(Successes successes) {
    if (successes.size == 0) {
      return 0;
    }
    long sample;
    if (percentile >= 1) {
      sample = 0;
      for (int i = 0; i < successes.size; i++) {
        sample = Math.max(sample, successes.durations[i]);
      }
    } else {
      long[] sorted = Arrays.copyOf(successes.durations, successes.size);
      Arrays.sort(sorted);
      sample = sorted[Math.max(0, (int) Math.ceil(percentile * successes.size) - 1)];
    }
    double budget = sample * margin;
    return budget >= full ? full : Math.max(floor, (long) Math.ceil(budget));
  }

  /**
   * Whether an attempt that ended after {@code durationNanos} reached the server's limit: within
   * a tenth of it either way. The limit is the longest of the last 504s that came after at least
   * the floor, or the configured one until there is such a 504; with neither, nothing reaches it.
   * An attempt that went on well past the limit was not ended by it: the limit known is not the
   * one at work, and the attempt is evidence of what it seems.
   */
  private boolean reachedLimit(Endpoint state, long durationNanos) {
    long limit = configuredLimit;
    if (state.limitCount > 0) {
      limit = 0;
      for (int i = 0; i < state.limitCount; i++) {
        limit = Math.max(limit, state.limits[i]);
      }
    }
    return limit > 0 && durationNanos >= limit - limit / 10 && durationNanos <= limit + limit / 10;
  }

  @Override
  public boolean reachedServerLimit(String endpoint, Outcome outcome, long durationNanos) {
    if (outcome != Outcome.SERVER_TIMEOUT && outcome != Outcome.TIMED_OUT) {
      return false;
    }
    lock.lock();
    try {
      Endpoint state = endpoints.get(endpoint);
      return state != null && reachedLimit(state, durationNanos);
    } finally {
      lock.unlock();
    }
  }

  /** Slow at the full budget: evidence against the endpoint only together with other kinds. */
  @GuardedBy("lock")
  private void slow(Endpoint state, long now, String endpoint, String kind) {
    if (state.degraded) {
      // The full budget was tried again, and it was not enough: the decay starts over.
      state.decayFrom = now;
      state.reducedSince = 0;
      return;
    }
    for (int i = 0; i < state.slowCount; i++) {
      if (state.slowKinds[i].equals(kind)) {
        return; // the retries of one query are one kind
      }
    }
    state.slowKinds[state.slowCount++] = kind;
    if (state.slowCount >= degradeAfterKinds) {
      state.slowCount = 0;
      Arrays.fill(state.slowKinds, null);
      state.degraded = true;
      state.decayFrom = now;
      state.reducedSince = 0;
      emit(now, endpoint, TimeoutEvent.Type.DEGRADED, 0);
    }
  }

  @GuardedBy("lock")
  private void recover(Endpoint state, long now, String endpoint) {
    state.degraded = false;
    state.slowCount = 0;
    Arrays.fill(state.slowKinds, null);
    emit(now, endpoint, TimeoutEvent.Type.RECOVERED, 0);
  }

  /** An answer, or at least a connection: the endpoint is up. */
  @GuardedBy("lock")
  private void reachable(Endpoint state, long now, String endpoint) {
    state.unreachableInARow = 0;
    state.coolDown = firstCoolDown;
    state.coolDownRequests = firstCoolDownRequests;
    if (state.down) {
      state.down = false;
      state.trialOut = false;
      state.failedFast = 0;
      emit(now, endpoint, TimeoutEvent.Type.UP, 0);
    }
  }

  /**
   * Refused, reset, DNS, TLS. {@code attempt} is false for a probe, which is never the trial: a
   * refused probe fails the asking attempt, but does not lengthen the cool-down.
   */
  @GuardedBy("lock")
  private void unreachable(Endpoint state, long now, String endpoint, boolean attempt) {
    state.unreachableInARow++;
    if (state.down) {
      if (attempt && state.trialOut) {
        state.trialOut = false;
        lengthenCoolDown(state, now, endpoint);
      }
    } else if (state.unreachableInARow >= failFastAfter) {
      state.down = true;
      state.coolDown = firstCoolDown;
      state.coolDownRequests = firstCoolDownRequests;
      state.downUntil = now + firstCoolDown;
      state.failedFast = 0;
      state.trialOut = false;
      emit(now, endpoint, TimeoutEvent.Type.DOWN, firstCoolDown);
    }
  }

  /** A trial (or the probe that stands for it) failed: the cool-down doubles, from now. */
  @GuardedBy("lock")
  private void lengthenCoolDown(Endpoint state, long now, String endpoint) {
    state.coolDown = state.coolDown > maxCoolDown / 2 ? maxCoolDown : Math.min(maxCoolDown, state.coolDown * 2);
    state.coolDownRequests = Math.min(maxCoolDownRequests, state.coolDownRequests * 2);
    state.downUntil = now + state.coolDown;
    state.failedFast = 0;
    emit(now, endpoint, TimeoutEvent.Type.DOWN, state.coolDown);
  }

  // ---------------------------------------------------------------- events

  @GuardedBy("lock")
  private void emit(long now, String endpoint, TimeoutEvent.Type type, long nanos) {
    if (listener != null) {
      events.add(new TimeoutEvent(now, endpoint, type, nanos));
    }
  }

  /** The state of {@code endpoint}, made at its first outcome. */
  @GuardedBy("lock")
  private Endpoint stateOf(String endpoint) {
    Endpoint state = endpoints.get(endpoint);
    if (state == null) {
      state = new Endpoint(degradeAfterKinds, window);
      endpoints.put(endpoint, state);
    }
    return state;
  }

  /** The events of the current locked section, taken to be delivered once the lock is let go. */
  @GuardedBy("lock")
  private List<TimeoutEvent> takeEvents() {
    if (events.isEmpty()) {
      return List.of();
    }
    List<TimeoutEvent> taken = List.copyOf(events);
    events.clear();
    return taken;
  }

  private void deliver(List<TimeoutEvent> delivered) {
    Consumer<TimeoutEvent> to = listener;
    if (to == null) {
      return;
    }
    for (TimeoutEvent event : delivered) {
      try {
        to.accept(event);
      } catch (RuntimeException ignored) {
        // a listener that throws cannot break the policy
      }
    }
  }

  @Override
  public String toString() {
    return "adaptive(default " + Durations.format(full) + ", floor " + Durations.format(floor)
        + ", margin " + margin + (probe > 0 ? ", probe " + Durations.format(probe) : "") + ")";
  }

  AdaptiveTimeouts config() {
    return config;
  }
}

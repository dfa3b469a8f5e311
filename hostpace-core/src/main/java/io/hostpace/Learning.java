package io.hostpace;

import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What answers teach the hosts and groups they concern: a pause for a {@code Retry-After}
 * (SPEC R2, R3), the learning rule's interval, in-flight limit and quota otherwise (R4), the
 * quota a host announces (R8), and, with a fleet, the lesson told to the other processes (S2).
 * Each change is an event for the listener. The pacing itself reads what this leaves in each
 * node's {@link HostState}; nothing here starts or holds a request.
 *
 * <p>Called under the engine's lock, by the {@link Scheduler}, before the answered request lets
 * its place go (SPEC R5), so the request started in its place already goes at the new pace.
 *
 * <p>A learning rule that throws changes nothing it would have set (the interval, the in-flight
 * limit), and the answer goes on to release its place, retry or end its call as it says: a rule is
 * code the engine was given, and its failure is logged (SPEC L2), never a request held for good.
 */
final class Learning {

  private final LearningRule rule;
  private final long retryDelayLimit;
  private final Outbox outbox;
  private final @Nullable Fleet fleet;
  private final @Nullable FleetClaims claims;
  private final @Nullable FleetMemory memory;
  /** The engine's clock, which the rule may read the wall clock from at a refusal. */
  private final Clock clock;

  Learning(LearningRule rule, Duration retryDelayLimit, Outbox outbox, @Nullable Fleet fleet,
      @Nullable FleetClaims claims, @Nullable FleetMemory memory, Clock clock) {
    this.rule = rule;
    this.clock = clock;
    this.retryDelayLimit = retryDelayLimit.toNanos();
    this.outbox = outbox;
    this.fleet = fleet;
    this.claims = claims;
    this.memory = memory;
  }

  /** What the answer to {@code call}'s attempt teaches its host and each of its groups; its events to the lock's outbox. */
  void learn(Call<?> call, Verdict verdict, long now) {
    learn(call, verdict, now, outbox);
  }

  /** {@link #learn(Call, Verdict, long)}, its events to {@code events}. */
  void learn(Call<?> call, Verdict verdict, long now, Events events) {
    HostQueue queue = call.queue;
    if (verdict.refusal()) {
      queue.count(Node.Counter.REFUSALS);
      if (events.listens()) {
        events.emit(new HostpaceEvent.Refused(
            queue.node.key, call.uri(), call.attempt, verdict.status(),
            verdict.retryAfterNanos() < 0 ? null : Duration.ofNanos(verdict.retryAfterNanos()), now));
      }
    }
    teach(events, queue.node, call, call.startedAt, verdict.refusal(), verdict.retryAfterNanos(), now);
    FleetClaims claims = this.claims;
    if (claims != null) {
      claims.probeSettled(queue.node, now);
      if (verdict.refusal() && call.place != null) {
        claims.letGoQuotaPlace(call, true);
      }
    }
    // How many were in flight at the start: for an answer, this process's own count is a floor of
    // what the host held at once; for a refusal, the fleet's count of places is a ceiling (0: none).
    int inFlight = verdict.refusal() ? FleetClaims.fleetCount(call) : call.inFlightAtStart;
    tell(queue.node, call, verdict, inFlight, now);
    for (GroupGate gate : queue.gates) {
      teach(events, gate.node, call, call.startedAt, verdict.refusal(), verdict.retryAfterNanos(), now);
      tell(gate.node, call, verdict, 0, now);
    }
    int inFlightAtStart = inFlight > 0 ? inFlight : call.inFlightAtStart;
    learnInFlight(events, queue.node, call.startedAt, inFlightAtStart, verdict.refusal(), verdict.retryAfterNanos(), now);
    if (verdict.refusal() && verdict.retryAfterNanos() >= 0) {
      paceAfterPause(events, queue.node, call.startedAt, inFlightAtStart, now);
    }
    if (queue.node.opening > 0) {
      open(events, queue.node, queue.cap, verdict.refusal(), verdict.retryAfterNanos() >= 0, call.inFlightAtStart, now);
    }
    // The host's own announced quota, not its groups'.
    if (verdict.quotaRemaining() >= 0) {
      AnnouncedBudget budget = queue.node.announced();
      long pause = budget.heard(verdict.quotaRemaining(), verdict.quotaLimit(), verdict.quotaResetNanos(),
          call.startSeq, now, retryDelayLimit);
      if (pause > 0) {
        pause(events, queue.node, pause, now);
      }
      FleetMemory memory = this.memory;
      if (memory != null) { // spent by the fleet together (SPEC S3)
        memory.announced(call, verdict.quotaRemaining(), Math.min(verdict.quotaResetNanos(), retryDelayLimit), budget);
      }
    }
    FleetMemory memory = this.memory;
    if (memory != null) {
      memory.answered(queue.node, now);
      for (GroupGate gate : queue.gates) {
        memory.answered(gate.node, now);
      }
    }
  }

  /**
   * What the fleet keeps of {@code node}, read as the engine met it (SPEC S3): what the node has
   * not learned meanwhile is taught as if learned now, held to this engine's limits as what a store
   * opens is ({@link Decisions#held}: a pause to the retry delay limit, an interval and a quota's
   * window clamped); a node the fleet knows something of is known, and so opens with what it was
   * told (SPEC P12). A host's announced quota, kept with its window, makes the host's budget of this
   * window and the next before any answer of its own (SPEC R8), so that its starts are spent from
   * the fleet's count from the first (SPEC S3).
   */
  void recalled(Node node, Fleet.@Nullable Kept kept, long now) {
    if (kept == null || kept.nothing()) {
      return;
    }
    long pauseLeft = kept.pauseLeftNanos();
    Decisions.Taught held = Decisions.held(new Decisions.Taught(pauseLeft > 0, now + pauseLeft, kept.intervalNanos(),
        kept.inFlightLimit(), kept.quotaPermits(), kept.quotaWindowNanos()), now, retryDelayLimit);
    HostState state = node.state;
    if (state.interval() == 0 && held.interval() > 0) {
      interval(outbox, node, held.interval(), now);
    }
    if (!node.group && state.inFlightLimit() == 0 && held.inFlightLimit() > 0) {
      state.inFlightLimit(held.inFlightLimit());
      if (outbox.listens()) {
        outbox.emit(new HostpaceEvent.InFlightLimitChanged(node.key, 0, held.inFlightLimit(), now));
      }
    }
    if (node.quota == null && held.quotaPermits() > 0) {
      long window = held.quotaWindow();
      state.quota(held.quotaPermits(), window);
      node.quota = LearnedQuota.recalled(held.quotaPermits(), window, Math.min(kept.quotaFullForNanos(), window), now);
      if (outbox.listens()) {
        outbox.emit(new HostpaceEvent.QuotaChanged(node.key, null, quotaOf(node.quota), now));
      }
    }
    if (!node.group && kept.announcedLimit() > 0) {
      long window = Math.min(kept.announcedWindowNanos(), retryDelayLimit);
      node.announced().recalled(kept.announcedLimit(), window, Math.min(kept.announcedResetNanos(), window),
          node.starts, now);
    }
    if (held.paused()) {
      pause(outbox, node, held.pausedUntil() - now, now);
    }
    node.endOpening();
  }

  /**
   * What the fleet keeps of {@code node}, read as this process rejoined the fleet after it could
   * not be asked (SPEC S4): each process paced and learned alone meanwhile, so their paces drifted
   * apart, and each claims the fleet's starts with its own (the slowest then never finds a gap as
   * long as its interval between the others' grants, and learns nothing that would bring it back).
   * The kept interval and quota, held to this engine's limits as a recalled one is, are taken as
   * this process's own (none, when the fleet keeps none: a host paced by a configured rate alone, or
   * a quota one process believed it met alone), and the rule goes on from them as from a pace it had
   * just set, its memory of the host dropped, even where the pace is the one this process had: so
   * every process goes on from one pace and one memory, and, hearing the same answers from then on,
   * learns alike. A fleet that could not be asked leaves the node as it is.
   */
  void rejoined(Node node, Fleet.@Nullable Kept kept, long now) {
    if (kept == null) {
      return;
    }
    Decisions.Taught held = Decisions.held(new Decisions.Taught(false, now, kept.intervalNanos(),
        kept.inFlightLimit(), kept.quotaPermits(), kept.quotaWindowNanos()), now, retryDelayLimit);
    HostState state = node.state;
    state.memory(null);
    long before = state.interval();
    state.interval(held.interval(), now);
    if (held.interval() != before && outbox.listens()) {
      outbox.emit(new HostpaceEvent.IntervalChanged(node.key, Duration.ofNanos(before), Duration.ofNanos(held.interval()), now));
    }
    LearnedQuota quota = node.quota;
    if (quota == null && held.quotaPermits() == 0
        || quota != null && quota.permits == held.quotaPermits() && quota.window == held.quotaWindow()) {
      return;
    }
    state.quota(held.quotaPermits(), held.quotaWindow());
    node.quota = held.quotaPermits() == 0 ? null : LearnedQuota.recalled(
        held.quotaPermits(), held.quotaWindow(), Math.min(kept.quotaFullForNanos(), held.quotaWindow()), now);
    if (outbox.listens()) {
      outbox.emit(new HostpaceEvent.QuotaChanged(node.key, quotaOf(quota), quotaOf(node.quota), now));
    }
  }

  /**
   * What another process of the fleet was told by {@code node}'s host or group (SPEC S2): it
   * teaches as if the answer had been this engine's, but for the node's learned quota, which
   * counts this engine's starts, and hears of others' only where their windows begin.
   */
  void heard(Node node, Fleet.Lesson lesson, long now) {
    long startedAt = now - lesson.tookNanos();
    teach(outbox, node, null, startedAt, lesson.refused(), lesson.retryAfterNanos(), now);
    FleetClaims claims = this.claims;
    if (!node.group && claims != null) {
      claims.probeSettled(node, now);
    }
    if (!node.group && lesson.inFlightAtStart() > 0) {
      learnInFlight(outbox, node, startedAt, lesson.inFlightAtStart(), lesson.refused(), lesson.retryAfterNanos(), now);
      if (lesson.refused() && lesson.retryAfterNanos() >= 0) {
        paceAfterPause(outbox, node, startedAt, lesson.inFlightAtStart(), now);
      }
    }
    if (node.opening > 0 && lesson.refused()) {
      // refused another process: this one's opening ends too
      open(outbox, node, Integer.MAX_VALUE, true, lesson.retryAfterNanos() >= 0, 0, now);
    } else if (node.opening > 0) {
      // accepted by another process: the fleet opens the host as one engine, each process at its
      // share of the width (Scheduler.openingShare), and every answer widens it
      open(outbox, node, Integer.MAX_VALUE, false, false, 1, now);
    }
  }

  /**
   * The width up to which each accepted answer of an opening widens it by one (SPEC P12), so that it
   * doubles each round trip, as TCP's slow start; from there it widens by one a round trip, as TCP's
   * congestion avoidance, so that a host whose limit is a count (a window's quota, a gate) is met with
   * fewer requests in flight than it accepted before, not as many again.
   */
  static final int OPENING_DOUBLES_UP_TO = 4;

  /**
   * An answer during a host's opening (SPEC P12): accepted, the first of an opening of one lets one
   * more start alone (its place), and each later one widens the opening by one (the answered
   * request's place and one more) while the opening is under {@link #OPENING_DOUBLES_UP_TO}, and
   * from there by one for as many accepted answers as the opening is wide, until the opening
   * reaches {@code cap}, the queue's in-flight limit, and ends; refused, it ends the opening once
   * any answer was accepted (before, the opening goes on at the width it has, after whatever pause
   * was asked). A refusal that asked
   * for a pause ({@code paused}: a gate's way, SPEC R9) leaves the most that were accepted at once
   * as the host's learned in-flight limit, unless the rule set one (in a fleet, whose processes each
   * held a share of the width, the width less the one refused); a bare refusal is a rate's way,
   * and leaves the host to the interval the rule set for it, its starts spaced from then on.
   */
  private void open(Events events, Node host, int cap, boolean refused, boolean paused, int inFlightAtStart, long now) {
    if (!refused) {
      boolean first = host.openingAccepted == 0;
      host.openingAccepted = Math.max(host.openingAccepted, inFlightAtStart);
      if (first && host.opening == 1) {
        return; // the second request goes alone: a host that takes one at a time refuses one, not two
      }
      if (host.opening >= OPENING_DOUBLES_UP_TO && ++host.openingAnswers < host.opening) {
        return;
      }
      host.openingAnswers = 0;
      host.opening = host.opening + 1 >= cap ? 0 : host.opening + 1;
      return;
    }
    if (host.openingAccepted == 0) {
      return; // nothing accepted yet, nothing widened: the opening goes on from where it is
    }
    int width = host.opening;
    host.endOpening();
    host.openedBefore = host.starts;
    host.openingEndedAt = now;
    HostState state = host.state;
    if (paused && state.inFlightLimit() == 0) {
      // What this engine had in flight at once; in a fleet, where each process held its share of
      // the opening, the fleet's: as many as the opening was wide, less the one refused.
      int limit = claims == null ? host.openingAccepted : Math.max(host.openingAccepted, width - 1);
      state.inFlightLimit(limit);
      if (events.listens()) {
        events.emit(new HostpaceEvent.InFlightLimitChanged(host.key, 0, limit, now));
      }
    }
  }

  /** Pauses the host or group for {@code nanos}, at most the retry delay limit, unless it is paused longer already. */
  void pause(Node node, long nanos, long now) {
    pause(outbox, node, nanos, now);
  }

  private void pause(Events events, Node node, long nanos, long now) {
    HostState state = node.state;
    long pause = Decisions.pause(nanos, retryDelayLimit);
    long until = now + pause;
    if (Decisions.lengthens(state.paused(), state.pausedUntil(), until)) {
      state.pauseUntil(until);
      if (events.listens()) {
        events.emit(new HostpaceEvent.Paused(node.key, Duration.ofNanos(pause), now));
      }
    }
  }

  /** Clears what {@code node} taught: its pause, interval, in-flight limit, quotas and the rule's memory (SPEC R7). */
  static void forget(Node node, long now) {
    HostState state = node.state;
    state.clearPause();
    state.interval(0, now);
    state.inFlightLimit(0);
    state.quota(0, 0);
    node.quota = null;
    state.memory(null);
    node.endOpening();
    node.openingAccepted = 0;
    AnnouncedBudget announced = node.announced;
    if (announced != null) {
      announced.forget();
    }
  }

  /**
   * What the host's answer to a request started at {@code startedAt} as the {@code inFlightAtStart}-th
   * at once says of how many requests it holds at once; hosts only, not groups.
   */
  private void learnInFlight(
      Events events, Node node, long startedAt, int inFlightAtStart, boolean refusal, long retryAfterNanos, long now) {
    HostState state = node.state;
    int before = state.inFlightLimit();
    int after;
    try {
      if (!refusal) {
        after = rule.inFlightAfterAnswer(now, startedAt, inFlightAtStart, state);
      } else if (retryAfterNanos >= 0) {
        after = rule.inFlightAfterPause(now, startedAt, inFlightAtStart, state);
      } else {
        return;
      }
    } catch (RuntimeException | Error e) {
      events.ruleThrew(rule, e);
      return;
    }
    after = Math.max(0, after);
    if (after != before) {
      state.inFlightLimit(after);
      if (events.listens()) {
        events.emit(new HostpaceEvent.InFlightLimitChanged(node.key, before, after, now));
      }
    }
  }

  /**
   * What a refusal with {@code Retry-After} of a request started as the {@code inFlightAtStart}-th
   * teaches the host's interval, beyond the pause (SPEC R9); hosts only, not groups.
   */
  private void paceAfterPause(Events events, Node node, long startedAt, int inFlightAtStart, long now) {
    long ruled;
    try {
      ruled = rule.intervalAfterPause(now, startedAt, inFlightAtStart, node.state);
    } catch (RuntimeException | Error e) {
      events.ruleThrew(rule, e);
      return;
    }
    interval(events, node, ruled, now);
  }

  /** Sets {@code node}'s interval to what the rule {@code ruled}, clamped, telling the listener of a change. */
  private void interval(Events events, Node node, long ruled, long now) {
    HostState state = node.state;
    long interval = state.interval();
    long next = Decisions.interval(ruled);
    if (next != interval) {
      state.interval(next, now);
      if (events.listens()) {
        events.emit(new HostpaceEvent.IntervalChanged(node.key, Duration.ofNanos(interval), Duration.ofNanos(next), now));
      }
    }
  }

  /** Tells the fleet, if any, what {@code call}'s answer taught {@code node} (SPEC S2). */
  private void tell(Node node, Call<?> call, Verdict verdict, int inFlightAtStart, long now) {
    Fleet fleet = this.fleet;
    if (fleet != null) {
      fleet.tell(new Fleet.Lesson(
          node.key, verdict.refusal(), verdict.retryAfterNanos(), now - call.startedAt, inFlightAtStart));
    }
  }

  /**
   * Teaches {@code node} an answer to a request started at {@code startedAt}: {@code call}'s, or,
   * when null, another process's (which the node's learned quota, counting this engine's starts,
   * does not hear).
   */
  private void teach(
      Events events, Node node, @Nullable Call<?> call, long startedAt, boolean refusal, long retryAfterNanos, long now) {
    HostState state = node.state;
    if (refusal && retryAfterNanos >= 0) {
      pause(events, node, retryAfterNanos, now);
      return;
    }
    FleetState fleetState = node.fleet;
    if (refusal && fleetState != null && fleetState.settling(now)) {
      return; // rejoining the fleet: a refusal of the outage's starts (SPEC S4)
    }
    int permits = state.quotaPermits();
    long window = state.quotaWindow();
    LearnedQuota quota = node.quota;
    boolean probeRefused = refusal && quota != null && quota.probe(call);
    if (quota != null) {
      quota.answered(call, startedAt, !refusal);
    }
    if (refusal && fleet == null && call != null && node == call.queue.node && call.startSeq <= node.openedBefore
        && startedAt == node.openingEndedAt) {
      // Started by the opening in the nanosecond a refusal ended it, before that end (an accepted
      // answer of the same moment widened it first): the rule, which compares times, is told a
      // start a nanosecond earlier, before what it set at that end, as the start was (SPEC P12).
      // Not in a fleet: the others hear this refusal as it came, and their rules cut for it.
      startedAt = startedAt - 1;
    }
    long next;
    try {
      next = refusal
          ? call == null ? rule.onRefusalHeard(now, startedAt, state) : rule.onRefusal(now, startedAt, state, clock)
          : call == null ? rule.onAnswerHeard(now, startedAt, state) : rule.onAnswer(now, startedAt, state);
    } catch (RuntimeException | Error e) {
      events.ruleThrew(rule, e);
      next = state.interval(); // the pace as it was
    }
    if (state.quotaPermits() != permits || state.quotaWindow() != window) {
      learnQuota(events, node, startedAt, now);
    }
    LearnedQuota held = node.quota;
    if (probeRefused && held != null) {
      held.countOnAfterRefusedProbe(now);
    }
    interval(events, node, next, now);
  }

  /**
   * The rule changed the host's quota: the engine holds the host's starts to it from now on, its
   * windows counted as before, or, for a new quota, from the start of the request that taught it.
   */
  private void learnQuota(Events events, Node node, long startedAt, long now) {
    HostState state = node.state;
    LearnedQuota before = node.quota;
    node.quota = LearnedQuota.after(before, state.quotaPermits(), state.quotaWindow(), startedAt);
    if (events.listens()) {
      events.emit(new HostpaceEvent.QuotaChanged(node.key, quotaOf(before), quotaOf(node.quota), now));
    }
  }

  static @Nullable Rate quotaOf(@Nullable LearnedQuota quota) {
    return quota == null ? null : quota.rate();
  }
}

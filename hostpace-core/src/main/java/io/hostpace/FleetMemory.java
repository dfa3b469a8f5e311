package io.hostpace;

import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import org.jspecify.annotations.Nullable;

/**
 * What an engine keeps in its fleet's store, and reads back from it (SPEC S3), for its
 * {@link Scheduler}: a host or group the engine meets is read from the fleet before its first
 * start (one round trip), so that a worker that joins late, or restarts, starts from what the
 * fleet's other processes learned instead of opening as on first contact; and what this engine's
 * own answers teach a host is kept there, again whenever it changes beyond its noise (see
 * {@link #movedBeyondNoise}: a learned interval that steps a little on each answer, or a pause
 * whose time left shrinks as it runs, is not written back on each answer) and at least each
 * quarter of {@code keepFor} while the host answers, so that it lasts while the host is in use and
 * goes {@code keepFor} after its last answer, as the engine forgets an idle host.
 *
 * <p>Example: a worker has paced {@code qlever.test} at one start a second for ten minutes; a
 * second worker starts and meets the host: its queue holds its first request for the read, which
 * answers an interval of 1 s; the host is then known (SPEC P12: no opening), and its first start
 * goes at once, the next a second later, each claimed from the fleet as before.
 *
 * <p>What the fleet's other processes tell meanwhile arrives as lessons (SPEC S2), not here: a
 * pause must reach every process at once, and the store is only what a newcomer reads. Guarded by
 * the engine's lock; the fleet's answer comes back in through {@link Reentry}.
 */
final class FleetMemory {

  private final Fleet fleet;
  private final Reentry engine;
  private final long keepFor;

  FleetMemory(Fleet fleet, Reentry engine, long keepForNanos) {
    this.fleet = fleet;
    this.engine = engine;
    this.keepFor = keepForNanos;
  }

  /**
   * The engine met {@code node}: its queues start nothing until the fleet said what it keeps of it
   * ({@link Node#recalling}); the answer is taught through {@link Reentry#recalled}.
   */
  void met(Node node) {
    node.recalling = true;
    fleet.recall(node.key, kept -> engine.underLock(() -> {
      node.recalling = false;
      engine.recalled(node, kept);
    }));
  }

  /**
   * What this engine's answers left {@code node} with at {@code now}: kept in the fleet when it
   * moved beyond its noise from what this engine kept last ({@link #movedBeyondNoise}), or a
   * quarter of {@code keepFor} has passed since.
   */
  void answered(Node node, long now) {
    FleetState fleetState = node.fleet;
    if (fleetState != null && (fleetState.unclaimed || fleetState.unread)) {
      return; // learned alone, at this process's share: not the fleet's pace (SPEC S4)
    }
    Fleet.Kept kept = keptOf(node, now);
    Fleet.Kept last = node.kept;
    if (last != null && !movedBeyondNoise(last, node.keptAt, kept, now) && now - node.keptAt < keepFor / 4) {
      return;
    }
    if (last == null && kept.nothing()) {
      return; // nothing taught, nothing kept before: nothing to forget
    }
    node.kept = kept;
    node.keptAt = now;
    fleet.keep(node.key, kept, keepFor);
  }

  /**
   * A learned interval may move by this fraction of itself (1/16) and still be what was kept: a
   * rule's steps between two answers (its climb towards a plateau, the small wobble of a
   * measured gap) are far smaller, and a real change of pace (a cut on a refusal, a rate learned
   * anew) far larger; what a newcomer reads is at most this far off, and kept again within a
   * quarter of {@code keepFor} anyway.
   */
  static final long INTERVAL_NOISE_DIVISOR = 16;

  /**
   * Two ends of a pause, or of a quota's full window, this close are the same end: the engine's
   * own ends do not move as time passes (what is left of them shrinks, the moment stays), so this
   * only absorbs rounding, and it is below the round trip in which a newcomer reads them.
   */
  static final long END_NOISE_NANOS = 1_000_000;

  /**
   * Whether {@code now}, what a host holds at {@code at}, moved beyond its noise from {@code last},
   * kept at {@code keptAt}: its interval by more than {@link #INTERVAL_NOISE_DIVISOR its 1/16}
   * (from or to 0 always); its in-flight limit or quota (permits, window) at all; its announced
   * quota's starts a window at all, its window as an interval (the window's resets follow one
   * another, so a newcomer reads when the current one resets from any); its pause or its
   * quota's full window by ending at another moment, more than {@link #END_NOISE_NANOS} apart, or
   * by starting or ending (none against some). Compared as moments, a pause's time left shrinking
   * as it runs is no move.
   *
   * <p>Example: kept at 10 s an interval of 250 ms and 5 s of pause; at 10.1 s an interval of 251
   * ms and 4.9 s of pause left is the same (a 1 ms step, the same end at 15 s); 4.9 s of a quota's
   * full window, none before, or an interval of 330 ms, is a move.
   */
  static boolean movedBeyondNoise(Fleet.Kept last, long keptAt, Fleet.Kept now, long at) {
    long interval = last.intervalNanos();
    return Math.abs(now.intervalNanos() - interval) > interval / INTERVAL_NOISE_DIVISOR
        || now.inFlightLimit() != last.inFlightLimit()
        || now.quotaPermits() != last.quotaPermits()
        || now.quotaWindowNanos() != last.quotaWindowNanos()
        || now.announcedLimit() != last.announcedLimit()
        || Math.abs(now.announcedWindowNanos() - last.announcedWindowNanos())
            > last.announcedWindowNanos() / INTERVAL_NOISE_DIVISOR
        || endMoved(last.pauseLeftNanos(), keptAt, now.pauseLeftNanos(), at)
        || endMoved(last.quotaFullForNanos(), keptAt, now.quotaFullForNanos(), at);
  }

  /** Whether what is left from {@code at} ends elsewhere than what was left from {@code keptAt}, or starts or ends. */
  private static boolean endMoved(long lastLeft, long keptAt, long left, long at) {
    if ((lastLeft == 0) != (left == 0)) {
      return true;
    }
    return lastLeft != 0 && Math.abs((at + left) - (keptAt + lastLeft)) > END_NOISE_NANOS;
  }

  /**
   * The answer to {@code call} announced {@code remaining} starts of its host until
   * {@code resetNanos} from now (SPEC R8), which {@code budget} heard: the fleet spends them
   * together, less those it spent after the call started, and rolls into the next window with the
   * starts a window the host said.
   */
  void announced(Call<?> call, long remaining, long resetNanos, AnnouncedBudget budget) {
    fleet.announce(call.queue.node.key, remaining, resetNanos, FleetClaims.announcedOrder(call), budget.perWindow(),
        budget.window());
  }

  /**
   * What {@code key} taught was forgotten (SPEC R7): the fleet forgets what it keeps of it too, else
   * a node made anew would read it back; {@code node} is the engine's, if it holds one.
   */
  void forgot(String key, @Nullable Node node, long now) {
    if (node != null) {
      node.kept = Fleet.Kept.NOTHING;
      node.keptAt = now;
    }
    fleet.keep(key, Fleet.Kept.NOTHING, keepFor);
  }

  /**
   * This process rejoined the fleet, after it could not be asked, at a claim of {@code node}'s
   * start (SPEC S4): meanwhile each process paced alone and learned alone, and their paces drifted
   * apart. What the fleet keeps of the node is read again, and its pace taken through
   * {@link Reentry#rejoined}; when the fleet keeps nothing (a Redis back empty), what this process
   * held as the fleet was lost ({@link FleetState#atLoss}, and a pause it has now) is kept first, in
   * the same call (one round trip, the start not held for it): the pace it learned from the whole
   * fleet's answers, not the one it learned alone at its share. So the first process to rejoin sets
   * the pace every process rejoins at, itself included. Until the answer, this process keeps nothing
   * of the node in the fleet. Asked while the node is {@linkplain FleetState#unread unread}: a read
   * the fleet could not answer is asked again at a claim answered or a lesson heard, no sooner than
   * {@link #READ_AGAIN_FIRST_NANOS} after it, each wait twice the last up to
   * {@link #READ_AGAIN_MOST_NANOS}: a fleet that answers claims but fails reads (a script that times
   * out, a value it cannot read) costs a read each few seconds, not one more call per claim.
   */
  void rejoined(Node node, long now) {
    FleetState state = node.fleet();
    if (!state.unread || state.rejoining || state.readAgainAt - now > 0) {
      return;
    }
    Fleet.Kept atLoss = state.atLoss;
    Fleet.Kept mine = new Fleet.Kept(atLoss.intervalNanos(), atLoss.inFlightLimit(), atLoss.quotaPermits(),
        atLoss.quotaWindowNanos(), 0, keptOf(node, now).pauseLeftNanos());
    state.rejoining = true;
    state.readBackoff = state.readBackoff == 0 ? READ_AGAIN_FIRST_NANOS : Math.min(2 * state.readBackoff, READ_AGAIN_MOST_NANOS);
    state.readAgainAt = now + state.readBackoff;
    fleet.recallOrKeep(node.key, mine, keepFor, kept -> engine.underLock(() -> {
      state.rejoining = false;
      if (kept != null) {
        state.unread = false;
        state.readBackoff = 0;
      }
      engine.rejoined(node, kept);
    }));
  }

  /** How long after a rejoin's read that the fleet could not answer it is asked again, at the least (1 s). */
  static final long READ_AGAIN_FIRST_NANOS = 1_000_000_000L;
  /** How long after a rejoin's read that the fleet could not answer it is asked again, at the most (10 s). */
  static final long READ_AGAIN_MOST_NANOS = 10_000_000_000L;

  /**
   * What {@code node} holds at {@code now} that a newcomer should start from: its pace, not a start
   * held back longer after a run of refusals ({@link HostState#pace()}, SPEC R14); a pause as what is
   * left of it, an announced quota's window as when it resets.
   */
  static Fleet.Kept keptOf(Node node, long now) {
    HostState state = node.state;
    long pauseLeft = state.paused() && state.pausedUntil() - now > 0 ? state.pausedUntil() - now : 0;
    LearnedQuota quota = node.quota;
    AnnouncedBudget announced = node.announced;
    long window = announced == null ? 0 : announced.window();
    long perWindow = window > 0 && announced != null ? announced.perWindow() : 0;
    long reset = window > 0 && announced != null ? Math.min(announced.resetIn(now), window) : 0;
    return new Fleet.Kept(state.pace(), state.inFlightLimit(), quota == null ? 0 : quota.permits,
        quota == null ? 0 : quota.window, quota == null ? 0 : quota.fullFor(now), pauseLeft, perWindow, window, reset);
  }
}

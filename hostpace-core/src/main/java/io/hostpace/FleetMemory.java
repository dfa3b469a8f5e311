package io.hostpace;

import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import org.jspecify.annotations.Nullable;

/**
 * What an engine keeps in its fleet's store, and reads back from it (SPEC S3), for its
 * {@link Scheduler}: a host or group the engine meets is read from the fleet before its first
 * start (one round trip), so that a worker that joins late, or restarts, starts from what the
 * fleet's other processes learned instead of opening as on first contact; and what this engine's
 * own answers teach a host is kept there, again whenever it changes and at least each quarter
 * of {@code keepFor} while the host answers, so that it lasts while the host is in use and goes
 * {@code keepFor} after its last answer, as the engine forgets an idle host.
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
   * differs from what this engine kept last, or a quarter of {@code keepFor} has passed since.
   */
  void answered(Node node, long now) {
    Fleet.Kept kept = keptOf(node, now);
    Fleet.Kept last = node.kept;
    if (last != null && last.equals(kept) && now - node.keptAt < keepFor / 4) {
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
   * The answer to {@code call} announced {@code remaining} starts of its host until
   * {@code resetNanos} from now (SPEC R8): the fleet spends them together, less those it spent
   * after the call started.
   */
  void announced(Call<?> call, long remaining, long resetNanos) {
    fleet.announce(call.queue.node.key, remaining, resetNanos, FleetClaims.announcedOrder(call));
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

  /** What {@code node} holds at {@code now} that a newcomer should start from; a pause as what is left of it. */
  static Fleet.Kept keptOf(Node node, long now) {
    HostState state = node.state;
    long pauseLeft = state.paused() && state.pausedUntil() - now > 0 ? state.pausedUntil() - now : 0;
    LearnedQuota quota = node.quota;
    if (quota == null) {
      return new Fleet.Kept(state.interval(), state.inFlightLimit(), 0, 0, 0, pauseLeft);
    }
    return new Fleet.Kept(state.interval(), state.inFlightLimit(), quota.permits, quota.window, quota.fullFor(now), pauseLeft);
  }
}

package io.hostpace.rules;

/**
 * What a host did since its {@link WindowQuota} last followed a quota: the <em>run</em> of accepted
 * answers, and the <em>wall</em> of refusals after it, whose end by an accepted answer makes the
 * run's count a quota ({@link #accepted}). The recognising half of the window rule; the quota
 * learned is followed by {@link WindowQuota} itself, which keeps this for the wall a later quota
 * may come from, and for the wall's probes while none is followed ({@link #wallInterval}).
 *
 * <p>Example: 60 accepted from 0 s to 0.3 s, refusals from 0.35 s, the last started at 31.6 s,
 * then one accepted at 63.6 s: a run of 60 and a wall of 32 s, a window's.
 *
 * <p>Guarded by the engine's lock, as the host's state is. Times are the engine's clock in
 * nanoseconds, compared by difference.
 */
final class RunAndWall {

  private int runAccepted;
  private long runFirstStart;
  private long runLastAnswer;
  private int wallRefusals;
  private long wallFrom;
  private long wallLastRefusedStart;
  /** Whether a wall of refusals after a run ended before, in an answer that did not make it a window's. */
  private boolean wallEnded;
  /** Whether a quota was learned from a wall before: the host's first wall is no longer to come. */
  private boolean learned;
  /**
   * Whether the run began with the answer that ended a wall of a window's length: its first start
   * lies at a boundary, so the run is no window's tail and the next one's head.
   */
  private boolean runFromWallsEnd;

  /** Nothing seen yet. */
  RunAndWall() {}

  /** A run of {@code accepted} answers, the first started at {@code firstStart}, the last answered at {@code lastAnswer}. */
  RunAndWall(int accepted, long firstStart, long lastAnswer) {
    this.runAccepted = accepted;
    this.runFirstStart = firstStart;
    this.runLastAnswer = lastAnswer;
  }

  /** How many refusals came since the last accepted answer. */
  int wallRefusals() {
    return wallRefusals;
  }

  /** When the wall's first refusal came; meaningful only when {@link #wallRefusals()} > 0. */
  long wallFrom() {
    return wallFrom;
  }

  /** When the wall's last refused request started. */
  long wallLastRefusedStart() {
    return wallLastRefusedStart;
  }

  /** How many answers the run accepted. */
  int runAccepted() {
    return runAccepted;
  }

  /** When the run's first accepted request started. */
  long runFirstStart() {
    return runFirstStart;
  }

  /** When the run's last answer came. */
  long runLastAnswer() {
    return runLastAnswer;
  }

  /** A refusal of a request started at {@code startedAt}, answered at {@code now}: the wall goes on, or begins. */
  void refused(long now, long startedAt) {
    if (wallRefusals++ == 0) {
      wallFrom = now;
      wallLastRefusedStart = startedAt;
    } else if (startedAt - wallLastRefusedStart > 0) {
      wallLastRefusedStart = startedAt;
    }
  }

  /** An answer accepted while a quota is followed: no wall goes on. */
  void acceptedWithinQuota() {
    wallRefusals = 0;
  }

  /**
   * An answer accepted while no quota is followed, of a request started at {@code startedAt},
   * answered at {@code now}; true when it ended a window's wall: a run of at least
   * {@value WindowQuota#MIN_PERMITS} accepted, then a wall of at least as many refusals lasting at
   * least {@link #shortestWall()} and longer than the run took, or any length after a run of
   * {@value WindowQuota#ROUND_MIN_PERMITS} or more begun by the answer that ended such a wall (a
   * run another limit paced slower than the host's windows allow, two a second at 60 a minute,
   * takes longer than its wall; one that spans a boundary, as the host's first may, holds more than
   * the quota, so the first is no proof). The run and the wall are then kept for the quota to read,
   * and this host's first wall is no longer to come.
   */
  boolean accepted(long now, long startedAt) {
    if (wallRefusals > 0 && startedAt - wallLastRefusedStart <= WindowQuota.SAME_BURST_NANOS) {
      // Started with the wall's refused ones, or before: accepted before them, it ends nothing (the
      // answers of one burst arrive in any order when some are another process's, SPEC S2).
      if (runAccepted++ == 0) {
        runFirstStart = startedAt;
        runLastAnswer = wallFrom;
      }
      return false;
    }
    if (wallRefusals > 0) {
      boolean window = wallRefusals >= WindowQuota.MIN_PERMITS
          && runAccepted >= WindowQuota.MIN_PERMITS
          && (now - wallFrom) / 1e9 >= shortestWall()
          && wallFrom - runLastAnswer >= 0
          && (runLastAnswer - runFirstStart < now - wallFrom
              || runFromWallsEnd && runAccepted >= WindowQuota.ROUND_MIN_PERMITS);
      if (window) {
        learned = true;
        wallRefusals = 0;
        return true;
      }
      wallEnded |= wallRefusals >= 2;
      runFromWallsEnd = wallRefusals >= WindowQuota.MIN_PERMITS
          && (now - wallFrom) / 1e9 >= WindowQuota.MIN_WALL_SECONDS;
      wallRefusals = 0;
      runAccepted = 0;
    }
    if (runAccepted++ == 0) {
      runFirstStart = startedAt;
    }
    runLastAnswer = now;
    return false;
  }

  /** The quota followed was dropped: a run begins afresh with the next accepted answer. */
  void quotaDropped() {
    runAccepted = 0;
    runFromWallsEnd = false;
  }

  /**
   * The quota guessed from the host's first wall did not hold: its first window's {@code accepted}
   * starts, the first at {@code firstStart}, are a run, and the refusals since the wall began a
   * wall after it, which is not the host's first.
   */
  void runAgain(int accepted, long firstStart) {
    runAccepted = accepted;
    runFirstStart = firstStart;
    runLastAnswer = wallFrom;
    wallEnded = true;
  }

  /**
   * While no quota is followed ({@code following} false), the interval a wall of refusals after a
   * run asks for, or 0 when there is no such wall: the time since the wall began, so that the probes
   * for its end come at twice the time each (fewer refusals than the rate rule's cuts, each one a
   * retry of the oldest request), and the end is found no later than twice its time. The host's
   * first wall after a run of a round window's quota is probed no sooner than
   * {@link WindowQuota#FIRST_WALL_PROBE_NANOS} after it began, after a smaller run no sooner than
   * {@link WindowQuota#FIRST_SMALL_WALL_PROBE_NANOS}; a later wall (that first one was not a
   * window's, a counting bucket's debt say) is not.
   */
  long wallInterval(long now, boolean following) {
    if (following || runAccepted < WindowQuota.MIN_PERMITS || wallRefusals < 2) {
      return 0;
    }
    long since = Math.max(0, now - wallFrom);
    if (wallEnded || since == 0) {
      return since;
    }
    // The probes it skips are the doubling's first: the next goes as far from the wall's start as
    // the doubling would have put a later one, so the end is still found within twice the wall.
    long soonest = runAccepted >= WindowQuota.ROUND_MIN_PERMITS
        ? WindowQuota.FIRST_WALL_PROBE_NANOS
        : WindowQuota.FIRST_SMALL_WALL_PROBE_NANOS;
    long next = 2 * since;
    while (next < soonest) {
      next *= 2;
    }
    return next - since;
  }

  /**
   * How long a wall must have lasted, in seconds, to make a window:
   * {@value WindowQuota#MIN_WALL_SECONDS}, but for the host's first wall after a run of
   * {@value WindowQuota#ROUND_MIN_PERMITS} or more, whose probes skip its first
   * {@link WindowQuota#FIRST_WALL_PROBE_NANOS}: whatever ends at its first probe. A quota counted in
   * windows of a second ("15 a second") builds a wall of a second at most, which that probe finds
   * seconds late, and which would otherwise be left to the rate rule's climb.
   */
  private double shortestWall() {
    boolean first = runAccepted >= WindowQuota.ROUND_MIN_PERMITS && !wallEnded && !learned;
    return first ? WindowQuota.FIRST_WALL_PROBE_NANOS / 1e9 : WindowQuota.MIN_WALL_SECONDS;
  }
}

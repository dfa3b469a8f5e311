package io.hostpace;

/**
 * The engine's small decisions of pacing, as pure functions of the time and what a host taught, so
 * that each is tested with literal numbers and the engine only applies what they return. Times
 * are the engine's clock in nanoseconds, compared by difference.
 */
final class Decisions {

  private Decisions() {}

  /** The longest interval the engine keeps: far beyond any host's, and far from overflowing the clock. */
  static final long MAX_INTERVAL = Long.MAX_VALUE / 4;

  /** How long a pause of {@code askedNanos} lasts: at most the retry delay limit (SPEC R3). */
  static long pause(long askedNanos, long retryDelayLimitNanos) {
    return Math.min(askedNanos, retryDelayLimitNanos);
  }

  /**
   * Whether a pause until {@code until} changes the host's: it is not paused, or the new pause ends
   * later. A shorter pause never cuts a longer one short.
   */
  static boolean lengthens(boolean paused, long pausedUntil, long until) {
    return !paused || until - pausedUntil > 0;
  }

  /** The interval the engine keeps of what a learning rule returned: none below 0, none past {@link #MAX_INTERVAL}. */
  static long interval(long ruled) {
    return Math.max(0, Math.min(ruled, MAX_INTERVAL));
  }

  /**
   * What a host's state brings when a store opens it (a state file's, a fleet's), as plain numbers:
   * times are the engine's clock in nanoseconds; {@code quotaPermits} 0 for no quota.
   */
  record Taught(boolean paused, long pausedUntil, long interval, int inFlightLimit, int quotaPermits, long quotaWindow) {}

  /**
   * {@code opened}, held to this run's limits (SPEC S1) as if this engine had learned it now: a
   * pause ends at most the retry delay limit from {@code now} (SPEC R3); the interval is clamped
   * as a learned one is ({@link #interval}); an in-flight limit below 0 is none; a quota without
   * permits or window is none, and its window is clamped as an interval is. A pause already over
   * is left as it is (the engine ends it when it next looks).
   *
   * <p>Example: a pause kept until a day from now, under a retry delay limit of 5 s, ends in 5 s.
   */
  static Taught held(Taught opened, long now, long retryDelayLimitNanos) {
    long pausedUntil = opened.pausedUntil();
    if (opened.paused() && pausedUntil - now > retryDelayLimitNanos) {
      pausedUntil = now + retryDelayLimitNanos;
    }
    boolean quota = opened.quotaPermits() > 0 && opened.quotaWindow() > 0;
    return new Taught(opened.paused(), pausedUntil, interval(opened.interval()), Math.max(0, opened.inFlightLimit()),
        quota ? opened.quotaPermits() : 0, quota ? interval(opened.quotaWindow()) : 0);
  }

  /**
   * When a host that last started at {@code lastStart} may start again at its learned
   * {@code interval}: {@code now} when it may at once (no interval, nothing started yet, or the
   * interval passed).
   */
  static long intervalReadyAt(long interval, boolean started, long lastStart, long now) {
    if (interval <= 0 || !started) {
      return now;
    }
    long next = lastStart + interval;
    return next - now > 0 ? next : now;
  }
}

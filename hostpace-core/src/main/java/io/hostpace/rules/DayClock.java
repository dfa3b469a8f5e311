package io.hostpace.rules;

import io.hostpace.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The clock's day, from which {@link WindowQuota} may count a quota's windows (SPEC R11): a host
 * that counts by the clock's minute (a gateway that keys its counter by the time divided by the
 * window) begins its windows at round times of the day, and every round length divides a day. Keeps
 * the engine's clock, what the host's first wall showed, and, once the day is read, where the run's
 * first start lay in it and the count from that start that the windows were taken from, to go back
 * to when the clock's probes are refused.
 *
 * <p>Example: a run begun at 12:00:41.7 by the clock, its first wall from 0.15 s, the boundary that
 * ended it found 11.9 s to 23.1 s after the run's first start, a probe refused since at 48.5 s: from
 * the day's start, the boundary lies 43,253.6 s to 43,264.8 s in; 20 s and 30 s put one there
 * (43,260 s) and none in the wall, but their next before the refused probe (43,280 s, 43,290 s); a
 * minute is the shortest round length that fits, its next boundary 78.3 s after the run's first
 * start.
 *
 * <p>Guarded by the engine's lock, as the quota is. Times in seconds from the run's first start,
 * but where said.
 */
final class DayClock {

  private static final long DAY_SECONDS = 86_400;
  private static final long DAY_NANOS = DAY_SECONDS * 1_000_000_000L;

  /** The engine's clock, once told with a refusal of this process's own; null until then. */
  private @Nullable Clock clock;
  /** The host's first wall's first refusal, and the bounds of the boundary that ended it. */
  private double wallFrom;
  private double firstLower;
  private double firstUpper;
  /** Whether the day was read for the quota learned from that wall. */
  private boolean read;
  /** The run's first start and the day's start, in the engine's time. */
  private long runStart;
  private long day;
  /** The lower bound of the length counted from the run's first start, where the day was read. */
  private double keptAbove;

  /** The engine's clock; null (another process's refusal, passed on without it) keeps the one known. */
  void clock(@Nullable Clock clock) {
    if (clock != null) {
      this.clock = clock;
    }
  }

  /** A quota was learned from a wall that began at {@code wallFrom}, ended by a boundary between {@code lower} and {@code upper}. */
  void firstWall(double wallFrom, double lower, double upper) {
    this.wallFrom = wallFrom;
    firstLower = lower;
    firstUpper = upper;
    read = false;
  }

  /**
   * Reads the day, once a quota, for windows counted from {@code runStart} so far: the shortest
   * round length that, counted from the day's start, puts a boundary within the first one found and
   * none in the wall before it, and one between {@code lower} and {@code upper} (the last one found)
   * and none after it up to {@code refusedTo}; 0 when the clock is not known, the day was read
   * already, or no length fits.
   */
  double read(long runStart, double lower, double upper, double refusedTo) {
    Clock clock = this.clock;
    if (clock == null || read) {
      return 0;
    }
    read = true;
    this.runStart = runStart;
    day = dayStart(runStart, clock);
    double shift = shift();
    return length(lower + shift, upper + shift, refusedTo + shift);
  }

  /**
   * Counted from the day's start (seconds from there): the shortest round length that fits as for
   * {@link #read}, the last boundary found between {@code lower} and {@code upper}; 0 when none.
   */
  double length(double lower, double upper, double refusedTo) {
    double shift = shift();
    return RoundWindowLengths.shortestOnClock(wallFrom + shift, firstLower + shift, firstUpper + shift,
        lower, upper, refusedTo);
  }

  /** Where, in seconds from the run's first start, {@code length} counted from the day's start puts the boundary after {@code upper}. */
  double nextBoundary(double length, double upper) {
    double shift = shift();
    return (Math.floor((upper + shift) / length) + 1) * length - shift;
  }

  /** The day's start, in the engine's time; meaningful once {@link #read} found a length. */
  long start() {
    return day;
  }

  /** How long after the day's start the run's first start lay, in seconds. */
  double shift() {
    return (runStart - day) / 1e9;
  }

  /**
   * Keeps what the count from the run's first start knew of the length, as the windows are counted
   * from the day instead: longer than {@code above} seconds. Their bounds go back by {@link #shift()}.
   */
  void keep(double above) {
    keptAbove = above;
  }

  long runStart() {
    return runStart;
  }

  double keptAbove() {
    return keptAbove;
  }

  /** The start of the clock's day (UTC) at or before {@code time}, in the engine's time. */
  private static long dayStart(long time, Clock clock) {
    long now = clock.nanoTime();
    Instant wall = clock.instant();
    long day = now - (Math.floorMod(wall.getEpochSecond(), DAY_SECONDS) * 1_000_000_000L + wall.getNano());
    while (day - time > 0) {
      day -= DAY_NANOS;
    }
    return day;
  }
}

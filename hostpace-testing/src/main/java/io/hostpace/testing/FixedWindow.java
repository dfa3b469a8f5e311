package io.hostpace.testing;

import java.time.Duration;

/**
 * Accepts {@code limit} requests in each window, windows of one length one after the other from
 * the start, as an API quota of "60 a minute" counts. Counting refusals, a refused request counts
 * too (which refuses no more in its window, but leaves less of it if the limit is raised).
 *
 * <p>Invariant: {@code used} counts the requests of window {@code index}, the one that began at
 * {@code start + index × window}; a request in a later window starts the count again. Of 2 a
 * window of 10 s from 0 s: at 0 s and 1 s accepted, at 9 s refused (free again at 10 s), at
 * 10 s accepted.
 */
public final class FixedWindow implements ServerLimit, CountsQuota {

  private final long start;
  private final long window;
  private final boolean refusalsCount;
  private int limit;
  private long index = Long.MIN_VALUE;
  private int used;

  private FixedWindow(int limit, Duration window, boolean refusalsCount, long start) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("a fixed window's length must be positive, got " + window);
    }
    this.limit = checked(limit);
    this.window = window.toNanos();
    this.refusalsCount = refusalsCount;
    this.start = start;
  }

  /** {@code limit} requests in each {@code window}, the first window beginning at {@code start}; refusals do not count. */
  public static FixedWindow of(int limit, Duration window, long start) {
    return new FixedWindow(limit, window, false, start);
  }

  /** As {@link #of}, but a refused request counts too. */
  public static FixedWindow countingRefusals(int limit, Duration window, long start) {
    return new FixedWindow(limit, window, true, start);
  }

  @Override
  public boolean admit(long now) {
    roll(now);
    if (used < limit) {
      used++;
      return true;
    }
    if (refusalsCount) {
      used++;
    }
    return false;
  }

  @Override
  public long freeAt(long now) {
    roll(now);
    return used < limit ? now : end();
  }

  /** The requests left in the window of {@code now}. */
  @Override
  public long remaining(long now) {
    roll(now);
    return Math.max(0, limit - used);
  }

  /** Nanoseconds from {@code now} until the window of {@code now} ends. */
  @Override
  public long resetIn(long now) {
    roll(now);
    return end() - now;
  }

  /** From now on, {@code limit} requests a window, the current one included. */
  public void limit(int limit) {
    this.limit = checked(limit);
  }

  /**
   * When the window that holds {@code at} ends: a time on a boundary is in the window it begins.
   * The count is not touched.
   */
  public long windowEndAt(long at) {
    return start + (Math.floorDiv(at - start, window) + 1) * window;
  }

  private long end() {
    return start + (index + 1) * window;
  }

  private void roll(long now) {
    long current = Math.floorDiv(now - start, window);
    if (current != index) {
      index = current;
      used = 0;
    }
  }

  private static int checked(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("a fixed window accepts at least 1 request, got " + limit);
    }
    return limit;
  }
}

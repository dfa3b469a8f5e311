package io.hostpace.spi;

import org.jspecify.annotations.Nullable;

/**
 * What a host (or a group) has taught, shared by all its queues (SPEC P10): until when it
 * is paused, the interval between its starts, and when it last started a request.
 *
 * <p>Times are the engine's clock in nanoseconds. The engine reads and writes a state only
 * under its own lock, so an implementation need not be thread-safe against the engine; one
 * shared between processes (SPEC S2) publishes and refreshes behind these methods.
 */
public interface HostState {

  /** The key of the host ({@code example.org:8080}) or the group ({@code *.example.org}). */
  String key();

  /** Whether the host is paused until a time ({@link #pausedUntil()}). */
  boolean paused();

  /** Until when the host starts nothing; meaningful only when {@link #paused()}. */
  long pausedUntil();

  /** Pauses the host until {@code until}. */
  void pauseUntil(long until);

  /** Ends a pause. */
  void clearPause();

  /** The learned interval between starts, 0 when nothing was learned. */
  long interval();

  /** When the interval last changed. */
  long intervalChangedAt();

  /** Sets the interval, changed at {@code now}. */
  void interval(long interval, long now);

  /**
   * The interval the host is paced at: what a store keeps of it and a fleet shares (SPEC S1, S3).
   * The same as {@link #interval()}, except while the learning rule holds the host's next start back
   * longer than its pace (SPEC R14): then the pace its memory says it meant
   * ({@link LearningRule.Paced}).
   */
  default long pace() {
    long interval = interval();
    return memory() instanceof LearningRule.Paced paced ? paced.pace(interval) : interval;
  }

  /**
   * How many requests at once the host was seen to hold, as the learning rule decided
   * ({@link LearningRule#inFlightAfterPause}), or 0 when nothing was learned. The engine starts no
   * request of the host while this many of its requests are in flight, whatever the limits allow.
   * A store that cannot keep it returns 0 (the default): the host is then limited by its
   * configured limits alone.
   */
  default int inFlightLimit() {
    return 0;
  }

  /** Sets the learned in-flight limit; 0 forgets it (SPEC R7). */
  default void inFlightLimit(int limit) {}

  /**
   * How many starts the host was seen to allow in a window (a quota counted in fixed windows,
   * learned by the rule), or 0 when none. The engine then starts at most this many of the host's
   * requests a window: a window's first request alone, the others once the host accepted it, the
   * window counted from that first request's start; the next first request goes
   * {@link #quotaWindow()} after it.
   */
  default int quotaPermits() {
    return 0;
  }

  /** The window of the learned quota, in nanoseconds; meaningful only when {@link #quotaPermits()} > 0. */
  default long quotaWindow() {
    return 0;
  }

  /**
   * Sets the learned quota: {@code permits} starts a window, the next window's first request
   * {@code window} nanoseconds after the current one's; {@code permits} 0 forgets it (SPEC R7). A
   * store that cannot keep it ignores it.
   */
  default void quota(int permits, long window) {}

  /** Whether the host has started a request, and so whether {@link #lastStart()} means anything. */
  boolean started();

  /** When the host last started a request. */
  long lastStart();

  /** Records a start at {@code now}. */
  void start(long now);

  /**
   * What the learning rule keeps of this host beyond its interval (the rule owns the type and
   * mutates it under the engine's lock), or null when it keeps nothing. A store that cannot keep
   * it returns null; the rules then learn from the interval alone.
   */
  default @Nullable Object memory() {
    return null;
  }

  /** Keeps {@code memory} for the learning rule; null forgets it (SPEC R7). */
  default void memory(@Nullable Object memory) {}
}

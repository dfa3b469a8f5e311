package io.hostpace;

import java.time.Instant;

/**
 * Reads the time: a monotonic nanosecond count for waits, and the wall clock for the one
 * place a date matters (a {@code Retry-After} given as an HTTP date).
 *
 * <p>The engine never reads time any other way, so a test or a simulation can hand it a
 * {@link VirtualTime} and run hours of traffic in milliseconds.
 */
public interface Clock {

  /** Monotonic time in nanoseconds from an arbitrary origin, as {@link System#nanoTime()}. */
  long nanoTime();

  /** The current date and time, used only to turn an HTTP date into a delay. */
  Instant instant();

  /** The system's clocks: {@link System#nanoTime()} and {@link Instant#now()}. */
  static Clock system() {
    return SystemTime.CLOCK;
  }
}

package io.hostpace;

import java.time.Duration;
import java.util.Locale;

/** Durations as messages write them ({@code 250 ms}, {@code 1.5 s}, {@code 300 s}), and as settings check them. */
final class Durations {

  private Durations() {}

  /**
   * {@code duration}, when it is zero to a year; else an {@link IllegalArgumentException} naming
   * {@code what} ({@code "retry delay limit must not be negative, got PT-1S"}).
   */
  static Duration zeroToAYear(Duration duration, String what) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException(what + " must not be negative, got " + duration);
    }
    if (duration.compareTo(Duration.ofDays(365)) > 0) {
      throw new IllegalArgumentException(what + " must be at most a year, got " + duration);
    }
    return duration;
  }

  static String text(Duration duration) {
    long millis = duration.toMillis();
    if (millis < 1000) {
      return millis + " ms";
    }
    double seconds = millis / 1000.0;
    return seconds == Math.rint(seconds)
        ? (long) seconds + " s"
        : String.format(Locale.ROOT, "%.1f s", seconds);
  }
}

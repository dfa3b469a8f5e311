package io.hostpace;

import java.time.Duration;
import java.util.Locale;

/** Durations as messages write them: {@code 250 ms}, {@code 1.5 s}, {@code 300 s}. */
final class Durations {

  private Durations() {}

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

package io.hostpace.timeout;

import java.math.BigDecimal;
import java.time.Duration;

/** Durations as the messages and traces write them: {@code 300 s}, {@code 1.5 s}, {@code 250 ms}. */
final class Durations {

  private Durations() {}

  static String format(long nanos) {
    if (nanos != 0 && nanos % 1_000_000 == 0 && Math.abs(nanos) < 1_000_000_000L) {
      return nanos / 1_000_000 + " ms";
    }
    if (nanos % 1_000_000 == 0) {
      return BigDecimal.valueOf(nanos / 1_000_000, 3).stripTrailingZeros().toPlainString() + " s";
    }
    return BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString() + " s";
  }

  static String format(Duration duration) {
    return format(duration.toNanos());
  }

  /** A positive duration in nanoseconds, or an exception naming the setting. */
  static long positive(String what, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(what + " " + value + " is not positive: expected a duration above 0");
    }
    return value.toNanos();
  }
}

package io.hostpace;

import java.time.Duration;

/**
 * How often requests may start: at most {@code permits} in any interval of length {@code per},
 * allowing that burst (SPEC P11).
 *
 * <p>{@code Rate.perSecond(2)} spaces starts 500 ms apart; {@code Rate.of(2, Duration.ofSeconds(1))}
 * lets two start at once, two more a second later, and so on; {@code Rate.of(100,
 * Duration.ofMinutes(1))} lets 100 go at once and the next once the first is a minute ago:
 * never more than a server that counts "100 a minute" accepts.
 *
 * @param permits how many starts the interval allows, 1 to 100,000
 * @param per the interval, positive, at most about 146 years (half what a long counts in nanoseconds)
 */
public record Rate(int permits, Duration per) {

  /** The largest burst a rate may allow. */
  public static final int MAX_PERMITS = 100_000;

  /**
   * The longest interval, about 146 years: the engine adds an interval to a time in nanoseconds of
   * a long, which a longer one would overflow (as {@link #perSecond} bounds it).
   */
  private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE / 2);

  /** Validates the fields. */
  public Rate {
    if (permits < 1) {
      throw new IllegalArgumentException("rate permits must be at least 1, got " + permits);
    }
    if (permits > MAX_PERMITS) {
      // The engine keeps the time of each start in the interval; beyond this, give a shorter interval.
      throw new IllegalArgumentException(
          "rate permits must be at most " + MAX_PERMITS + ", got " + permits + ": give the rate over a shorter interval");
    }
    if (per.isNegative() || per.isZero()) {
      throw new IllegalArgumentException("rate interval must be positive, got " + per);
    }
    if (per.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException("rate interval is too long: " + per + ", at most " + LONGEST);
    }
  }

  /** {@code perSecond} starts a second, spaced evenly, no burst: {@code perSecond(0.5)} is one every 2 s. */
  public static Rate perSecond(double perSecond) {
    if (Double.isNaN(perSecond) || Double.isInfinite(perSecond) || perSecond <= 0) {
      throw new IllegalArgumentException(
          "rate per second must be a positive finite number, got " + perSecond);
    }
    double nanos = 1e9 / perSecond;
    if (nanos < 1) {
      throw new IllegalArgumentException("rate per second is too high: " + perSecond);
    }
    if (nanos > Long.MAX_VALUE / 2.0) {
      throw new IllegalArgumentException("rate per second is too low: " + perSecond);
    }
    return new Rate(1, Duration.ofNanos(Math.round(nanos)));
  }

  /** {@code permits} starts every {@code per}, allowing that burst. */
  public static Rate of(int permits, Duration per) {
    return new Rate(permits, per);
  }

  /** How many starts per second this rate allows on average. */
  public double perSecondValue() {
    return permits * 1e9 / per.toNanos();
  }

  /**
   * The rate in the units {@link Limits#parse} takes: {@code 3/s}, {@code 0.5/s}, {@code 100/m},
   * {@code 10/500ms}. A rate of one start per interval is given per second, to six significant
   * digits: {@code perSecond(3)} keeps an interval of 333333333 ns, which is 3.000000003 a
   * second, and reads {@code 3/s} as it was written.
   */
  @Override
  public String toString() {
    return permits == 1 ? decimal(perSecondValue()) + "/s" : permits + "/" + period(per.toNanos());
  }

  private static final long[] UNIT_NANOS = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L};
  private static final String[] UNITS = {"h", "m", "s", "ms"};

  /** {@code m}, {@code 500ms}, {@code 2h}: the largest unit that counts it whole, else seconds. */
  private static String period(long nanos) {
    for (int i = 0; i < UNITS.length; i++) {
      if (nanos % UNIT_NANOS[i] == 0) {
        long count = nanos / UNIT_NANOS[i];
        return (count == 1 ? "" : Long.toString(count)) + UNITS[i];
      }
    }
    return decimal(nanos / 1e9) + "s";
  }

  private static String decimal(double value) {
    return new java.math.BigDecimal(value).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
  }
}

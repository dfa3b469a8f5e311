package io.hostpace;

import java.time.Duration;

/**
 * How often requests may start: {@code permits} per {@code per}, allowing a burst of
 * {@code permits} (SPEC P11).
 *
 * <p>{@code Rate.perSecond(2)} spaces starts 500 ms apart; {@code Rate.of(2, Duration.ofSeconds(1))}
 * lets two start at once and then one every 500 ms on average; {@code Rate.of(100,
 * Duration.ofMinutes(1))} lets 100 go at once and then one every 600 ms.
 *
 * @param permits how many starts the interval allows, at least 1
 * @param per the interval, positive
 */
public record Rate(int permits, Duration per) {

  /** Validates the fields. */
  public Rate {
    if (permits < 1) {
      throw new IllegalArgumentException("rate permits must be at least 1, got " + permits);
    }
    if (per.isNegative() || per.isZero()) {
      throw new IllegalArgumentException("rate interval must be positive, got " + per);
    }
    try {
      per.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("rate interval is too long: " + per, e);
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

  /** The average time between starts, in nanoseconds. */
  long spacingNanos() {
    return Math.max(1, per.toNanos() / permits);
  }

  /** How many starts per second this rate allows on average. */
  public double perSecondValue() {
    return permits * 1e9 / per.toNanos();
  }

  @Override
  public String toString() {
    return permits == 1 ? format(perSecondValue()) + "/s" : permits + " per " + per;
  }

  private static String format(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}

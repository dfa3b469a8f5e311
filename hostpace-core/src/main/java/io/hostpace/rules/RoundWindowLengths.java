package io.hostpace.rules;

/**
 * The lengths people give a quota's window: a second, minute or hour divided evenly (1, 2, 3, 4, 5,
 * 6, 10, 12, 15, 20 or 30 of them) and a day divided evenly into hours. A host's "60 a minute" or
 * "1000 an hour" counts in one of these; a window of 47 s is rare. So when the boundaries a host
 * showed allow its window to be one of these lengths, {@link WindowQuota} takes it to be that
 * long and probes for the next boundary where that length puts it, which costs no refusal when
 * the guess is right, where narrowing the bounds by probing between them costs a few.
 *
 * <p>Example: a window known to last more than 40.5 s and at most 81 s is taken to last a minute;
 * one known to last more than 31 s and at most 47 s fits none of these, and is narrowed by probes.
 */
final class RoundWindowLengths {

  /** Seconds, ascending. */
  private static final double[] SECONDS = lengths();

  private RoundWindowLengths() {}

  private static double[] lengths() {
    int[] divisors = {1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30};
    int[] hours = {1, 2, 3, 4, 6, 8, 12, 24};
    double[] all = new double[2 * divisors.length + hours.length];
    int n = 0;
    for (int unit : new int[] {1, 60}) {
      for (int d : divisors) {
        all[n++] = d * unit;
      }
    }
    for (int h : hours) {
      all[n++] = h * 3600.0;
    }
    return all;
  }

  /**
   * The shortest round length whose windows, counted from a day's start by the clock, fit what a
   * host did, in seconds from that start: a boundary between {@code firstLower} and
   * {@code firstUpper} and none in the wall of refusals from {@code wallFrom} before it; one between
   * {@code lower} and {@code upper} (the last found) and none after it up to {@code refusedTo}. 0
   * when none does.
   *
   * <p>Example: a wall from 24.1 s, its end between 27.3 s and 30.5 s, refused up to 37.1 s since:
   * 4 s and 6 s would have put a boundary at 32 s and 36 s, 10 s fits (30 s, then 40 s).
   */
  static double shortestOnClock(double wallFrom, double firstLower, double firstUpper, double lower,
      double upper, double refusedTo) {
    for (double length : SECONDS) {
      double first = Math.floor(firstUpper / length) * length;
      double last = Math.floor(upper / length) * length;
      if (first > firstLower && first - length <= wallFrom && last > lower && last + length > refusedTo) {
        return length;
      }
    }
    return 0;
  }

  /** The shortest round length longer than {@code above} seconds and at most {@code atMost}; 0 when none. */
  static double shortestWithin(double above, double atMost) {
    for (double length : SECONDS) {
      if (length > above) {
        return length <= atMost ? length : 0;
      }
    }
    return 0;
  }
}

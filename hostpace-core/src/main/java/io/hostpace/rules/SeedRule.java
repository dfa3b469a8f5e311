package io.hostpace.rules;

import io.hostpace.spi.LearningRule;

/**
 * SPEC R4 exactly. At 0 a refusal makes the interval 250 ms, then 500 ms, 1 s, 2 s, 4 s,
 * 8 s, 10 s; each answer multiplies it by 0.9, so ten answers after 1 s bring it to about
 * 349 ms. Below a millisecond it is 0: the host has nothing left to teach.
 */
final class SeedRule implements LearningRule {

  static final SeedRule INSTANCE = new SeedRule();

  static final long FIRST = 250_000_000L;
  static final long MAX = 10_000_000_000L;
  static final long FORGOTTEN_BELOW = 1_000_000L;

  private SeedRule() {}

  @Override
  public long onRefusal(long now, long startedAt, long interval, long changedAt) {
    if (interval > 0 && startedAt - changedAt < 0) {
      return interval;
    }
    return Math.min(MAX, Math.max(FIRST, interval * 2));
  }

  @Override
  public long onAnswer(long now, long startedAt, long interval, long changedAt) {
    return eased(interval, 10);
  }

  /** {@code interval} less a {@code divisor}th of itself, as an answer eases it; 0 below {@link #FORGOTTEN_BELOW}. */
  static long eased(long interval, long divisor) {
    long next = interval - interval / divisor;
    return next < FORGOTTEN_BELOW ? 0 : next;
  }

  @Override
  public String toString() {
    return "seed";
  }
}

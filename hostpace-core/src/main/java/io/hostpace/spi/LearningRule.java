package io.hostpace.spi;

/**
 * How a host's interval between starts follows its refusals and answers, when it refuses
 * without saying when to come back (no {@code Retry-After}). A pure function of its inputs,
 * so that the engine and the simulator run the same rule and a test can feed it numbers.
 *
 * <p>All times are the engine's clock in nanoseconds; an interval of 0 means the host has
 * taught nothing and its starts are not spaced.
 */
public interface LearningRule {

  /**
   * The interval after a refusal without {@code Retry-After} of a request started at
   * {@code startedAt}.
   *
   * @param interval the interval now
   * @param changedAt when the interval last changed; {@code startedAt < changedAt} (compared as
   *     {@code startedAt - changedAt < 0}) means the request went at an older pace
   */
  long onRefusal(long now, long startedAt, long interval, long changedAt);

  /** The interval after an answer that is not a refusal, of a request started at {@code startedAt}. */
  long onAnswer(long now, long startedAt, long interval, long changedAt);

  /**
   * The seed's rule (SPEC R4): a refusal doubles the interval, from 250 ms up to 10 s; every
   * answer takes a tenth off; only refusals of requests started since the interval last
   * changed count, so a burst refused together doubles it once.
   */
  static LearningRule seed() {
    return SeedRule.INSTANCE;
  }
}

package io.hostpace.spi;

import io.hostpace.Clock;
import io.hostpace.rules.LearningRules;

/**
 * What a host's refusals and answers teach: above all the interval between its starts, when it
 * refuses without saying when to come back (no {@code Retry-After}); a rule may also learn how
 * many requests the host holds at once ({@link #inFlightAfterPause}) and a quota it counts in
 * fixed windows ({@link HostState#quota(int, long)}, set from {@code onRefusal} and
 * {@code onAnswer}). A state machine fed {@code (now, outcome)}, so that the engine and the
 * simulator run the same rule and a test can feed it numbers.
 *
 * <p>All times are the engine's clock in nanoseconds; an interval of 0 means the host has
 * taught nothing and its starts are not spaced.
 *
 * <p>The engine calls the {@link HostState} forms; a rule that needs only the interval and when
 * it changed implements the two plain forms, which the others call by default. A rule that needs
 * more keeps it in {@link HostState#memory()}, a value of its own type that lives and is
 * forgotten with the host's interval.
 *
 * <p>A rule that throws holds no request: the engine logs it at {@code WARNING} (SPEC L2), keeps
 * the interval and in-flight limit the host had, and goes on with the answer as it says.
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
   * The interval after a refusal without {@code Retry-After}; the rule may read and replace
   * {@code host}'s {@link HostState#memory() memory} and set its {@link HostState#quota(int, long)
   * quota}, but sets nothing else: the engine sets the interval it returns.
   */
  default long onRefusal(long now, long startedAt, HostState host) {
    return onRefusal(now, startedAt, host.interval(), host.intervalChangedAt());
  }

  /**
   * As {@link #onRefusal(long, long, HostState)}, told the engine's {@code clock}, whose
   * {@link Clock#nanoTime()} the times are: a rule may read the wall clock from it, since a host that
   * counts its quota by the clock's minute ("60 a minute", reset on the minute) begins its windows
   * at round times of the day, which the refusals alone show only over several windows. The engine
   * calls this one for the refusals it met; the default ignores the clock.
   */
  default long onRefusal(long now, long startedAt, HostState host, Clock clock) {
    return onRefusal(now, startedAt, host);
  }

  /**
   * The interval after a refusal without {@code Retry-After} that another process of the engine's
   * fleet met (SPEC S2), of a request it started at {@code startedAt}: a refusal of the fleet's
   * pace, which may be faster than this engine's own. As {@link #onRefusal(long, long, HostState)}
   * unless overridden.
   */
  default long onRefusalHeard(long now, long startedAt, HostState host) {
    return onRefusal(now, startedAt, host);
  }

  /** The interval after an answer that is not a refusal; as {@link #onRefusal(long, long, HostState)}. */
  default long onAnswer(long now, long startedAt, HostState host) {
    return onAnswer(now, startedAt, host.interval(), host.intervalChangedAt());
  }

  /**
   * The interval after an answer that is not a refusal, which another process of the engine's fleet
   * met (SPEC S2), of a request it started at {@code startedAt}: heard a trip through the fleet after
   * it came, where this engine's own answers are heard at once. As
   * {@link #onAnswer(long, long, HostState)} unless overridden.
   */
  default long onAnswerHeard(long now, long startedAt, HostState host) {
    return onAnswer(now, startedAt, host);
  }

  /**
   * The host's in-flight limit after a refusal that carried {@code Retry-After}. The engine pauses
   * the host as the refusal asked and changes no interval (SPEC R2); what a pause does not say is
   * how many requests to send when it ends, and this may learn it: a host that refused the
   * request that started as its {@code inFlightAtStart}-th at once, and accepted those that started
   * with fewer, holds fewer than that. Called for hosts only, not for groups.
   *
   * @param inFlightAtStart how many of the host's requests were in flight when the refused one
   *     started, itself included
   * @return the learned limit ({@link HostState#inFlightLimit()}), 0 for none; the default keeps
   *     what the host has
   */
  default int inFlightAfterPause(long now, long startedAt, int inFlightAtStart, HostState host) {
    return host.inFlightLimit();
  }

  /**
   * The host's in-flight limit after an answer that is not a refusal, of a request that started
   * as the host's {@code inFlightAtStart}-th in flight; called after
   * {@link #onAnswer(long, long, HostState)}. The default keeps what the host has.
   */
  default int inFlightAfterAnswer(long now, long startedAt, int inFlightAtStart, HostState host) {
    return host.inFlightLimit();
  }

  /**
   * The interval after a refusal that asked for a pause ({@code Retry-After}), of a request that
   * started at {@code startedAt} as the {@code inFlightAtStart}-th in flight; called after the
   * pause is set and {@link #inFlightAfterPause} has answered. The host's interval unless
   * overridden: the pause alone changes nothing else (SPEC R2). The default rule overrides it to
   * pace a host that pauses whatever is over its rate at the rate it accepted between pauses
   * (SPEC R9).
   */
  default long intervalAfterPause(long now, long startedAt, int inFlightAtStart, HostState host) {
    return host.interval();
  }

  /**
   * How many requests at once a host that nothing is known of opens with (SPEC P12): each
   * accepted answer but the first widens it by one, so that two more start, up to four in flight,
   * and from there by one a round trip, up to the host's in-flight limit;
   * the first refusal after an accepted answer ends the widening (one with {@code Retry-After}
   * leaves what was accepted at once as the host's learned in-flight limit, a bare one leaves the
   * host to this rule's interval). 0, the default, opens with the whole burst the limits allow
   * (SPEC P3).
   */
  default int openingInFlight() {
    return 0;
  }

  /**
   * Whether a refusal of a request spends none of its retries once its host has accepted others
   * since the call came (SPEC R10): the host is not refusing everybody, so the refusal is
   * the pacing's cost (its probing, a window it had to find), not the request's. At most the retry
   * count of refusals are spared so. True also lets a retry that this rule's pace, slowed by the
   * refusals before it, made wait longer than the attempt before it count for none of the retries,
   * where the host accepted nothing within the retry delay limit: the host is being learned. A rule
   * that says true slows its pace only so far. False, the default, spends a retry on every refusal
   * (SPEC T1).
   */
  default boolean sparesRetries() {
    return false;
  }

  /**
   * The seed's rule (SPEC R4): a refusal doubles the interval, from 250 ms up to 10 s; every
   * answer takes a tenth off; only refusals of requests started since the interval last
   * changed count, so a burst refused together doubles it once.
   */
  static LearningRule seed() {
    return LearningRules.seed();
  }

  /**
   * The engine's default: measures the rate at which a refusing host accepts, settles a little
   * under it, and probes above it ever more rarely while the host stays the same (CUBIC's
   * concave approach and convex probe); learns how many at once a host that refuses with
   * {@code Retry-After} holds; and recognises and follows a quota counted in fixed windows. The design
   * and its numbers are in the class comments of {@code io.hostpace.rules}.
   */
  static LearningRule hostpace() {
    return LearningRules.hostpace();
  }

  /**
   * A rule's memory of a host ({@link HostState#memory()}) that tells the host's pace apart from the
   * interval the rule set: a rule that holds a host's next start back longer than its pace (the
   * default rule after a run of refusals, SPEC R14) sets that longer interval, and its memory knows
   * the pace it meant. {@link HostState#pace()} asks it, so that a store keeps, and a fleet shares,
   * the pace rather than one start's wait.
   */
  interface Paced {
    /** The host's pace, given the interval the rule set last ({@code interval}); {@code interval} unless a start is held back longer. */
    long pace(long interval);
  }
}

package io.hostpace.testing;

import java.time.Duration;

/**
 * Accepts one request an interval, the first at once, as QLever's Wikidata endpoint does at about
 * one a second. A refused request does not move the next acceptance.
 *
 * <p>Invariant: until a request is accepted any is; after, {@code nextAt} is the earliest time
 * a request is accepted, and accepting at {@code t} moves it to {@code t + interval}. With an
 * interval of 1 s: requests at 0 s, 0.4 s, 1 s and 2.5 s are accepted, refused, accepted,
 * accepted; the next is accepted from 3.5 s.
 */
public final class Spacing implements ServerLimit {

  private final long interval;
  private boolean acceptedAny;
  private long nextAt;

  private Spacing(long interval) {
    this.interval = interval;
  }

  /** One request every {@code interval}, the first whenever it comes. */
  public static Spacing oneEvery(Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("a spacing's interval must be positive, got " + interval);
    }
    return new Spacing(interval.toNanos());
  }

  @Override
  public boolean admit(long now) {
    if (acceptedAny && now - nextAt < 0) {
      return false;
    }
    acceptedAny = true;
    nextAt = now + interval;
    return true;
  }

  @Override
  public long freeAt(long now) {
    return !acceptedAny || now - nextAt >= 0 ? now : nextAt;
  }
}

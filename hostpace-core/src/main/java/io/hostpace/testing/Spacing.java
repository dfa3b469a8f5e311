package io.hostpace.testing;

import java.time.Duration;

/**
 * Accepts one request an interval, the first at once, as QLever's Wikidata endpoint does at about
 * one a second. A refused request does not move the next acceptance.
 *
 * <p>Invariant: {@code nextAt} is the earliest time a request is accepted. Accepting at {@code t}
 * moves it to {@code t + interval}. With an interval of 1 s, from 0 s: requests at 0 s, 0.4 s,
 * 1 s and 2.5 s are accepted, refused, accepted, accepted; the next is accepted from 3.5 s.
 */
public final class Spacing implements ServerLimit {

  private final long interval;
  private long nextAt;

  private Spacing(long interval, long nextAt) {
    this.interval = interval;
    this.nextAt = nextAt;
  }

  /** One request every {@code interval}, the first from {@code now} on. */
  public static Spacing oneEvery(Duration interval, long now) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("a spacing's interval must be positive, got " + interval);
    }
    return new Spacing(interval.toNanos(), now);
  }

  @Override
  public boolean admit(long now) {
    if (now - nextAt < 0) {
      return false;
    }
    nextAt = now + interval;
    return true;
  }

  @Override
  public long freeAt(long now) {
    return now - nextAt >= 0 ? now : nextAt;
  }
}

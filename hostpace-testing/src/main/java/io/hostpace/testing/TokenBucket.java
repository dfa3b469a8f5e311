package io.hostpace.testing;

/**
 * Holds up to {@code burst} tokens, refilled at {@code perSecond} and full at the start; a request
 * takes one, or is refused when there is less than one. Counting refusals, a refused request
 * takes one too: the bucket goes into debt, so a client that hammers it is refused for longer.
 *
 * <p>Invariant: {@code tokens} is the bucket's content at {@code refilledAt}; later it is
 * {@code min(burst, tokens + perSecond × elapsed)}. Of a bucket of 1 token at 1 a second counting
 * refusals: accepted at 0 s (0 left), refused at 0.5 s (-0.5), refused at 1 s (-1: the refusal at
 * 0.5 s cost a token), accepted at 3 s (2 s of refill bring it to 1). A request short of a token
 * by less than a billionth of one is accepted, so that rounding does not refuse it.
 */
public final class TokenBucket implements ServerLimit, CountsQuota {

  private static final double ROUNDING = 1e-9;

  private final boolean refusalsCount;
  private double perSecond;
  private int burst;
  private double tokens;
  private long refilledAt;

  private TokenBucket(double perSecond, int burst, boolean refusalsCount, long now) {
    this.perSecond = checkedRate(perSecond);
    this.burst = checkedBurst(burst);
    this.refusalsCount = refusalsCount;
    this.tokens = burst;
    this.refilledAt = now;
  }

  /** A full bucket at {@code now}: {@code burst} tokens, {@code perSecond} more a second; refusals cost nothing. */
  public static TokenBucket of(double perSecond, int burst, long now) {
    return new TokenBucket(perSecond, burst, false, now);
  }

  /** As {@link #of}, but a refused request takes a token too, into debt. */
  public static TokenBucket countingRefusals(double perSecond, int burst, long now) {
    return new TokenBucket(perSecond, burst, true, now);
  }

  @Override
  public boolean admit(long now) {
    refill(now);
    if (tokens >= 1 - ROUNDING) {
      tokens -= 1;
      return true;
    }
    if (refusalsCount) {
      tokens -= 1;
    }
    return false;
  }

  @Override
  public long freeAt(long now) {
    refill(now);
    return tokens >= 1 - ROUNDING ? now : now + (long) Math.ceil((1 - tokens) / perSecond * 1e9);
  }

  /** The whole tokens in the bucket at {@code now}. */
  @Override
  public long remaining(long now) {
    refill(now);
    return Math.max(0, (long) Math.floor(tokens + ROUNDING));
  }

  /** Nanoseconds from {@code now} until the bucket is full again, or, when no token is left, until the next one. */
  @Override
  public long resetIn(long now) {
    return remaining(now) > 0 ? (long) Math.ceil((burst - tokens) / perSecond * 1e9) : freeAt(now) - now;
  }

  /** From {@code at} on, {@code perSecond} tokens a second. */
  public void rate(long at, double perSecond) {
    refill(at);
    this.perSecond = checkedRate(perSecond);
  }

  /** From {@code at} on, at most {@code burst} tokens; what is above them is lost. */
  public void burst(long at, int burst) {
    refill(at);
    this.burst = checkedBurst(burst);
    tokens = Math.min(tokens, burst);
  }

  private void refill(long now) {
    if (now - refilledAt > 0) {
      tokens = Math.min(burst, tokens + perSecond * (now - refilledAt) / 1e9);
      refilledAt = now;
    }
  }

  private static double checkedRate(double perSecond) {
    if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("a token bucket's rate must be a positive number a second, got " + perSecond);
    }
    return perSecond;
  }

  private static int checkedBurst(int burst) {
    if (burst < 1) {
      throw new IllegalArgumentException("a token bucket holds at least 1 token, got " + burst);
    }
    return burst;
  }
}

package io.hostpace;

/**
 * The spacing one rate imposes: at most {@code permits} starts in any window of length
 * {@code per} (SPEC P11), kept as the times of the last {@code permits} starts. A start may go
 * once the oldest of them is {@code per} ago.
 *
 * <p>Example, {@code Rate.of(2, 1 s)}: two requests start at 0 s; the third and fourth may go
 * at 1 s, the fifth at 2 s: what a server that allows "2 a second" (in any second) accepts. With
 * {@code Rate.perSecond(4)} (one permit per 250 ms) it is plain spacing: starts 250 ms apart,
 * the first at once.
 *
 * <p>A token bucket would be cheaper, but would let up to {@code 2 × permits − 1} go within one
 * interval (a full bucket, then the refill), which a server counting "100 a minute" refuses.
 *
 * <p>Guarded by the engine's lock. It outlives the queues that use it while its last start is
 * less than {@code per} ago, so the next context with the same limits keeps the spacing (SPEC P8).
 */
final class RateState {

  final Limits limits;
  private final long per;
  /** The last starts, a ring: {@code starts[oldest]} is the oldest once {@code count == starts.length}. */
  private final long[] starts;
  private int count;
  private int oldest;
  int users;

  RateState(Limits limits, Rate rate) {
    this.limits = limits;
    this.per = rate.per().toNanos();
    this.starts = new long[rate.permits()];
  }

  /** The rate's window over its permits: the spacing of its starts, without the burst. */
  long spacing() {
    return per / starts.length;
  }

  /** Whether the rate holds a start back at {@code now}; then {@link #readyAt()} says until when. */
  boolean holdsAt(long now) {
    return count == starts.length && readyAt() - now > 0;
  }

  /** When the next start may go, once every permit is used. */
  long readyAt() {
    return starts[oldest] + per;
  }

  void start(long now) {
    starts[oldest] = now;
    oldest = (oldest + 1) % starts.length;
    if (count < starts.length) {
      count++;
    }
  }

  /**
   * Whether the state still matters at {@code now}: until its last start is {@code per} ago,
   * a fresh state would allow more than the rate.
   */
  boolean mattersAt(long now) {
    return count > 0 && expiresAt() - now > 0;
  }

  /** When the state stops mattering: {@code per} after its last start. */
  long expiresAt() {
    return starts[(oldest + starts.length - 1) % starts.length] + per;
  }
}

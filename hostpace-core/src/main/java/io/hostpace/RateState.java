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
  /**
   * Whether the last start may count as at its answer: the state's first, or, for a group's rate,
   * the first of its host (a connection of its own to set up); its answer not yet heard.
   */
  private boolean firstOnly;
  int users;

  RateState(Limits limits, Rate rate) {
    this.limits = limits;
    long window = rate.per().toNanos();
    this.per = window + Math.min(window / 50, MAX_MARGIN);
    this.starts = new long[rate.permits()];
  }

  /**
   * How much later than its rate says a start goes, at most: starts exactly an interval apart
   * arrive at the server a few milliseconds closer or further apart, and a server counting that
   * very rate refuses the closer ones. A fiftieth of the window, up to 20 ms.
   */
  static final long MAX_MARGIN = 20_000_000L;

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

  /**
   * The answer, at {@code now}, to the request that started at {@code startedAt}. When that was
   * this state's first start, or a host's first through a group's rate, and is still its last,
   * and the answer came within the window, the start counts as at the answer: the first request to
   * a host pays for the connection's set-up and may arrive that late, so the next, spaced from its
   * start (on a connection open already, or another host's), would arrive too soon.
   */
  void answered(long startedAt, long now) {
    int last = (oldest + starts.length - 1) % starts.length;
    if (firstOnly && starts[last] == startedAt && now - startedAt > 0 && now - startedAt < per) {
      starts[last] = now;
    }
    firstOnly = false;
  }

  /** A start at {@code now}; {@code hostsFirst} when it is its host's first (see {@link #answered}). */
  void start(long now, boolean hostsFirst) {
    starts[oldest] = now;
    oldest = (oldest + 1) % starts.length;
    firstOnly = count == 0 || hostsFirst;
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

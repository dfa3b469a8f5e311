package io.hostpace;

/**
 * The spacing one rate imposes, in the manner of the generic cell rate algorithm: the state is
 * the time the next start may go at the rate's average pace ({@code next}), and a start may go
 * as long as {@code next} is no more than the burst's slack ahead of now.
 *
 * <p>Example, {@code Rate.of(2, 1 s)}: spacing 500 ms, slack 500 ms. At 0 s two requests
 * start (next becomes 0.5 s, then 1 s); the third may go once next − slack ≤ now, at 0.5 s.
 * With {@code Rate.perSecond(1)} the slack is zero: one start a second, the first at once.
 *
 * <p>Guarded by the engine's lock. It outlives the queues that use it while {@code next} is
 * still ahead, so the next context with the same limits keeps the spacing (SPEC P8).
 */
final class RateState {

  final Limits limits;
  private final long spacing;
  private final long slack;
  // @GuardedBy("Scheduler.lock")
  private boolean used;
  // @GuardedBy("Scheduler.lock")
  private long next;
  // @GuardedBy("Scheduler.lock")
  int users;

  RateState(Limits limits, Rate rate) {
    this.limits = limits;
    this.spacing = rate.spacingNanos();
    this.slack = rate.per().toNanos() - spacing;
  }

  /** The earliest time a start may go; meaningful only when {@link #used()}. */
  long readyAt() {
    return next - slack;
  }

  boolean used() {
    return used;
  }

  void start(long now) {
    next = (used && next - now > 0 ? next : now) + spacing;
    used = true;
  }

  /** Whether the spacing still holds anything back at {@code now}. */
  boolean holdsAt(long now) {
    return used && readyAt() - now > 0;
  }

  /**
   * Whether the state still matters at {@code now}: until {@code next}, some of the burst is
   * used up, so a fresh state would allow more than the rate. Example: {@code Rate.of(2, 1 s)},
   * two starts at 0 s: the third may go at 0.5 s, but a fresh state at 0.5 s would let two go.
   */
  boolean mattersAt(long now) {
    return used && next - now > 0;
  }

  /** When the state stops mattering: once the whole burst is available again. */
  long expiresAt() {
    return next;
  }
}

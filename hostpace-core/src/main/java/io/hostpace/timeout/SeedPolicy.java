package io.hostpace.timeout;

import io.hostpace.internal.Lru;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Seed 003's {@code AdaptiveTimeoutPolicy}, exactly, as a reference: per endpoint, healthy or
 * tightened. {@code n} consecutive timeouts (our timeout or a 504: the seed's {@code timeout}
 * outcome) tighten it; a success relaxes it and resets the count; every other outcome (4xx, other
 * 5xx, network failures: the seed's {@code error}) is neutral. Kinds are ignored.
 *
 * <p>Example, 300 s default, 10 s tightened, after 2: a query answered 504 at 300 s, its retry
 * too: tightened; every later request gets 10 s, and its timeouts keep the endpoint tightened,
 * until one answers within 10 s. That is the run that lost 10 of 20 stages (SPEC D5).
 *
 * <p>Thread-safe: the states are guarded by {@code lock}; at most {@value #CAPACITY} endpoints
 * are kept, the least recently used forgotten.
 */
final class SeedPolicy implements TimeoutPolicy {

  static final int CAPACITY = 10_000;

  private static final class State {
    boolean tightened;
    int consecutiveTimeouts;
  }

  private final Budget healthy;
  private final Budget tightened;
  private final int threshold;
  private final ReentrantLock lock = new ReentrantLock();
  @GuardedBy("lock")
  private final Lru<String, State> states = new Lru<>(CAPACITY);

  SeedPolicy(Duration defaultBudget, Duration tightened, int tightenAfterTimeouts) {
    long full = Durations.positive("seed policy defaultMs", defaultBudget);
    long tight = Durations.positive("seed policy tightenedMs", tightened);
    if (tight >= full) {
      throw new IllegalArgumentException("seed policy tightenedMs " + Durations.format(tight)
          + " is not below defaultMs " + Durations.format(full) + ": expected a shorter tightened budget");
    }
    if (tightenAfterTimeouts < 1) {
      throw new IllegalArgumentException("seed policy tightenAfterTimeouts " + tightenAfterTimeouts
          + " is not a count of timeouts: expected 1 or more");
    }
    this.healthy = Budget.send(full, Budget.Basis.DEFAULT);
    this.tightened = Budget.send(tight, Budget.Basis.DEGRADED);
    this.threshold = tightenAfterTimeouts;
  }

  @Override
  public Budget budget(long now, String endpoint, String kind) {
    lock.lock();
    try {
      State state = states.get(endpoint);
      return state != null && state.tightened ? tightened : healthy;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void onOutcome(long now, String endpoint, String kind, Outcome outcome, long durationNanos) {
    lock.lock();
    try {
      State state = states.computeIfAbsent(endpoint, e -> new State());
      switch (outcome) {
        case SUCCESS -> {
          state.consecutiveTimeouts = 0;
          state.tightened = false;
        }
        case TIMED_OUT, SERVER_TIMEOUT -> {
          state.consecutiveTimeouts++;
          if (!state.tightened && state.consecutiveTimeouts >= threshold) {
            state.tightened = true;
          }
        }
        default -> { } // the seed's 'error': neutral
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "seed(default " + Durations.format(healthy.nanos()) + ", tightened " + Durations.format(tightened.nanos())
        + " after " + threshold + " timeouts)";
  }
}

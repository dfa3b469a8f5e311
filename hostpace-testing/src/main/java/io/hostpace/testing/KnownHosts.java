package io.hostpace.testing;

import io.hostpace.Clock;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.time.Duration;

/**
 * Stores whose every host is known from the start, as if a state file or another run had taught
 * it: for tests of what an engine does with a host it has learned (a fleet sharing a learned
 * limit, a first contact that is not one).
 */
public final class KnownHosts {

  private KnownHosts() {}

  /** A store whose every host has learned that it holds {@code inFlightLimit} requests at once. */
  public static HostStateStore holding(int inFlightLimit) {
    return holding(inFlightLimit, Duration.ZERO, Clock.system());
  }

  /**
   * A store whose every host has learned that it holds {@code inFlightLimit} at once and takes one
   * each {@code interval} (none when zero), the interval learned at {@code clock}'s now when the
   * engine first opens the host.
   */
  public static HostStateStore holding(int inFlightLimit, Duration interval, Clock clock) {
    if (inFlightLimit < 0 || interval.isNegative()) {
      throw new IllegalArgumentException(
          "a known host holds zero or more at once and an interval of zero or more, got " + inFlightLimit + " and " + interval);
    }
    return new HostStateStore() {
      @Override
      public HostState open(String key) {
        HostState state = HostStateStore.inMemory().open(key);
        state.inFlightLimit(inFlightLimit);
        if (!interval.isZero()) {
          state.interval(interval.toNanos(), clock.nanoTime());
        }
        return state;
      }

      @Override
      public void close(HostState state) {}

      @Override
      public String toString() {
        return "KnownHosts{holding " + inFlightLimit + ", interval " + interval + "}";
      }
    };
  }
}

package io.hostpace.testing;

import io.hostpace.spi.HostState;
import io.hostpace.spi.LearningRule;
import java.time.Duration;

/**
 * Learning rules that learn one fixed thing from a host's refusals and nothing from its answers,
 * so that a test of what the engine or a fleet does with what was learned knows exactly what that
 * is. With {@code paceEvery(Duration.ofSeconds(1))}: a host starts requests as fast as its limits
 * allow until it refuses one without {@code Retry-After}; from then on its starts are spaced 1 s
 * apart, and its answers keep that pace. Stateless, so one rule may serve many engines.
 */
public final class OnceRefused {

  private OnceRefused() {}

  /**
   * Once refused, a host is paced at one start every {@code interval}, and its answers keep that
   * pace.
   */
  public static LearningRule paceEvery(Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "a pace of one start every " + interval + " is not one: expected a positive interval");
    }
    long nanos = interval.toNanos();
    String name = "once refused, one start every " + interval;
    return new LearningRule() {
      @Override
      public long onRefusal(long now, long startedAt, long interval, long changedAt) {
        return nanos;
      }

      @Override
      public long onAnswer(long now, long startedAt, long interval, long changedAt) {
        return interval;
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /**
   * Once refused, a host is held to a quota of {@code permits} starts a {@code window}
   * ({@link HostState#quota(int, long)}), and is paced no other way: its interval stays 0.
   */
  public static LearningRule quota(int permits, Duration window) {
    if (permits < 1) {
      throw new IllegalArgumentException(
          "a quota of " + permits + " starts is not one: expected 1 or more");
    }
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException(
          "a quota's window " + window + " is not one: expected a positive duration");
    }
    long windowNanos = window.toNanos();
    String name = "once refused, a quota of " + permits + " starts a " + window;
    return new LearningRule() {
      @Override
      public long onRefusal(long now, long startedAt, long interval, long changedAt) {
        return 0;
      }

      @Override
      public long onAnswer(long now, long startedAt, long interval, long changedAt) {
        return 0;
      }

      @Override
      public long onRefusal(long now, long startedAt, HostState host) {
        host.quota(permits, windowNanos);
        return 0;
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }
}

package io.hostpace.spi;

import io.hostpace.Clock;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Warns of failures that may repeat many times a second, such as every command to a Redis that
 * went down, without flooding the log: at most one {@code WARNING} per kind of failure per
 * interval. The first failure of a kind is logged at once, with its exception; those of the same
 * kind in the interval after it are only counted, and the first one after the interval is logged
 * with that count. For an implementation of a store or fleet, and for the engine's own listeners.
 *
 * <p>Invariant: a kind was logged at most once in any interval that began at a logged failure of
 * it. Example, one kind, one minute: a fleet that loses Redis for 10 s and fails 20,000 commands
 * in it logs one line, at the first; if Redis fails again 2 minutes later, that failure is logged
 * saying that 19,999 more were not. A failure that is never followed by another of its kind after
 * the interval leaves its count unsaid, so a count is a floor, never the whole story.
 *
 * <p>Thread-safe. Kinds are few and fixed by the code (a command's name, a listener's class):
 * past 64 kinds, new ones share one.
 */
public final class FailureLog {

  /** How often a kind of failure is logged at most unless told otherwise: once a minute. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

  private static final int MAX_KINDS = 64;
  private static final String OTHER_KIND = "other";

  private final System.Logger logger;
  private final Clock clock;
  private final long intervalNanos;
  private final ConcurrentHashMap<String, Kind> kinds = new ConcurrentHashMap<>();

  /**
   * Warns on {@code logger}, at most once per kind per {@code interval} of {@code clock}'s time.
   *
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public FailureLog(System.Logger logger, Clock clock, Duration interval) {
    this.logger = Objects.requireNonNull(logger, "logger");
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("failure log interval must be positive, got " + interval);
    }
    this.intervalNanos = interval.toNanos();
  }

  /** Warns on the logger named after {@code owner}'s class, at most once a minute per kind, by the system's clock. */
  public static FailureLog of(Class<?> owner) {
    return new FailureLog(System.getLogger(owner.getName()), Clock.system(), DEFAULT_INTERVAL);
  }

  /**
   * One failure of {@code kind}: logged at {@code WARNING} with {@code message} and {@code
   * failure} unless one of its kind was within the interval, else counted. {@code message} is
   * built only when logged.
   *
   * @return whether it was logged
   */
  public boolean failed(String kind, Supplier<String> message, @Nullable Throwable failure) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
    Kind state = kinds.get(kind);
    if (state == null) {
      state = kinds.size() >= MAX_KINDS
          ? kinds.computeIfAbsent(OTHER_KIND, k -> new Kind())
          : kinds.computeIfAbsent(kind, k -> new Kind());
    }
    long unsaid = state.failed(clock.nanoTime(), intervalNanos);
    if (unsaid < 0 || !logger.isLoggable(Level.WARNING)) {
      return false;
    }
    String text = unsaid == 0 ? message.get()
        : message.get() + " (and " + unsaid + " more like it since the last warning of them)";
    if (failure == null) {
      logger.log(Level.WARNING, text);
    } else {
      logger.log(Level.WARNING, text, failure);
    }
    return true;
  }

  @Override
  public String toString() {
    return "FailureLog{" + logger.getName() + ", every " + Duration.ofNanos(intervalNanos) + "}";
  }

  /** One kind's last warning and the failures counted since. */
  private static final class Kind {
    private boolean warned;
    private long warnedAt;
    private long counted;

    /** The failures not said since the last warning when this one is to be said, else -1 (and it is counted). */
    synchronized long failed(long now, long intervalNanos) {
      if (warned && now - warnedAt < intervalNanos) {
        counted++;
        return -1;
      }
      long unsaid = counted;
      warned = true;
      warnedAt = now;
      counted = 0;
      return unsaid;
    }
  }
}

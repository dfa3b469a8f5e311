package io.hostpace.fuseki;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Decides, for each request that reaches an endpoint, whether it is served or refused, as a
 * public endpoint's admission control does. Thread-safe.
 */
public interface Gate {

  /** Whether to serve a request arriving at {@code nowNanos} ({@link System#nanoTime()}). */
  Admission admit(long nowNanos);

  /** A request that was admitted has been answered. */
  default void release() {}

  /** What the gate decided for one request. */
  record Admission(boolean admitted, int status, @Nullable Duration retryAfter) {
    static final Admission ADMITTED = new Admission(true, 200, null);
  }

  /** Serves everything. */
  static Gate open() {
    return now -> Admission.ADMITTED;
  }

  /**
   * Serves one request every {@code interval} and refuses the rest with 429 and no
   * {@code Retry-After}, as QLever's Wikidata endpoint does at about one a second. Refused
   * requests do not use up the allowance.
   */
  static Gate oneEvery(Duration interval) {
    return new SpacingGate(interval);
  }

  /**
   * Serves {@code concurrent} requests at once and refuses the rest with 429 and
   * {@code Retry-After}, as the KGF servers' admission gate does with four and one second.
   */
  static Gate concurrent(int concurrent, Duration retryAfter) {
    return new ConcurrencyGate(concurrent, retryAfter);
  }
}

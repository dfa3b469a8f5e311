package io.hostpace;

import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A decision of the engine, for listeners and metrics. The engine builds events only when a
 * {@link HostpaceListener} is installed, so that nobody pays for what nobody hears.
 *
 * <p>For one call that is refused once and then answered:
 * <pre>
 * Queued(attempt 1) → Started(1) → Refused(1, 429) → [Paused | IntervalChanged] → Retried(2)
 *   → Started(2) → (answer: no event; the call completes)
 * </pre>
 * and for one whose retries run out, {@code ... Refused(n) → GaveUp(n)}. {@code host} is the
 * request's host key; {@code key} is a host or a group key; {@code atNanos} is the engine's clock.
 */
public sealed interface HostpaceEvent {

  /** The engine's clock when the decision was made. */
  long atNanos();

  /** The host or group the event is about. */
  String key();

  /** A call entered its host's queue for attempt {@code attempt}. */
  record Queued(String key, URI uri, int attempt, long atNanos) implements HostpaceEvent {}

  /** Attempt {@code attempt} left its queue after waiting {@code waited}. */
  record Started(String key, URI uri, int attempt, Duration waited, long atNanos) implements HostpaceEvent {}

  /** The host refused attempt {@code attempt} with {@code status}; {@code retryAfter} is what it asked, if anything. */
  record Refused(String key, URI uri, int attempt, int status, @Nullable Duration retryAfter, long atNanos)
      implements HostpaceEvent {}

  /** The host or group starts nothing for {@code pause}: a {@code Retry-After} (SPEC R2), or a quota announced spent (R8). */
  record Paused(String key, Duration pause, long atNanos) implements HostpaceEvent {}

  /** The learned interval between starts of the host or group went from {@code from} to {@code to}. */
  record IntervalChanged(String key, Duration from, Duration to, long atNanos) implements HostpaceEvent {}

  /**
   * The learned in-flight limit of the host went from {@code from} to {@code to} (0: none), after a
   * refusal with {@code Retry-After} or while probing above it.
   */
  record InFlightLimitChanged(String key, int from, int to, long atNanos) implements HostpaceEvent {}

  /**
   * The quota the host or group was learned to count in went from {@code from} to {@code to}
   * (null: none): the engine starts at most so many of its requests in any such window.
   */
  record QuotaChanged(String key, @Nullable Rate from, @Nullable Rate to, long atNanos) implements HostpaceEvent {}

  /** A call goes back to its queue for attempt {@code attempt}, after {@code delay} (zero for a refusal). */
  record Retried(String key, URI uri, int attempt, Duration delay, long atNanos) implements HostpaceEvent {}

  /** A call ends with its last refusal, {@code status}, after {@code attempts} attempts, for {@code reason}. */
  record GaveUp(String key, URI uri, int attempts, int status, String reason, long atNanos) implements HostpaceEvent {}
}

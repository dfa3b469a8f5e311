package io.hostpace.testing;

/**
 * A server's rule for admitting requests, fed the time: {@code now} in nanoseconds, any origin,
 * compared only by differences. Not thread-safe.
 */
public sealed interface ServerLimit permits AdmissionGate, FixedWindow, Spacing, TokenBucket {

  /** Whether a request arriving at {@code now} is accepted; an accepted one takes its share. */
  boolean admit(long now);

  /**
   * As {@link #admit(long)}, for a request known to be answered at {@code endsAt}: a gate frees
   * its place by itself then, as a simulated server does. The other limits ignore {@code endsAt}.
   */
  default boolean admit(long now, long endsAt) {
    return admit(now);
  }

  /** A request accepted by {@link #admit(long)} was answered at {@code now}: a gate frees its place. */
  default void end(long now) {}

  /**
   * The earliest time, {@code now} or later, at which the limit accepts a request if nothing
   * else happens before; {@link Long#MAX_VALUE} when that waits on an {@link #end} no one has
   * announced.
   */
  long freeAt(long now);
}

package io.hostpace.simulator;

/**
 * {@code unpaced}: no engine, what plain client code does. Each process's {@code inFlight} workers
 * take requests in arrival order; a refused attempt waits {@link #BACKOFF_NANOS} holding its
 * worker, then goes again, up to {@link #RETRIES} retries; nothing is learned and Retry-After is
 * not read.
 */
final class UnpacedPacing implements PacingPolicy {

  /** The back-off after a refusal. */
  static final long BACKOFF_NANOS = 1_000_000_000L;
  static final int RETRIES = 5;

  @Override
  public String name() {
    return "unpaced";
  }

  @Override
  public boolean usesEngine() {
    return false;
  }
}

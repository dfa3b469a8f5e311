package io.hostpace;

import org.jspecify.annotations.Nullable;

/**
 * A count of places in flight with a cap, and an optional rate: what a host queue and a group
 * gate both are. Guarded by the engine's lock.
 */
abstract class Limiter {

  final Node node;
  final Limits limits;
  final int cap;
  final @Nullable RateState rate;
  // @GuardedBy("Scheduler.lock")
  int inFlight;

  Limiter(Node node, Limits limits, @Nullable RateState rate) {
    this.node = node;
    this.limits = limits;
    Integer inFlightLimit = limits.inFlight();
    this.cap = inFlightLimit != null ? inFlightLimit : Integer.MAX_VALUE;
    this.rate = rate;
  }

  boolean full() {
    return inFlight >= cap;
  }
}

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
  /**
   * How many of its requests the processes of the engine's fleet hold in flight together (SPEC
   * S2): the in-flight limit given the host or group by key; 0 when the fleet holds none (no
   * fleet, or a limit for every host, each process's own).
   */
  final int fleetCap;
  int inFlight;
  /** The time a wake-up is registered for, when {@link #wakeRegistered}: a queue's own, or a gate's for its walk. */
  long wakeAt;
  boolean wakeRegistered;

  Limiter(Node node, Limits limits, @Nullable RateState rate, int fleetCap) {
    this.node = node;
    this.limits = limits;
    Integer inFlightLimit = limits.inFlight();
    this.cap = inFlightLimit != null ? inFlightLimit : Integer.MAX_VALUE;
    this.rate = rate;
    this.fleetCap = fleetCap;
  }

  boolean full() {
    return inFlight >= cap;
  }
}

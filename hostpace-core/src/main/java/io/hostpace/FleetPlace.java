package io.hostpace;

/**
 * The fleet's places an attempt claimed of its host (SPEC S2), each under a number of its own: one
 * of the host's places in flight (whether the fleet granted it, and how many places were held
 * with it then, or could not be asked), and one of its learned quota's places (granted, or not to
 * be asked; once the attempt started with it, the fleet holds it for the quota's window). Made
 * for an attempt only when the fleet limits its host. Guarded by the engine's lock.
 */
final class FleetPlace {
  /** The number of the place in flight claimed, 0 when none is. */
  long number;
  /** Whether the fleet granted it: the attempt holds it until its answer. */
  boolean held;
  /** How many of the fleet's places were held with this one when it was granted. */
  int heldWith;
  /** Whether the fleet could not be asked: the engine's own count holds for the attempt. */
  boolean unclaimed;

  /** The number of the quota's place claimed, 0 when none is. */
  long quotaNumber;
  /** Whether the fleet granted the quota's place, or could not be asked for one. */
  boolean quotaHeld;
  boolean quotaUnclaimed;
  /** Whether the attempt started with its quota's place: the fleet's lease, not the engine, ends it then. */
  boolean quotaUsed;

  /** Whether the fleet answered the claim of a place in flight: granted, or not to be asked. */
  boolean answered() {
    return held || unclaimed;
  }

  /** Whether the fleet answered the claim of the quota's place: granted, or not to be asked. */
  boolean quotaAnswered() {
    return quotaHeld || quotaUnclaimed;
  }
}

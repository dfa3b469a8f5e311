package io.hostpace;

/**
 * The fleet's place an attempt claimed of its host (SPEC S2): its number, whether the fleet
 * granted it (and how many places were held with it then), or could not be asked. Guarded by the
 * engine's lock.
 */
final class FleetPlace {
  final long number;
  /** Whether the fleet granted it: the attempt holds it until its answer. */
  boolean held;
  /** How many of the fleet's places were held with this one when it was granted. */
  int heldWith;
  /** Whether the fleet could not be asked: the engine's own count holds for the attempt. */
  boolean unclaimed;

  FleetPlace(long number) {
    this.number = number;
  }

  /** Whether the fleet answered the claim: granted, or not to be asked. */
  boolean answered() {
    return held || unclaimed;
  }
}

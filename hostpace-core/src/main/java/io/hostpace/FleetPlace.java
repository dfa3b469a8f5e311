package io.hostpace;

import org.jspecify.annotations.Nullable;

/**
 * The fleet's places an attempt claimed (SPEC S2), each under a number of its own: one of its
 * host's places in flight (a learned in-flight limit, or one given the host by key), one of each
 * of its groups' places in flight (a group's in-flight limit), and one of its host's learned
 * quota's places (once the attempt started with it, the fleet holds it for the quota's window).
 * Made for an attempt only when the fleet limits its host or a group. Guarded by the engine's lock.
 */
final class FleetPlace {

  /** A place in flight claimed of one host or group. */
  static final class Claim {
    /** The number of the place claimed, 0 when none is. */
    long number;
    /** Whether the fleet granted it: the attempt holds it until its answer. */
    boolean held;
    /** How many of the fleet's places were held with this one when it was granted. */
    int heldWith;
    /**
     * Whether the fleet could not be asked: the attempt holds one of its process's share of the
     * host's or group's places (SPEC S4), within the engine's own count.
     */
    boolean unclaimed;

    /** Whether the fleet answered the claim: granted, or not to be asked. */
    boolean answered() {
      return held || unclaimed;
    }

    /** Whether the claim was asked and not answered yet. */
    boolean pending() {
      return number != 0 && !answered();
    }

    void clear() {
      number = 0;
      held = false;
      heldWith = 0;
      unclaimed = false;
    }
  }

  /** The host's place in flight. */
  final Claim host = new Claim();
  /** The places in flight of the attempt's group gates, by the gate's index in its queue; null until one is claimed. */
  Claim @Nullable [] gates;

  /** The number of the quota's place claimed, 0 when none is. */
  long quotaNumber;
  /** Whether the fleet granted the quota's place, or could not be asked for one. */
  boolean quotaHeld;
  boolean quotaUnclaimed;
  /** Whether the attempt started with its quota's place: the fleet's lease, not the engine, ends it then. */
  boolean quotaUsed;

  /** Whether the attempt spent one of its host's announced starts in the fleet, or the fleet could not be asked (SPEC S3). */
  boolean announcedSpent;
  /**
   * The fleet's count of the host's spends when the attempt started (its own spend's number, or the
   * last this engine was told): the order of the announcement its answer makes; 0 for none known.
   */
  long announcedOrder;

  /** The claim of the host's place ({@code gate} -1) or of gate {@code gate}'s, made when missing, of {@code gateCount} gates. */
  Claim claim(int gate, int gateCount) {
    if (gate < 0) {
      return host;
    }
    Claim[] claims = gates;
    if (claims == null) {
      claims = gates = new Claim[gateCount];
    }
    Claim claim = claims[gate];
    if (claim == null) {
      claim = claims[gate] = new Claim();
    }
    return claim;
  }

  /** The claim of the host's place ({@code gate} -1) or of gate {@code gate}'s, or null when none was made. */
  @Nullable Claim claimIfAny(int gate) {
    if (gate < 0) {
      return host;
    }
    Claim[] claims = gates;
    return claims == null ? null : claims[gate];
  }

  /** Whether the fleet answered the claim of the quota's place: granted, or not to be asked. */
  boolean quotaAnswered() {
    return quotaHeld || quotaUnclaimed;
  }

  /** Whether any of the attempt's claims was asked and not answered yet. */
  boolean pending() {
    if (quotaNumber != 0 && !quotaAnswered() || host.pending()) {
      return true;
    }
    Claim[] claims = gates;
    for (int i = 0; claims != null && i < claims.length; i++) {
      if (claims[i] != null && claims[i].pending()) {
        return true;
      }
    }
    return false;
  }
}

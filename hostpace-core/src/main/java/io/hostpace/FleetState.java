package io.hostpace;

/**
 * What a host or group waits for from its engine's fleet (SPEC S2): whether a claim of one of its
 * places is asked, and whether the fleet's places of it, or of its learned quota, are all held.
 * (Claims of starts are its queues', {@link StartClaim}; the node keeps when this process last
 * started it, for its share while the fleet cannot be asked.) Made for a node only once the fleet
 * limits its places or paces its starts, so that an engine without a fleet, and a host the fleet never holds back,
 * pay nothing for it. Guarded by the engine's lock.
 */
final class FleetState {
  /** Whether the node waits for the fleet's answer to a claim of a place. */
  boolean placeClaiming;
  /** Whether the fleet said all its places are held: a lesson, a release or a second clears it. */
  boolean placesFull;
  /** Whether the node waits for the fleet's answer to a claim of a place of its learned quota. */
  boolean quotaClaiming;
  /** Whether the fleet said all its places of the quota are held: a refusal, a release or a while clears it. */
  boolean quotaFull;
  /** Whether the node waits for the fleet's answer to a spend of its announced starts (SPEC S3). */
  boolean announcedSpending;
  /** Whether the fleet said none of the announced starts remains until {@link #announcedResetAt}. */
  boolean announcedSpent;
  long announcedResetAt;
  /** The fleet's count of the host's spends, as this engine was last told (SPEC S3); 0 before. */
  long announcedSpends;
  /**
   * Whether a start of the node was granted to this process, by the fleet or by its share while
   * the fleet could not be asked, last at {@link #startGrantedAt}: its share's spacing counts from there (SPEC S4).
   */
  boolean startGranted;
  long startGrantedAt;
  /** Whether the fleet could not be asked for the last claim of a start of the node: its next answer is a rejoin. */
  boolean unclaimed;
}

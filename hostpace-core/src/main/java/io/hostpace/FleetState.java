package io.hostpace;

/**
 * What a host or group waits for from its engine's fleet, and holds of it (SPEC S2): a claim of a
 * start (granted, asked, or to ask again), and whether the fleet's places of the host, or of its
 * learned quota, are all held. Made for a node only once the fleet paces it or limits its places, so that an engine
 * without a fleet, and a host the fleet never holds back, pay nothing for it. Guarded by the
 * engine's lock.
 */
final class FleetState {
  /** Whether the node waits for the fleet's answer to its claim of a start. */
  boolean claiming;
  /** Whether the node holds the fleet's claim to start, granted at {@link #claimedAt}, not yet used. */
  boolean claimed;
  long claimedAt;
  /** Whether the fleet, not granting the last claim, said to claim again at {@link #askAgainAt}. */
  boolean askAgain;
  long askAgainAt;
  /** Whether the node waits for the fleet's answer to a claim of a place. */
  boolean placeClaiming;
  /** Whether the fleet said all its places are held: a lesson, a release or a second clears it. */
  boolean placesFull;
  /** Whether the node waits for the fleet's answer to a claim of a place of its learned quota. */
  boolean quotaClaiming;
  /** Whether the fleet said all its places of the quota are held: a refusal, a release or a while clears it. */
  boolean quotaFull;
}

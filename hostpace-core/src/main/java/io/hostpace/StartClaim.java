package io.hostpace;

/**
 * A host queue's claim of its next start from the engine's fleet (SPEC S2): of its host and of
 * each of its groups that is paced, all at once. Asked, granted (at {@link #claimedAt}, not yet
 * used), to ask again (at {@link #askAgainAt}), or left to this process alone ({@link #alone}). Made for a queue only once the fleet paces it.
 * Guarded by the engine's lock.
 */
final class StartClaim {
  /** Whether the queue waits for the fleet's answer to its claim. */
  boolean claiming;
  /** Whether the queue holds the fleet's grant to start, granted at {@link #claimedAt}, not yet used. */
  boolean claimed;
  long claimedAt;
  /** Whether the fleet, not granting the last claim, said to claim again at {@link #askAgainAt}. */
  boolean askAgain;
  long askAgainAt;
  /**
   * Whether the fleet could not be asked for the last claim: the queue starts alone, at this
   * process's share of the fleet's spacing, and asks the fleet again for the start after.
   */
  boolean alone;
  /** Whether the fleet said to claim again since the last grant: another process's claim came first. */
  boolean rivalled;
  /**
   * Whether the last grant came at the first ask, no other process's claim first: the next is asked
   * ahead of this process's own pace ({@code FleetClaims.askAhead}).
   */
  boolean unrivalled;
}

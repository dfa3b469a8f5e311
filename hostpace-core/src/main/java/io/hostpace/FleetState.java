package io.hostpace;

import io.hostpace.spi.Fleet;
import org.jspecify.annotations.Nullable;

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
  /**
   * Whether the fleet said all its places are held, or could not be asked while this process holds
   * its share of them: the node claims no place until a grant comes, or (from a fleet that keeps no
   * waiters, or cannot be asked) a lesson, a release or a second clears it.
   */
  boolean placesFull;
  /**
   * The number of this process's claim of one of the node's places that waits in the fleet
   * ({@link Fleet#WAITING}), 0 for none: the fleet grants it when a place is let go, and the next
   * claim of the node, a while later if no grant came, asks again under this number.
   */
  long placeWaiting;
  /**
   * How many of the node's places this process's calls hold: granted by the fleet, or taken alone
   * while the fleet could not be asked. While it cannot be asked, a call takes one alone only
   * below this process's share of the places (SPEC S4); else it waits, {@link #placesFull}, for one
   * of them to be let go or for a while before it asks the fleet again.
   */
  int placesHeld;
  /** A place the fleet granted the waiting claim, not yet taken by a call: its number (0 for none) and the count held with it. */
  long placeGranted;
  int placeGrantedWith;
  /** The call that took the last place granted, while the grant's answer is handled; null otherwise. */
  @Nullable Call<?> grantTaker;
  /** Whether the node waits for the fleet's answer to a claim of a place of its learned quota. */
  boolean quotaClaiming;
  /** Whether the fleet said all its places of the quota are held: a refusal, a release or a while clears it. */
  boolean quotaFull;
  /**
   * The fleet's one place of the host's window probe (SPEC S2): the number of this process's claim
   * of it (0 for none), whether the claim is asked, whether this process holds it, and whether the
   * fleet said another process does (its probe's answer, heard, or a while clears it).
   */
  long probeNumber;
  boolean probeClaiming;
  boolean probeHeld;
  boolean probeElsewhere;
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
  /**
   * Whether the last start of the node was this process's alone, the fleet not asked: the next claim
   * waits the fleet's spacing from it, as the fleet does not know of it.
   */
  boolean startedAlone;
  /**
   * Whether the fleet could not be asked for a claim of a start of the node, and has not answered
   * since: its next answer, or the next lesson heard of the node, is a rejoin.
   */
  boolean unclaimed;
  /**
   * What the node had learned as the fleet could first not be asked (its interval, in-flight
   * limit and quota; no pause): the fleet's, learned from every process's answers. What this
   * process learns meanwhile, from its own answers alone at its share, is its share's pace, not the
   * fleet's: its share is spaced from this, and this is what it offers the fleet as it rejoins
   * (SPEC S4).
   */
  Fleet.Kept atLoss = Fleet.Kept.NOTHING;
  /**
   * This process's share of the fleet's spacing of the node, as it last started it alone (SPEC S4):
   * the fleet's spacing at loss times the processes; 0 before it started alone.
   */
  long share;
  /**
   * Until when the bare refusals of the node teach its interval nothing, as this process rejoined
   * the fleet (SPEC S4): a share after the rejoin, by which every process has asked the fleet
   * again. Before, a refusal may be of a start another process made alone at its share, or of one
   * the fleet granted while such starts went on: the processes that read the fleet's pace before it
   * came would learn it, those that read it after would not, and their paces would part again.
   */
  long rejoinSettlesAt;
  boolean rejoinSettling;
  /**
   * Whether the node's pace is being read again from the fleet as this process rejoins it (SPEC
   * S4), the read asked and not answered.
   */
  boolean rejoining;
  /**
   * Whether this process rejoined the fleet and has not read the node's pace from it yet (SPEC S4):
   * the read is asked, or the fleet could not answer it, though it answers claims again. Until it
   * is read, what this process learned alone is not kept in the fleet, and a loss of the fleet
   * meanwhile keeps {@link #atLoss} from the first. A read that failed is asked again at a claim
   * answered or a lesson heard from {@link #readAgainAt}, each wait twice the last
   * ({@link #readBackoff}): 1 s, 2 s, 4 s, up to 10 s; not at each claim, and the rejoin's
   * settling ({@link #rejoinSettlesAt}) is not begun again.
   */
  boolean unread;
  long readAgainAt;
  long readBackoff;

  /** Whether this process is still rejoining the fleet at {@code now}, until {@link #rejoinSettlesAt}. */
  boolean settling(long now) {
    if (rejoinSettling && rejoinSettlesAt - now <= 0) {
      rejoinSettling = false;
    }
    return rejoinSettling;
  }
}

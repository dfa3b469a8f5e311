package io.hostpace;

import io.hostpace.spi.Fleet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What an engine claims of its fleet before a start (SPEC S2), for its {@link Scheduler}: the
 * start itself, of the host and its paced groups at once, while they are paced; one of the places
 * of the host's learned quota, held for the quota's window; and one of the places in flight of
 * the host and of each of its groups that has an in-flight limit (learned, or given by key), held
 * until the answer.
 *
 * <p>The scheduler asks {@link #readiness} of a queue's head it would start, and gets an answer:
 * {@link #READY}, {@link #BLOCKED} (a claim is asked, or the fleet's places are all held: its
 * answer looks at the queue again), or how long until the fleet is to be asked again. Each claim is
 * a round trip: the fleet answers later, on a thread of its own, and the answer comes back in
 * through the engine's {@link Reentry}, which looks at the queues it concerns again. Called under
 * the engine's lock; it never takes it itself.
 */
final class FleetClaims {

  /** {@link #readiness}: the fleet lets the head start now. */
  static final long READY = 0;
  /** {@link #readiness}: the head waits for the fleet's answer, or for a place to be let go. */
  static final long BLOCKED = -1;

  private final Fleet fleet;
  /** Whether the fleet spends the starts hosts announce together (SPEC S3): a fleet that keeps what hosts taught. */
  private final boolean shares;
  private final Clock clock;
  private final Timer timer;
  private final Reentry engine;
  /** What the fleet keeps of hosts, read again as this process rejoins the fleet (SPEC S4); null when it keeps nothing. */
  private final @Nullable FleetMemory memory;
  /** The number of the last of the fleet's places claimed. */
  private long places;
  /** How long the fleet took to answer the last claim of a start or a place, in nanoseconds. */
  private long fleetRoundTrip;

  FleetClaims(Fleet fleet, Clock clock, Timer timer, Reentry engine, @Nullable FleetMemory memory) {
    this.fleet = fleet;
    this.memory = memory;
    this.shares = fleet.keeps();
    this.clock = clock;
    this.timer = timer;
    this.engine = engine;
  }

  /**
   * Whether the fleet lets the head of {@code queue}, ready by this engine's own reckoning, start
   * at {@code now}: {@link #READY}; {@link #BLOCKED}; or, above 0, the nanoseconds until its
   * start is to be claimed again. The head claims its places in flight first, then its quota's
   * place (and its probe's), then its start: so only a head that holds its places claims a start,
   * and a start the fleet grants is used (one claimed by a head that then waited for a place was
   * lost, and the heads that held theirs were told to wait for it), at once: the fleet spaces
   * starts from its grants, and a start that went a round trip after its grant, as its quota's
   * place came, went that much less than the spacing before another process's next. A place in
   * flight, once held, is kept while the head waits for the rest, until the call starts, ends, or
   * is no longer its queue's head ({@link #giveBackIfWaiting}); a quota's place is given back
   * unless used at once (kept while the start is asked).
   */
  long readiness(HostQueue queue, long now) {
    Call<?> head = queue.head();
    if (head == null) {
      return READY; // nothing waits: nothing to claim (the scheduler asks only of a head)
    }
    takeGranted(queue, head);
    long announced = announcedSpent(queue, head, now);
    if (announced != READY) {
      return forgone(queue, announced);
    }
    if (!placed(queue, head, now)) {
      return forgone(queue, BLOCKED);
    }
    long start = claimed(queue, head, now);
    if (start != READY) {
      return start;
    }
    return quotaPlaced(queue, head, now) ? READY : forgone(queue, BLOCKED);
  }

  /**
   * Lets go the start the fleet granted {@code queue}, if it holds one, and answers {@code wait}:
   * its head lacks what it claims before a start (an announced start, a place in flight, its
   * quota's place), as when the head that claimed the start was cancelled, or another came back in
   * line before it, while it was asked. Used once those came, the start would go that much after its grant, and the fleet spaces
   * the next process's start from the grant. Claimed again once the head holds them, the start
   * goes as its grant comes, the fleet's spacing after the last.
   */
  private static long forgone(HostQueue queue, long wait) {
    StartClaim claim = queue.startClaim;
    if (claim != null) {
      claim.claimed = false;
    }
    return wait;
  }

  /**
   * The head of {@code queue} takes each place the fleet granted a claim of this process that
   * waited there ({@link #placeGranted}) of its host or of one of its groups, when it needs one:
   * first, so that it holds it while its other claims (its start's too) are asked. In the order
   * {@link #placed} claims them, the host's and then the gates' in theirs, and only while it holds
   * each one before: a head that held a group's place while it waited for its host's, where
   * another process's head held the host's and waited for the group's, would wait for ever.
   */
  private void takeGranted(HostQueue queue, Call<?> head) {
    int limit = hostLimit(queue);
    if (limit > 0 && !takeGranted(queue, head, queue.node, -1, limit)) {
      return;
    }
    for (int i = 0; i < queue.gates.length; i++) {
      GroupGate gate = queue.gates[i];
      if (gate.fleetCap > 0 && !takeGranted(queue, head, gate.node, i, gate.fleetCap)) {
        return;
      }
    }
  }

  /**
   * The fleet's in-flight limit of {@code queue}'s host, for its claims of the host's places: the
   * learned one or the one given by key, the lower where both are; 0 for none.
   */
  private static int hostLimit(HostQueue queue) {
    int learned = queue.node.state.inFlightLimit();
    return learned > 0 && queue.fleetCap > 0 ? Math.min(learned, queue.fleetCap) : Math.max(learned, queue.fleetCap);
  }

  /**
   * Whether {@code head} holds the place of {@code node} ({@code gate} -1 for its host), having
   * taken the one granted, if any. Not one the fleet granted with more places held than {@code
   * limit}, the head's own: the claim that waited was another head's, under a higher limit (its
   * host's or group's in another context), and this head's requests would go beyond theirs.
   */
  private boolean takeGranted(HostQueue queue, Call<?> head, Node node, int gate, int limit) {
    FleetPlace place = head.place;
    FleetPlace.Claim claim = place == null ? null : place.claimIfAny(gate);
    FleetState claims = node.fleet;
    if (claims == null || claims.placeGranted == 0) {
      return claim != null && claim.answered();
    }
    long granted = claims.placeGranted;
    if (claim != null && (claim.answered() || claim.pending() && claim.number != granted)) {
      return claim.answered(); // it holds one already, or asks under another number
    }
    if (claims.placeGrantedWith > limit) {
      return false;
    }
    if (place == null) {
      place = head.place = new FleetPlace();
    }
    FleetPlace.Claim taken = place.claim(gate, queue.gates.length);
    taken.clear();
    taken.number = granted;
    taken.held = true;
    taken.heldWith = claims.placeGrantedWith;
    claims.placesHeld++;
    claims.placeGranted = 0;
    claims.grantTaker = head;
    return true;
  }

  /**
   * Whether the head of {@code queue} spent one of the starts its host announced, from the fleet's
   * count (SPEC R8, S3), when the host announced few and the fleet shares them: each process counts
   * only its own starts, so the fleet counts them for all. Else spends one (the answer pumps the
   * host's queues), or waits until the reset the fleet said none remains before. A spend the start
   * does not use (let go meanwhile) is lost: the fleet goes a little under the announced count,
   * never over it.
   */
  private long announcedSpent(HostQueue queue, Call<?> head, long now) {
    Node node = queue.node;
    AnnouncedBudget announced = node.announced;
    FleetPlace place = head.place;
    if (!shares || announced == null || !announced.few(now, node.starts) || place != null && place.announcedSpent) {
      return READY;
    }
    FleetState claims = node.fleet();
    if (claims.announcedSpending) {
      return BLOCKED;
    }
    if (claims.announcedSpent) {
      if (claims.announcedResetAt - now > 0) {
        return claims.announcedResetAt - now;
      }
      claims.announcedSpent = false;
    }
    claims.announcedSpending = true;
    if (place == null) {
      place = head.place = new FleetPlace();
    }
    FleetPlace spending = place;
    fleet.spendAnnounced(node.key, spent -> engine.underLock(() -> {
      claims.announcedSpending = false;
      claims.announcedSpends = Math.max(claims.announcedSpends, spent.number());
      long at = clock.nanoTime();
      if (!spent.granted()) {
        claims.announcedSpent = true;
        claims.announcedResetAt = at + spent.waitNanos();
      } else if (head.place == spending) { // granted, or the fleet could not be asked: this engine's count holds
        spending.announcedSpent = true;
        spending.announcedOrder = spent.number();
      }
      engine.lookAgain(node, at);
    }));
    return BLOCKED;
  }

  /**
   * The order of the announcement {@code call}'s answer makes (SPEC S3): the fleet's count of its
   * host's spends when it started, its own spend's if it made one, else the last this engine was
   * told (set as it started); 0 when none is known.
   */
  static long announcedOrder(Call<?> call) {
    FleetPlace place = call.place;
    return place == null ? 0 : place.announcedOrder;
  }

  /**
   * Another process's lesson about {@code node} came: one of its places may have been let go, which
   * a claim that waits in the fleet hears of as a grant, and any other claims again.
   */
  void heard(Node node) {
    FleetState state = node.fleet;
    if (state != null) {
      if (state.placeWaiting == 0) {
        state.placesFull = false;
      }
      if (state.unclaimed) { // the fleet is back: rejoin it now, not at this process's next claim
        for (int i = 0; i < node.queueCount(); i++) {
          StartClaim claim = node.queueAt(i).startClaim;
          if (claim != null) {
            claim.alone = false;
          }
        }
      }
      if (state.unclaimed || state.unread) {
        rejoin(node, clock.nanoTime());
      }
    }
  }

  /** {@code call} of {@code queue} started: the fleet's grant of a start is used, and its quota's place, if any. */
  void started(HostQueue queue, Call<?> call) {
    if (queue.startClaim != null) {
      queue.startClaim.claimed = false;
    }
    FleetState node = queue.node.fleet;
    if (node != null && node.announcedSpends > 0) { // the order of the announcement its answer may make
      FleetPlace place = call.place;
      if (place == null) {
        place = call.place = new FleetPlace();
      }
      if (place.announcedOrder == 0) {
        place.announcedOrder = node.announcedSpends;
      }
    }
    if (call.place != null && call.place.quotaHeld) {
      call.place.quotaUsed = true;
    }
  }

  /**
   * Whether the head of {@code queue} holds the fleet's places in flight it needs (SPEC S2): one of
   * its host's, when the host has a learned in-flight limit or one given it by key, and one of each
   * of its groups' that has an in-flight limit; so the fleet's processes together hold no more than
   * each. Else claims the next one missing (its answer pumps the host's queues), or waits while
   * the fleet said all of that one are held: for the place the fleet grants this process's claim
   * that waits there ({@link #placeGranted}), which the head takes, or for a while before it asks
   * again. While the fleet cannot be asked, the head holds one of this process's share of the
   * places instead ({@link #share}), or waits, as for the fleet's, until one of them is let go or
   * a while has passed.
   */
  private boolean placed(HostQueue queue, Call<?> head, long now) {
    int limit = hostLimit(queue);
    if (limit > 0 && !placed(queue, head, queue.node, -1, limit, now)) {
      return false;
    }
    for (int i = 0; i < queue.gates.length; i++) {
      GroupGate gate = queue.gates[i];
      if (gate.fleetCap > 0 && !placed(queue, head, gate.node, i, gate.fleetCap, now)) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code head} holds one of the {@code limit} places of {@code node} (its host's, {@code gate} -1, or a gate's); else claims it. */
  private boolean placed(HostQueue queue, Call<?> head, Node node, int gate, int limit, long now) {
    FleetPlace place = head.place;
    FleetPlace.Claim claim = place == null ? null : place.claimIfAny(gate);
    if (claim != null && claim.answered()) {
      return true; // held, or one of this process's share while the fleet could not be asked
    }
    if (place != null) {
      letGoAfter(queue, place, gate);
    }
    FleetState claims = node.fleet();
    if (claims.placeClaiming || claims.placesFull) {
      return false;
    }
    claims.placeClaiming = true;
    if (place == null) {
      place = head.place = new FleetPlace();
    }
    FleetPlace claimedBy = place;
    FleetPlace.Claim claimed = place.claim(gate, queue.gates.length);
    boolean again = claims.placeWaiting != 0; // asked again under the number that waits: answered what it holds, or its turn kept
    long number = claimed.number = again ? claims.placeWaiting : ++places;
    long asked = now;
    fleet.claimPlace(node.key, number, limit,
        held -> placeAnswered(node, head, claimedBy, claimed, number, limit, held, asked, again),
        held -> placeGranted(node, number, held));
    return false;
  }

  /**
   * The fleet answered the claim numbered {@code number} of one of the {@code limit} places of
   * {@code node} for {@code call}; {@code again} when it asked again under the number of a claim
   * that waited. A claim the fleet could not answer is this process's alone: granted while it
   * holds fewer than its share of the places ({@link #share}), else it waits as for a place the
   * fleet said was held; either way a claim that waited under its number waits no more here, and
   * a grant of it heard later is let go ({@link #placeGranted}).
   */
  private void placeAnswered(Node node, Call<?> call, FleetPlace place, FleetPlace.Claim claim, long number, int limit,
      long held, long asked, boolean again) {
    engine.underLock(() -> {
      FleetState claims = node.fleet();
      claims.placeClaiming = false;
      long now = clock.nanoTime();
      fleetRoundTrip = now - asked;
      boolean claiming = call.place == place && claim.number == number;
      boolean wanted = claiming && call.state == Call.State.WAITING;
      if (again && claims.placeWaiting != number) { // the grant came first: a call took it, or it was let go
        if (claiming && !claim.held) {
          claim.number = 0;
        }
      } else if (held == Fleet.WAITING) {
        if (claiming) {
          claim.number = 0; // the node waits, not the call: whichever head is there takes the grant
        }
        claims.placeWaiting = number;
        claims.placesFull = true;
        timer.schedule(() -> waitedLong(node, number), PLACE_WAIT_RETRY);
      } else if (held == 0) {
        if (claiming) {
          claim.number = 0;
        }
        claims.placeWaiting = 0;
        claims.placesFull = true;
        timer.schedule(() -> mayBeFree(node, false), PLACES_FULL_RETRY);
      } else if (!wanted) {
        if (held > 0) {
          claims.placeWaiting = claims.placeWaiting == number ? 0 : claims.placeWaiting;
          fleet.releasePlace(node.key, number); // the call went meanwhile
        }
      } else if (held > limit) {
        // Asked again under the number of a claim that waited, which the fleet had granted under
        // another head's higher limit (see takeGranted): let go, and claimed again under this one.
        claims.placeWaiting = claims.placeWaiting == number ? 0 : claims.placeWaiting;
        fleet.releasePlace(node.key, number);
        claim.number = 0;
      } else if (held > 0) {
        claims.placeWaiting = claims.placeWaiting == number ? 0 : claims.placeWaiting;
        claim.held = true;
        claim.heldWith = (int) Math.min(Integer.MAX_VALUE, held);
        claims.placesHeld++;
      } else {
        // Unclaimed: a grant of the claim that waited under this number, heard later, is let go, not taken beyond the share.
        claims.placeWaiting = claims.placeWaiting == number ? 0 : claims.placeWaiting;
        if (claims.placesHeld >= share(limit)) { // this process holds its share: one of them, or the fleet, frees one
          claim.number = 0;
          claims.placesFull = true;
          timer.schedule(() -> mayBeFree(node, false), PLACES_FULL_RETRY);
        } else {
          claim.unclaimed = true;
          claims.placesHeld++;
        }
      }
      engine.lookAgain(node, now);
      giveBackIfWaiting(call, place);
    });
  }

  /**
   * The fleet granted {@code node}'s claim numbered {@code number}, which waited there, a place
   * let go ({@link Fleet#WAITING}): the head that needs one of the node's places takes it. One
   * that no head takes (none waits now, or each waits for something else) is let go at once, and
   * the fleet grants it to the claim that waited next.
   */
  private void placeGranted(Node node, long number, long held) {
    engine.underLock(() -> {
      FleetState claims = node.fleet();
      if (claims.placeWaiting != number) {
        fleet.releasePlace(node.key, number); // not a claim that waits here: nothing takes it
        return;
      }
      claims.placeWaiting = 0;
      claims.placesFull = false;
      claims.placeGranted = number;
      claims.placeGrantedWith = (int) Math.min(Integer.MAX_VALUE, Math.max(1, held));
      claims.grantTaker = null;
      engine.lookAgain(node, clock.nanoTime());
      Call<?> taker = claims.grantTaker;
      claims.grantTaker = null;
      if (claims.placeGranted == number) {
        claims.placeGranted = 0;
        fleet.releasePlace(node.key, number);
      } else if (taker != null && taker.place != null) {
        giveBackIfWaiting(taker, taker.place); // taken, but its start waits for something else than a claim asked: its quota's place
      }
    });
  }

  /**
   * How long a claim that waits in the fleet for one of a node's places waits for its grant before
   * the node asks again: in case the fleet's notice was lost, or a place's lease ran out where no
   * claim or release looked. Rare, as the grant comes by itself: the fleet is not asked again while
   * its places are held.
   */
  private static final long PLACE_WAIT_RETRY = 5_000_000_000L;

  /** {@code node}'s claim numbered {@code number} waited a while in the fleet with no grant heard: its queues ask again under it. */
  private void waitedLong(Node node, long number) {
    engine.underLock(() -> {
      FleetState claims = node.fleet;
      if (claims != null && claims.placeWaiting == number && claims.placesFull) {
        claims.placesFull = false;
        engine.lookAgain(node, clock.nanoTime());
      }
    });
  }

  /**
   * What a call that still waits after the answer to one of its claims gives back, when none of
   * its claims is still asked. Its places in flight it keeps while it heads its queue, and claims
   * the rest: given back whenever it waited, they went from process to process, each head taking
   * one and giving it back as it waited for the next (a group's place, or its start claimed
   * again), which another head held the same way, so that no start was made. Kept, they
   * are taken in one order (the host's, then the gates' in theirs: {@link #takeGranted},
   * {@link #placed}), so no two heads each wait for what the other holds. A call no longer its
   * queue's head gives them all back ({@link #displaced}), as one cancelled or ended does. Its
   * quota's place it gives back unless its queue's start is being asked for it: the place's lease
   * would run out before its start, and another process can claim one meanwhile.
   */
  private void giveBackIfWaiting(Call<?> call, FleetPlace place) {
    if (call.place != place || call.state != Call.State.WAITING || place.pending()) {
      return;
    }
    if (call.queue.head() != call) {
      letGoPlace(call);
      letGoQuotaPlace(call, false);
      return;
    }
    StartClaim start = call.queue.startClaim;
    if (start == null || !start.claiming) {
      letGoQuotaPlace(call, false);
    }
  }

  /**
   * {@code call} headed its queue and a call that came before it is back in line (a retry keeps its
   * place): the places it holds while it waits, those in flight too, are given back, as the new
   * head claims its own and starts first. Kept, they would hold the fleet's places while no start of theirs is near: with
   * a learned limit of one, the only place, and the new head would wait for it for ever. A claim
   * of it still asked gives its place back when answered.
   */
  void displaced(Call<?> call) {
    FleetPlace place = call.place;
    if (place != null) {
      giveBackIfWaiting(call, place);
    }
  }

  /** How long a host whose places the fleet said were all held waits, with no lesson heard, before it claims again. */
  private static final long PLACES_FULL_RETRY = 1_000_000_000L;

  /**
   * A while after the fleet said all of {@code node}'s places (or its quota's) were held, with
   * nothing heard that would have cleared it: its queues claim again.
   */
  private void mayBeFree(Node node, boolean quota) {
    engine.underLock(() -> {
      FleetState claims = node.fleet;
      if (claims != null && (quota ? claims.quotaFull : claims.placesFull)) {
        if (quota) {
          claims.quotaFull = false;
        } else {
          claims.placesFull = false;
        }
        engine.lookAgain(node, clock.nanoTime());
      }
    });
  }

  /**
   * How many of the fleet's places were held with {@code call}'s when it started, at least its
   * process's own count; 0 when it held none. A ceiling of what the host held at once: the count
   * also holds places granted to requests that had not started, or just ended.
   */
  static int fleetCount(Call<?> call) {
    FleetPlace place = call.place;
    return place != null && place.host.held ? Math.max(call.inFlightAtStart, place.host.heldWith) : 0;
  }

  /** Releases the fleet's places in flight {@code call} holds (its host's, its groups'), if any; they may claim again. */
  private void letGoPlace(Call<?> call) {
    FleetPlace place = call.place;
    if (place == null) {
      return;
    }
    HostQueue queue = call.queue;
    letGo(queue.node, place.host);
    FleetPlace.Claim[] gates = place.gates;
    for (int i = 0; gates != null && i < gates.length; i++) {
      if (gates[i] != null) {
        letGo(queue.gates[i].node, gates[i]);
      }
    }
  }

  /**
   * Gives back the places of {@code place}'s gates after {@code gate} (all of them for its host's,
   * -1), which the head took while the one it lacks now was not needed (its host had no in-flight
   * limit yet; a learned one came since). Kept, they would break the one order every head takes
   * them in: this head would wait for its host's place while holding its group's, which another
   * process's head, holding the host's, waits for, and neither would start.
   */
  private void letGoAfter(HostQueue queue, FleetPlace place, int gate) {
    FleetPlace.Claim[] gates = place.gates;
    for (int i = gate + 1; gates != null && i < gates.length; i++) {
      if (gates[i] != null && gates[i].answered()) {
        letGo(queue.gates[i].node, gates[i]);
      }
    }
  }

  /**
   * Gives back {@code claim}'s place of {@code node}, if it holds one. Heads that the fleet's "all
   * held" kept from claiming are then looked at again, whichever queue or gate they wait in (a
   * group's gates of other contexts too): soon, not here, as this runs within a look at a queue
   * as well as on an answer or a cancellation. A claim that waits in the fleet hears of the place
   * as a grant instead, if it is its turn.
   */
  private void letGo(Node node, FleetPlace.Claim claim) {
    if (claim.answered()) {
      FleetState claims = node.fleet();
      claims.placesHeld--;
      if (claim.held) {
        fleet.releasePlace(node.key, claim.number);
      }
      if (claims.placeWaiting == 0 && claims.placesFull) {
        claims.placesFull = false;
        timer.schedule(() -> engine.underLock(() -> engine.lookAgain(node, clock.nanoTime())), 0);
      }
    }
    claim.clear();
  }

  /**
   * How many of a node's {@code limit} places this process holds at most while the fleet cannot be
   * asked (SPEC S4): its share among the processes the fleet last counted, rounded up, at least
   * one. A host of 6 places among 3 processes: 2 each, so the fleet together still holds 6, where
   * each alone would hold all 6. Each process's count of its own places is still its own limit.
   * So too a host's opening, whose width the fleet's answers widen (SPEC P12).
   */
  int share(int limit) {
    long processes = Math.max(1, fleet.processes());
    return (int) Math.max(1, (limit + processes - 1) / processes);
  }

  /** Lets go the fleet's places {@code call} holds, as its attempt ends (a quota's place that was used ends by its lease). */
  void letGoPlaces(Call<?> call) {
    if (call.place != null) {
      letGoPlace(call);
      letGoQuotaPlace(call, false);
      call.place = null;
    }
  }

  /** The key of the fleet's places of a host's learned quota: its own key and {@code /quota}, which no host key has. */
  private static String quotaKey(Node node) {
    return node.key + "/quota";
  }

  /**
   * Whether the head of {@code queue} holds one of the fleet's places of its host's learned quota
   * (SPEC S2), when the host has one: each start holds a place for the quota's window, so the
   * fleet's processes together start no more than the quota in any window, though each counts
   * only its own starts. Else claims one (the answer pumps the host's queues), or waits while the
   * fleet said all are held. A group's learned quota is spread as a rate instead ({@link #claimed}).
   */
  private boolean quotaPlaced(HostQueue queue, Call<?> head, long now) {
    Node node = queue.node;
    LearnedQuota quota = node.quota;
    FleetPlace place = head.place;
    if (quota == null || place != null && place.quotaAnswered()) {
      return true;
    }
    FleetState claims = node.fleet();
    if (!probePlaced(node, claims, quota, now)) {
      return false;
    }
    if (claims.quotaClaiming || claims.quotaFull) {
      return false;
    }
    claims.quotaClaiming = true;
    if (place == null) {
      place = head.place = new FleetPlace();
    }
    long number = place.quotaNumber = ++places;
    FleetPlace claimed = place;
    long window = quota.window;
    fleet.claimPlace(quotaKey(node), number, quota.permits, window,
        held -> quotaPlaceAnswered(node, head, claimed, number, held, window / quota.permits));
    return false;
  }

  /**
   * Whether the head of {@code node}'s queue may start as the quota's window probe, where it would
   * be one: each process counts the same windows and would probe each one itself, so that where
   * the window has not begun every process's probe is refused. The fleet's one place of the host's
   * probe goes to one process; the others wait to hear its answer (accepted, the window is theirs
   * too; refused, their rules plan the next probe), or a while. Held until this process's probe
   * is answered, no start of it is a probe, or none of its calls waits at the host ({@link #left}),
   * or until its lease ends.
   */
  private boolean probePlaced(Node node, FleetState claims, LearnedQuota quota, long now) {
    if (!quota.wouldProbe(now)) {
      letGoProbe(node);
      return true;
    }
    if (claims.probeHeld) {
      return true;
    }
    if (claims.probeClaiming || claims.probeElsewhere) {
      return false;
    }
    claims.probeClaiming = true;
    long number = claims.probeNumber = ++places;
    long lease = Math.min(quota.window, PROBE_LEASE);
    fleet.claimPlace(probeKey(node), number, 1, lease, held -> probeAnswered(node, number, held, lease));
    return false;
  }

  /** The fleet answered the claim of the host's probe place numbered {@code number}. */
  private void probeAnswered(Node node, long number, long held, long lease) {
    engine.underLock(() -> {
      FleetState claims = node.fleet();
      claims.probeClaiming = false;
      if (claims.probeNumber != number) {
        if (held > 0) {
          fleet.releasePlace(probeKey(node), number);
        }
        return;
      }
      if (held > 0) {
        claims.probeHeld = true;
        left(node); // the call that claimed it may have gone meanwhile
      } else if (held < 0) {
        // The fleet could not be asked (SPEC S4): this process probes alone, holding no place.
        claims.probeHeld = true;
        claims.probeNumber = 0;
      } else {
        claims.probeNumber = 0;
        claims.probeElsewhere = true;
        timer.schedule(() -> probeMayBeFree(node), Math.max(1_000_000L, Math.min(PLACES_FULL_RETRY, lease)));
      }
      engine.lookAgain(node, clock.nanoTime());
    });
  }

  private void probeMayBeFree(Node node) {
    engine.underLock(() -> {
      FleetState claims = node.fleet;
      if (claims != null && claims.probeElsewhere) {
        claims.probeElsewhere = false;
        engine.lookAgain(node, clock.nanoTime());
      }
    });
  }

  /**
   * After an answer of {@code node}, this process's or another's: the probe place is let go once
   * no start of this process is a probe, and another's probe answered lets this process claim it.
   */
  void probeSettled(Node node, long now) {
    FleetState claims = node.fleet;
    if (claims == null) {
      return;
    }
    claims.probeElsewhere = false;
    LearnedQuota quota = node.quota;
    if (quota == null || !quota.probing() && !quota.wouldProbe(now)) {
      letGoProbe(node);
    }
  }

  /**
   * A call of {@code node} left for good, answered, failed or cancelled: where no call of this
   * process waits at the host any more and none of its probes is out, the host's probe place goes
   * back. A call cancelled while it held the place for its start, the host's last, would otherwise
   * hold it to its lease's end, and every other process's probe back as long.
   */
  void left(Node node) {
    FleetState claims = node.fleet;
    if (claims == null || !claims.probeHeld || waits(node)) {
      return;
    }
    LearnedQuota quota = node.quota;
    if (quota == null || !quota.probing()) {
      letGoProbe(node);
    }
  }

  /** Whether a call of this process waits at {@code node}, a host. */
  private static boolean waits(Node node) {
    for (int i = 0; i < node.queueCount(); i++) {
      if (node.queueAt(i).live > 0) {
        return true;
      }
    }
    return false;
  }

  private void letGoProbe(Node node) {
    FleetState claims = node.fleet;
    if (claims != null && claims.probeHeld) {
      claims.probeHeld = false;
      if (claims.probeNumber > 0) {
        fleet.releasePlace(probeKey(node), claims.probeNumber);
      }
      claims.probeNumber = 0;
    }
  }

  /** The key of the fleet's one place of a host's window probe: its own key and {@code /probe}, which no host key has. */
  private static String probeKey(Node node) {
    return node.key + "/probe";
  }

  /** How long at most a process holds the fleet's place of a host's probe, if it never lets it go. */
  private static final long PROBE_LEASE = 30_000_000_000L;

  /** The fleet answered the claim of the quota's place numbered {@code number} for {@code call}. */
  private void quotaPlaceAnswered(Node node, Call<?> call, FleetPlace place, long number, long held, long spacing) {
    engine.underLock(() -> {
      FleetState claims = node.fleet();
      claims.quotaClaiming = false;
      boolean claiming = call.place == place && place.quotaNumber == number;
      if (held == 0) {
        if (claiming) {
          place.quotaNumber = 0;
        }
        claims.quotaFull = true;
        // The places end by their leases, which the fleet does not tell: ask again within a start's share of the window.
        timer.schedule(() -> mayBeFree(node, true), Math.max(1_000_000L, Math.min(PLACES_FULL_RETRY, spacing)));
      } else if (!claiming || call.state != Call.State.WAITING) {
        if (held > 0) {
          fleet.releasePlace(quotaKey(node), number); // the call ended meanwhile
        }
      } else if (held > 0) {
        place.quotaHeld = true;
      } else {
        place.quotaUnclaimed = true;
      }
      engine.lookAgain(node, clock.nanoTime());
      giveBackIfWaiting(call, place);
    });
  }

  /**
   * Releases the fleet's place of the quota {@code call} holds, if the host's window did not
   * count it: the attempt never started with it, or was refused. A start that was answered, or
   * may have reached the host, holds it until the fleet's lease ends it.
   */
  void letGoQuotaPlace(Call<?> call, boolean refused) {
    FleetPlace place = call.place;
    if (place != null && place.quotaHeld && (refused || !place.quotaUsed)) {
      Node node = call.queue.node;
      fleet.releasePlace(quotaKey(node), place.quotaNumber);
      if (node.fleet != null) {
        node.fleet.quotaFull = false;
      }
    }
    if (place != null && (refused || !place.quotaUsed)) {
      place.quotaHeld = false;
      place.quotaUnclaimed = false;
      place.quotaNumber = 0;
    }
  }

  /**
   * How long before its own pace lets the next start of {@code queue} go, as {@code limiter}
   * spaces it, the fleet is asked for it (SPEC S2). The fleet grants a start as the claim arrives
   * once its spacing has passed since the last it granted: a claim asked only as this process's
   * pace ends starts a round trip late, and a process that has a host's backlog alone would hold
   * it at its interval and a round trip. So while the queue's last claim was granted at its first
   * ask, the next is asked a round trip ahead, less an eighth of it (and one more where the host's
   * quota's place is claimed before it): a claim another process was told to make again (asked a
   * whole round trip ahead) arrives first, and takes the start. None
   * while the fleet cannot be asked, or does not space the host or group; at most a quarter of
   * the spacing. None either once the grant is held: the ask-ahead moves when the fleet is asked,
   * never when the start goes, which this process's own pace still holds (for a sixteenth of the
   * spacing at most, {@link #claimed}).
   */
  long askAhead(HostQueue queue, Limiter limiter) {
    StartClaim claim = queue.startClaim;
    FleetState state = limiter.node.fleet;
    if (claim == null || !claim.unrivalled || claim.claimed
        || state == null || state.unclaimed || state.startedAlone) {
      return 0;
    }
    long spacing = spacing(limiter);
    return spacing <= 0 ? 0 : Math.min(claimLead(queue) - fleetRoundTrip / 8, spacing / 4);
  }

  /**
   * How long before its start is to be granted the head of {@code queue} begins to ask for it: the
   * fleet's last round trip, and one more where the host's quota's place is claimed first
   * ({@link #readiness}).
   */
  private long claimLead(HostQueue queue) {
    return queue.node.quota != null ? 2 * fleetRoundTrip : fleetRoundTrip;
  }

  /**
   * How far apart the fleet spaces the starts of {@code limiter}'s host or group (SPEC S2): its
   * learned interval, or the limiter's rate (its permits spread over its window: a rate of 2 a
   * second is one start each 500 ms for the fleet, without the burst one process may make of it),
   * or a group's learned quota spread over its window; 0 when the fleet does not space them.
   */
  private static long spacing(Limiter limiter) {
    return spacing(limiter, limiter.node.state.interval());
  }

  /** {@link #spacing(Limiter)}, with {@code learned} for the node's learned interval. */
  private static long spacing(Limiter limiter, long learned) {
    Node node = limiter.node;
    long interval = learned;
    if (limiter.rate != null) {
      interval = Math.max(interval, limiter.rate.spacing());
    }
    if (node.quota != null && node.group) { // counts this process's starts only: the fleet spreads them instead
      interval = Math.max(interval, node.quota.window / node.quota.permits);
    }
    return interval;
  }

  /**
   * Whether the head of {@code queue} holds the fleet's grant to start at {@code now} (SPEC S2),
   * when its host or any of its groups is paced ({@link #spacing}); else claims it of all of them
   * at once, or waits until the fleet said to ask again. One claim for all, because one at a time
   * two processes could each hold one (a host's start, its group's) and wait for the other's for
   * ever. The fleet grants a claim only for at once, and spaces the next from the grant, so a
   * grant is used at once or not at all: one that finds the start held back by this engine's own
   * pace (the fleet answered sooner than its last round trip, the claim asked ahead of the pace,
   * {@link #askAhead}; or another queue of the host started meanwhile) is let go after a sixteenth
   * of the shortest spacing, and claimed again; one whose head lacks a place is let go at once
   * ({@link #forgone}). Its places in flight the head holds already, and its quota's place is
   * claimed just before its start ({@link #readiness}).
   */
  private long claimed(HostQueue queue, Call<?> head, long now) {
    List<String> keys = null;
    long[] intervals = null;
    Limiter[] limiters = null;
    long shortest = Long.MAX_VALUE;
    int paced = 0;
    for (int i = 0; i <= queue.gates.length; i++) {
      Limiter limiter = i < queue.gates.length ? queue.gates[i] : queue;
      long interval = spacing(limiter);
      if (interval <= 0) {
        continue;
      }
      if (keys == null || intervals == null || limiters == null) {
        keys = new ArrayList<>(queue.gates.length + 1);
        intervals = new long[queue.gates.length + 1];
        limiters = new Limiter[queue.gates.length + 1];
      }
      keys.add(limiter.node.key);
      limiters[paced] = limiter;
      intervals[paced++] = interval;
      shortest = Math.min(shortest, interval);
    }
    if (keys == null || intervals == null || limiters == null) {
      return READY;
    }
    Node[] nodes = new Node[paced];
    for (int i = 0; i < paced; i++) {
      nodes[i] = limiters[i].node;
    }
    StartClaim claim = queue.startClaim;
    if (claim == null) {
      claim = queue.startClaim = new StartClaim();
    }
    if (claim.claiming) {
      return BLOCKED; // the claim's answer looks at the queue again
    }
    if (claim.claimed) {
      if (now - claim.claimedAt <= shortest / 16) {
        return READY;
      }
      claim.claimed = false;
    } else if (claim.askAgain) {
      if (claim.askAgainAt - now > 0) {
        return claim.askAgainAt - now;
      }
      claim.askAgain = false;
    } else if (claim.alone) {
      long wait = shareWait(limiters, paced, now);
      if (wait > 0) {
        return wait;
      }
      if (!quotaPlaced(queue, head, now)) {
        return BLOCKED;
      }
      claim.alone = false;
      granted(claim, nodes, paced, now);
      for (Node node : nodes) {
        node.fleet().startedAlone = true;
      }
      return READY;
    }
    long sinceAlone = sinceAloneWait(nodes, intervals, paced, now);
    if (sinceAlone > 0) {
      return sinceAlone;
    }
    if (!quotaPlaced(queue, head, now)) {
      return BLOCKED; // the answer looks again, and claims the start
    }
    claim.claiming = true;
    long asked = now;
    StartClaim claiming = claim;
    long[] spacings = Arrays.copyOf(intervals, paced);
    fleet.claimStart(keys, spacings, delay -> startClaimed(queue, claiming, nodes, delay, asked));
    return BLOCKED;
  }

  /**
   * How long this process waits, from {@code now}, before it starts alone one of the {@code paced}
   * {@code limiters}' nodes while the fleet cannot be asked (SPEC S4): its share of the fleet's
   * spacing, each node's times the processes the fleet last counted, from this process's last
   * start of it (the longest of the nodes' waits); 0 when it may start now. A host paced at 2 a
   * second among 3 processes: one start each 1.5 s from this one, as the fleet together goes on
   * at 2 a second. The fleet's spacing is the one the node had as the fleet was lost
   * ({@link FleetState#atLoss}): what the rule learns alone since, from this process's
   * answers at its share, is its share's pace already, and paces this engine's starts by itself.
   */
  private long shareWait(Limiter[] limiters, int paced, long now) {
    long processes = Math.max(1, fleet.processes());
    long wait = 0;
    for (int i = 0; i < paced; i++) {
      FleetState state = limiters[i].node.fleet;
      if (state != null && state.startGranted) {
        long spacing = spacing(limiters[i], state.atLoss.intervalNanos());
        long share = spacing > Long.MAX_VALUE / processes ? Decisions.MAX_INTERVAL : spacing * processes;
        state.share = share;
        wait = Math.max(wait, share - (now - state.startGrantedAt));
      }
    }
    return wait;
  }

  /**
   * How long the next claim of {@code nodes}' starts waits, from {@code now}, after this process
   * started one alone: at least each node's spacing from that start. The fleet does not know of
   * starts made alone, and would grant the next at once when it answers again: two starts
   * together, where the fleet's pace allows one.
   */
  private static long sinceAloneWait(Node[] nodes, long[] intervals, int paced, long now) {
    long wait = 0;
    for (int i = 0; i < paced; i++) {
      FleetState state = nodes[i].fleet;
      if (state != null && state.startedAlone) {
        wait = Math.max(wait, intervals[i] - (now - state.startGrantedAt));
      }
    }
    return wait;
  }

  /** {@code claim} may start at {@code now}, granted by the fleet or by this process's share: each node's last start. */
  private static void granted(StartClaim claim, Node[] nodes, int paced, long now) {
    claim.claimed = true;
    claim.claimedAt = now;
    for (int i = 0; i < paced; i++) {
      FleetState state = nodes[i].fleet();
      state.startGranted = true;
      state.startGrantedAt = now;
    }
  }

  /**
   * The fleet answered {@code queue}'s claim of {@code nodes}' starts: granted (0); ask again
   * {@code delay} from now; or {@link Fleet#UNCLAIMED}, and this process starts alone at its share
   * of the spacing ({@link #shareWait}). The first answer after an unclaimed one is a rejoin
   * ({@link #rejoin}).
   */
  private void startClaimed(HostQueue queue, StartClaim claim, Node[] nodes, long delay, long asked) {
    engine.underLock(() -> {
      claim.claiming = false;
      long now = clock.nanoTime();
      fleetRoundTrip = now - asked;
      if (delay == Fleet.UNCLAIMED) {
        claim.alone = true;
        for (Node node : nodes) {
          FleetState state = node.fleet();
          if (!state.unclaimed && !state.startedAlone && !state.unread) { // the fleet's pace, not one learned alone since
            Fleet.Kept held = FleetMemory.keptOf(node, now);
            state.atLoss = new Fleet.Kept(held.intervalNanos(), held.inFlightLimit(), held.quotaPermits(),
                held.quotaWindowNanos(), 0, 0);
          }
          state.unclaimed = true;
        }
        engine.lookAgain(queue, now); // starts at the share's time: claimed() waits for it
        return;
      }
      for (Node node : nodes) {
        rejoin(node, now);
      }
      if (delay <= 0) {
        claim.unrivalled = !claim.rivalled;
        claim.rivalled = false;
        granted(claim, nodes, nodes.length, now);
        for (Node node : nodes) {
          node.fleet().startedAlone = false;
        }
      } else {
        // The fleet looked half a round trip ago, and the next claim takes half a round trip to
        // arrive: asked a round trip early, it arrives as the start frees, ahead of a process whose
        // own pace ends then (which would else win every time, the two paced alike). A round trip
        // earlier still where the quota's place, given back now, is claimed again before it.
        claim.askAgain = true;
        claim.askAgainAt = now + Math.max(0, delay - claimLead(queue));
        claim.rivalled = true;
      }
      engine.lookAgain(queue, now); // unless it was let go meanwhile
      Call<?> head = queue.head();
      if (head != null && head.place != null) {
        giveBackIfWaiting(head, head.place); // places kept while this claim was asked, the start not made
      }
    });
  }

  /**
   * The fleet answers again for {@code node} after it could not be asked (a claim answered, or a
   * lesson heard): this process rejoins it, and reads the node's pace again from what the fleet
   * keeps ({@link FleetMemory#rejoined}), so that processes which paced alone meanwhile go on at
   * one pace. For a share after it ({@link FleetState#rejoinSettlesAt}) bare refusals teach the
   * node's interval nothing: once per loss, from its first answer, however long the read takes. A
   * read the fleet could not answer is asked again here, backed off
   * ({@link FleetState#unread}).
   */
  private void rejoin(Node node, long now) {
    FleetState state = node.fleet;
    if (state == null) {
      return;
    }
    FleetMemory memory = this.memory;
    if (state.unclaimed) {
      state.unclaimed = false;
      state.rejoinSettlesAt = now + state.share;
      state.rejoinSettling = state.share > 0;
      if (memory != null) {
        state.unread = true;
        state.readBackoff = 0;
        state.readAgainAt = now;
      }
    }
    if (memory != null && state.unread) {
      memory.rejoined(node, now);
    }
  }
}

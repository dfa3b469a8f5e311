package io.hostpace.spi;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * What the processes of a fleet share so that together they are as polite to a host as one
 * (SPEC S2): what each host's answers taught, and the spacing of the host's starts; and, for a
 * fleet that {@linkplain #keeps keeps} it, what each host taught for a process that meets the
 * host later (SPEC S3).
 *
 * <p>An engine built with a fleet ({@code Hostpace.Builder.fleet}) tells it a {@link Lesson} for
 * every answer or refusal a host or group gives, and hears the lessons of the other processes:
 * its learning rule learns from the fleet's answers as if they were its own, so every process
 * learns the rate the host gives the fleet, not the share it happened to get. While a host is
 * paced (a learned interval, a configured rate, a group's learned quota), each start first claims it from
 * the fleet: a host paced at one a second gets one a second from the fleet, however many
 * processes share it. While a host has an in-flight limit, learned (a gate that holds so many at
 * once) or given it by key (not the limit for every host, which is each process's own), each
 * start first claims one of the fleet's places of it, and lets it go with its answer (and so for
 * each of its groups that has an in-flight limit); a claim that finds them all held waits in the
 * fleet for one, where the fleet can, and is granted it in its turn as one is let go;
 * while it has a learned quota (so many starts in a fixed window), each start first claims one
 * of the quota's places, which the fleet holds for a window.
 *
 * <p>A process is one {@code Fleet} object: each engine needs its own (a fleet does not tell a
 * process its own lessons, so two engines sharing one would not hear each other).
 *
 * <p>Every method is called under the engine's lock and must not block: an implementation sends
 * and answers on threads of its own (Redis's client, a virtual timer), and never calls back from
 * within the call that asked. A lesson may be lost; a claim that cannot be made answers
 * {@link #UNCLAIMED}, and the engine then paces the start by its own reckoning alone. An
 * implementation catches its own failures, as {@code io.hostpace.redis.RedisFleet} does with
 * Redis's, and logs them ({@link FailureLog}). What a method throws all the same the engine
 * catches and logs at {@code WARNING} (SPEC L2), and goes on as with a fleet that could not be
 * asked: a lesson, keep, announcement or release thrown is lost; a claim, recall or spend thrown
 * is answered {@link #UNCLAIMED}, null or {@link Spent#UNCLAIMED}, later, on the engine's timer
 * (an answer the fleet gave before it threw stands alone); {@link #processes} thrown is the
 * count it last returned, {@link #keeps} thrown is false. {@link #listen} is asked as the engine
 * is built: what it throws fails the build, the fleet named.
 */
public interface Fleet {

  /** What {@link #claimStart} answers when the fleet could not be asked. */
  long UNCLAIMED = -1;

  /**
   * What a claim of a place that waits ({@link #claimPlace(String, long, int, LongConsumer, LongConsumer)})
   * answers when all the places are held and the claim now waits for one in the fleet.
   */
  long WAITING = -2;

  /**
   * What one answer of a host taught: whether it was a refusal, its {@code Retry-After} if it had
   * one, and how long after its start it came. Times are durations, not instants, so processes
   * need not share a clock.
   *
   * @param key the host's or group's key ({@code example.org}, {@code *.example.org})
   * @param refused whether the answer was a refusal (SPEC R1)
   * @param retryAfterNanos the pause the refusal asked for, or -1 for none
   * @param tookNanos how long after the request's start the answer came
   * @param inFlightAtStart how many of the host's requests were in flight when it started, itself
   *     included, as far as its process knows: for an answer, its process's own count (the host
   *     held at least so many at once); for a refusal, the fleet's count of places held with its
   *     own ({@link #claimPlace}; the host held at most so many: the count also holds places
   *     granted to requests that had not started, or just ended), 0 when it held none; 0 for a
   *     group's lesson
   */
  record Lesson(String key, boolean refused, long retryAfterNanos, long tookNanos, int inFlightAtStart) {
    /** Checks the fields. */
    public Lesson {
      if (key == null || key.isEmpty()) {
        throw new IllegalArgumentException("a lesson needs a host's key");
      }
      if (retryAfterNanos < -1) {
        throw new IllegalArgumentException("retryAfterNanos must be -1 (none) or at least 0, was " + retryAfterNanos);
      }
      if (tookNanos < 0) {
        throw new IllegalArgumentException("tookNanos must be at least 0, was " + tookNanos);
      }
      if (inFlightAtStart < 0) {
        throw new IllegalArgumentException("inFlightAtStart must be at least 0, was " + inFlightAtStart);
      }
    }
  }

  /** Tells the fleet's other processes what an answer taught; must not block. */
  void tell(Lesson lesson);

  /**
   * What the fleet keeps of a host or group (SPEC S3): what its answers taught the process that
   * last kept it, for a process that meets the host after (a late joiner, a restarted worker) to
   * start from. Durations, not instants, so processes need not share a clock.
   *
   * @param intervalNanos the learned interval between starts, 0 for none
   * @param inFlightLimit the learned in-flight limit, 0 for none
   * @param quotaPermits the learned quota's starts a window, 0 for none
   * @param quotaWindowNanos the learned quota's window, 0 when there is no quota
   * @param quotaFullForNanos how long the quota's current window stays full, every start of it
   *     spent (0 when starts may go now, or there is no quota)
   * @param pauseLeftNanos how much is left of the host's pause, 0 for none
   * @param announcedLimit the starts a window the host announces (SPEC R8), 0 for none
   * @param announcedWindowNanos the window of the announced quota, as long as its longest announced
   *     reset, 0 when there is none
   * @param announcedResetNanos how long until the announced quota's current window resets (its
   *     next windows following one after the other), at most its window; 0 when there is none
   */
  record Kept(long intervalNanos, int inFlightLimit, int quotaPermits, long quotaWindowNanos, long quotaFullForNanos,
      long pauseLeftNanos, long announcedLimit, long announcedWindowNanos, long announcedResetNanos) {
    /** What a host that taught nothing leaves: kept as such, it forgets what was kept before. */
    public static final Kept NOTHING = new Kept(0, 0, 0, 0, 0, 0);

    /** Checks the fields. */
    public Kept {
      if (intervalNanos < 0 || inFlightLimit < 0 || quotaPermits < 0 || quotaWindowNanos < 0 || quotaFullForNanos < 0
          || pauseLeftNanos < 0) {
        throw new IllegalArgumentException("what a fleet keeps is never negative: interval " + intervalNanos
            + " ns, in-flight limit " + inFlightLimit + ", quota " + quotaPermits + " a " + quotaWindowNanos
            + " ns window full for " + quotaFullForNanos + " ns, pause left " + pauseLeftNanos + " ns");
      }
      if ((quotaPermits == 0) != (quotaWindowNanos == 0)) {
        throw new IllegalArgumentException("a kept quota needs both its permits and its window: " + quotaPermits
            + " a " + quotaWindowNanos + " ns window");
      }
      if (quotaFullForNanos > quotaWindowNanos) {
        throw new IllegalArgumentException("a kept quota's window is full for at most the window: " + quotaFullForNanos
            + " ns of a " + quotaWindowNanos + " ns window");
      }
      if (announcedLimit < 0 || announcedWindowNanos < 0 || announcedResetNanos < 0
          || (announcedLimit == 0) != (announcedWindowNanos == 0) || announcedResetNanos > announcedWindowNanos) {
        throw new IllegalArgumentException("a kept announced quota needs its starts and its window, and resets within"
            + " the window: " + announcedLimit + " a " + announcedWindowNanos + " ns window resetting in "
            + announcedResetNanos + " ns");
      }
    }

    /** What a host taught but an announced quota: none announced. */
    public Kept(long intervalNanos, int inFlightLimit, int quotaPermits, long quotaWindowNanos, long quotaFullForNanos,
        long pauseLeftNanos) {
      this(intervalNanos, inFlightLimit, quotaPermits, quotaWindowNanos, quotaFullForNanos, pauseLeftNanos, 0, 0, 0);
    }

    /** Whether nothing is kept: no interval, in-flight limit, quota, pause or announced quota. */
    public boolean nothing() {
      return intervalNanos == 0 && inFlightLimit == 0 && quotaPermits == 0 && pauseLeftNanos == 0 && announcedLimit == 0;
    }

    /**
     * The same, {@code nanos} later: what is left of the pause and of the quota's full window then,
     * and when the announced quota's window of then resets.
     */
    public Kept after(long nanos) {
      long later = Math.max(0, nanos);
      long reset = announcedResetNanos - later;
      if (announcedWindowNanos > 0 && reset <= 0) {
        reset = announcedWindowNanos - Math.floorMod(-reset, announcedWindowNanos); // its next windows
      }
      return new Kept(intervalNanos, inFlightLimit, quotaPermits, quotaWindowNanos,
          Math.max(0, quotaFullForNanos - later), Math.max(0, pauseLeftNanos - later),
          announcedLimit, announcedWindowNanos, Math.max(0, reset));
    }
  }

  /**
   * How many processes the fleet last saw alive, this one included: never below 1, and 1 when it
   * does not know (the default). While a claim comes back {@link #UNCLAIMED} (the fleet cannot be
   * asked), the engine takes this as how many share the host, and paces its own starts at its
   * share of the fleet's spacing (SPEC S4): a host paced at 2 a second, among 3 processes, one
   * start each 1.5 s from each; and holds at most its share of a host's or group's places in
   * flight ({@link #claimPlace}), the limit over this count rounded up, at least one: 6 places
   * among 3 processes, 2 from each. So a fleet that cannot be reached keeps the last count it read.
   * Called under the engine's lock: must not block.
   */
  default int processes() {
    return 1;
  }

  /**
   * Whether this fleet keeps what hosts taught ({@link #keep}, {@link #recall}): then an engine
   * reads what it keeps of a host before the host's first start, and keeps what the host's answers
   * teach it. False by default: a fleet of messages alone.
   */
  default boolean keeps() {
    return false;
  }

  /**
   * Keeps {@code kept} as what {@code key}'s answers taught, for {@code keepForNanos} unless kept
   * again (the engine keeps again what still holds, well within that); {@link Kept#NOTHING}
   * forgets it. The last kept stands. Called only when {@link #keeps()}; must not block, and may
   * be lost.
   */
  default void keep(String key, Kept kept, long keepForNanos) {}

  /**
   * Reads what the fleet keeps of {@code key}; the answer comes to {@code then}, later, on a thread
   * of the fleet's, exactly once: what is kept (its pause left as of the fleet's look), or null when
   * nothing is, or the fleet could not be asked. Called only when {@link #keeps()}.
   */
  default void recall(String key, Consumer<@Nullable Kept> then) {
    throw new UnsupportedOperationException(getClass().getName() + " keeps nothing: recall needs keeps()");
  }

  /**
   * Calls {@code listener} with every lesson the fleet's other processes tell (not those of this
   * process), on a thread of the fleet's, until the returned registration is closed.
   */
  Listening listen(Consumer<Lesson> listener);

  /**
   * Claims a start for this process, now, of every one of {@code keys} at once (a host and the
   * groups it is in that are paced): granted when, for each key, no process was granted one in
   * the last of the shortest interval claimed of it lately (this claim's {@code intervalNanos}
   * among them; one unclaimed for one and a half of itself is forgotten), or of its own interval
   * when that is longer by more than a sixteenth of itself, and then this one is recorded as each
   * key's last start; else no start is recorded, and the claims that must wait are told the same
   * moment, so that a process paced a little slower than the others gets its turns. The answer
   * comes to {@code then}, later, on a thread of the fleet's:
   * 0 for granted, else how many nanoseconds after the fleet looked a claim may be granted (the
   * longest of the keys' waits; the process claims again then), or {@link #UNCLAIMED}.
   *
   * <p>All the keys at once, because one at a time two processes could each hold the start of one
   * and wait for the other's for ever (a host's and its group's).
   *
   * <p>A start is granted for at once, not reserved for later: a reservation would be spent
   * whatever happened meanwhile, and after a refusal every process's reservations at the old pace
   * go at the old pace (SPEC R5 wants the new one). The price is a round trip per start, so a
   * fleet goes a little under a paced host's rate, the less the nearer its Redis (BENCHMARKS.md
   * has the figures).
   *
   * @param keys the keys, at least one, none empty
   * @param intervalNanos each key's interval, as many as there are keys, none negative
   */
  void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then);

  /**
   * What a spend of a host's announced starts got ({@link #spendAnnounced}): granted, with the
   * fleet's count of the host's spends so far, this one included ({@code number}, 0 when the fleet
   * could not be asked or counts none), or none left until the announcement's reset,
   * {@code waitNanos} from the fleet's look.
   */
  record Spent(long number, long waitNanos) {
    /** What a spend gets when the fleet could not be asked: granted, by the engine's own count. */
    public static final Spent UNCLAIMED = new Spent(0, 0);

    /** Checks the fields. */
    public Spent {
      if (number < 0 || waitNanos < 0) {
        throw new IllegalArgumentException("a spend's number and wait are never negative: " + number + ", " + waitNanos);
      }
    }

    /** Whether the start may go. */
    public boolean granted() {
      return waitNanos == 0;
    }
  }

  /**
   * Reads what the fleet keeps of {@code key}, as {@link #recall} does, having first kept
   * {@code kept} there (as {@link #keep}, for {@code keepForNanos}) if nothing was: the answer
   * comes to {@code then}, later, on a thread of the fleet's, exactly once: what the fleet keeps
   * now ({@code kept} itself when nothing was), or null when the fleet could not be asked. An
   * engine asks it of a host as it rejoins the fleet after the fleet could not be asked (SPEC
   * S4), offering what it held of the host as the fleet was lost, so that the processes which
   * paced alone meanwhile all go on from one pace: the first to rejoin keeps its own, the others
   * read it. A fleet that can (Redis, in one script) reads and keeps at once, so two processes that
   * rejoin together read the same; the default recalls, then keeps, and two processes that rejoin
   * within one round trip of each other may each read their own. Called only when {@link #keeps()}.
   */
  default void recallOrKeep(String key, Kept kept, long keepForNanos, Consumer<@Nullable Kept> then) {
    recall(key, read -> {
      if (read == null || read.nothing()) {
        keep(key, kept, keepForNanos);
        then.accept(kept);
      } else {
        then.accept(read);
      }
    });
  }

  /**
   * Tells the fleet that {@code key}'s host announced {@code remaining} starts until its reset,
   * {@code resetNanos} from now (SPEC R8), so that the fleet spends them together (SPEC S3). The
   * announcing attempt started after the fleet's {@code spentBefore}-th spend of the host (its own,
   * or the last this process was told; 0 for none): the host's count did not hold the spends after
   * it, so the fleet takes {@code remaining} less those, when no attempt started later told it
   * otherwise; an announcement of unknown order ({@code spentBefore} 0) only ever lowers what is
   * left. The announcement ends at the reset, unless the host said it takes {@code limit} starts a
   * window of {@code windowNanos} (0 and 0 when it did not): then at each reset the fleet's count
   * rolls into the next window, {@code limit} left until a window later, and what attempts started
   * before the roll announce says nothing of it. Called only when {@link #keeps()}; must not block,
   * and may be lost.
   */
  default void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {}

  /**
   * Spends one of the starts {@code key}'s host announced (SPEC R8, S3), for a start now; the answer
   * comes to {@code then}, later, on a thread of the fleet's, exactly once: granted (one spent, or no
   * announcement holds), or none left until the reset, or {@link Spent#UNCLAIMED}. Called only when
   * {@link #keeps()}.
   */
  default void spendAnnounced(String key, Consumer<Spent> then) {
    throw new UnsupportedOperationException(getClass().getName() + " keeps nothing: spendAnnounced needs keeps()");
  }

  /** Claims a start of {@code key} alone: {@link #claimStart(List, long[], LongConsumer)} of one key. */
  default void claimStart(String key, long intervalNanos, LongConsumer then) {
    claimStart(List.of(key), new long[] {intervalNanos}, then);
  }

  /**
   * Claims, for this process's request numbered {@code place}, one of the {@code limit} places of
   * {@code key} that the fleet's processes hold at once. The answer comes to {@code then}, later,
   * on a thread of the fleet's: how many places are held with this one (1 to {@code limit}); or 0
   * when all are held, and nothing was claimed (the engine claims again later); or
   * {@link #UNCLAIMED}.
   *
   * <p>The engine claims places of two kinds. With {@code leaseNanos} 0, a place of a host's or a
   * group's requests in flight (a host that holds so many at a time, as learned from its refusals,
   * or an in-flight limit given the host or group by key; the key is the host's or the group's):
   * held until {@link #releasePlace released}, or until a lease of the
   * fleet's own runs out (a process that dies holds nothing for ever). With {@code leaseNanos}
   * above 0, a place of a host's starts in a window of a learned quota (a host that counts so
   * many starts in fixed windows; the key is the host's followed by {@code "/quota"}): held for
   * that long after it was granted, unless released before (a refused start used none of the
   * quota), so the fleet's processes together start no more than {@code limit} in any span of
   * that length, and no more than the host counts in any of its windows; or, {@code limit} 1, the
   * one place of the probe that begins such a window (the key is the host's followed by
   * {@code "/probe"}), so that one process probes it and the others hear its answer, held until
   * released or for that long.
   *
   * @param leaseNanos 0 for a place held until released; else how long after its grant it ends
   */
  void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then);

  /**
   * Claims, as {@link #claimPlace(String, long, int, long, LongConsumer)} does a place held until
   * released ({@code leaseNanos} 0), one of the {@code limit} places of {@code key}, but waits for
   * one in the fleet when all are held, instead of leaving the process to ask again. {@code then}
   * hears, later, on a thread of the fleet's, exactly once: how many places are held with this one
   * (1 to {@code limit}); {@link #WAITING}, when all are held and the claim now waits in the fleet,
   * behind those of the fleet's processes that waited before it; 0, when all are held and
   * nothing was recorded (a fleet that keeps no waiters: the default, which claims as the other
   * {@code claimPlace} does); or {@link #UNCLAIMED}.
   *
   * <p>After {@link #WAITING}, when a place is let go (released, or its lease ran out, as the fleet
   * finds at its next claim or release), the fleet grants it to the claim that waited longest of
   * those whose process still lives, and tells that process alone: {@code granted} hears, later,
   * on a thread of the fleet's, at most once and only after {@code then} heard {@link #WAITING},
   * how many places are held with it. From then the process holds it, as if {@code then} had
   * heard that count: it lets it go with {@link #releasePlace}, at once if no request of it wants
   * it any more. A release of a place that waits withdraws the claim. A waiting claim whose process
   * dies, or does not renew it within the fleet's lease, is passed over.
   *
   * <p>The notice may be lost (a connection dropped, a fleet that forgot its waiters): a process
   * that waited a while without hearing {@code granted} claims the same {@code place} again, and
   * is answered the count held if the place was granted meanwhile, or {@link #WAITING} with its turn
   * kept if it still waits. A claim again of a place that waits replaces the earlier claim: only
   * the later one's {@code granted} may be told.
   *
   * @param then hears the claim's answer
   * @param granted hears the count held with the place, if it is granted after {@link #WAITING}
   */
  default void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
    claimPlace(key, place, limit, 0, then);
  }

  /**
   * Releases the place {@code place} of {@code key} that this process holds, if it does, or
   * withdraws its claim of it if the claim waits; must not block.
   */
  void releasePlace(String key, long place);

  /** A listener's registration with the fleet: closing it stops the listener. */
  interface Listening extends AutoCloseable {
    /** Stops the listener; closing again does nothing. */
    @Override
    void close();
  }
}

package io.hostpace;

/**
 * The quota a host last announced (SPEC R8), as a budget of starts: so many remained when the
 * attempt that started as the host's {@code at}-th was answered, until {@code resetAt}. The
 * latest-started attempt's word stands, less the host's starts since it; with none left, the host
 * starts nothing until the reset.
 *
 * <p>A host that also announced how many it takes a window ({@code X-RateLimit-Limit}) is known
 * past its reset: the budget rolls into the next window, with all of them left until a window
 * later (the window being the longest reset it announced, at most the real one), so that the
 * requests that waited for the reset are not all started at once before its first answer says
 * anew. Words of attempts started before the roll are of the window that ended, and say nothing.
 *
 * <p>Example: the host's 10th start is answered at 5 s with {@code remaining=3, reset=30}: the
 * budget is 3 until 35 s. After its 13th start nothing more starts until 35 s; an answer to its
 * 9th start, arriving later, says nothing new; an answer to its 12th with {@code remaining=0}
 * pauses the host until its reset. Had it said {@code limit=10} too, at 35 s (after 13 starts)
 * the budget is 10 until 65 s, and the answer to the 13th start, late, says nothing of it.
 *
 * <p>A state machine fed the time and the host's count of starts; times are compared by
 * difference. Guarded by the engine's lock.
 */
final class AnnouncedBudget {

  /**
   * An idle host is held until its reset only while fewer than this remain (the default in flight,
   * SPEC P3): with more, the requests that come next cannot overrun it before their answers say
   * anew, and a crawler need not hold every host that announces plenty.
   */
  static final long FEW_REMAINING = 32;

  /** How many remained, -1 when no announcement holds. */
  private long remaining = -1;
  /** The host's count of starts at the announcing attempt's start, or at the roll into this window. */
  private long at;
  private long resetAt;
  /** Whether the budget rolled into this window with no word heard of it yet: {@code at}'s word is of the last. */
  private boolean rolled;
  /** The host's starts a window, as it announced them; 0 when it did not. */
  private long perWindow;
  /** The longest reset announced with {@code perWindow}: the window's length, or less. */
  private long window;

  /**
   * An answer to the attempt that started as the host's {@code startSeq}-th announced
   * {@code announced} remaining of {@code perWindow} a window (-1 when not said) until
   * {@code resetNanos} from {@code now}, the reset held to {@code limit} (SPEC R3).
   *
   * @return how long to pause the host: the time to the reset when nothing remains, else 0
   */
  long heard(long announced, long perWindow, long resetNanos, long startSeq, long now, long limit) {
    if (announced < 0 || startSeq < at || rolled && startSeq == at) {
      return 0; // announced nothing, or an older attempt's word
    }
    long reset = Math.min(resetNanos, limit);
    remaining = announced;
    at = startSeq;
    resetAt = now + reset;
    rolled = false;
    if (perWindow > 0) {
      this.perWindow = perWindow;
      window = Math.max(window, reset);
    }
    return announced == 0 && reset > 0 ? reset : 0;
  }

  /**
   * What a fleet keeps of the host (SPEC S3), for a budget that heard no word of its own:
   * {@code perWindow} starts a {@code window}, the current one resetting {@code resetNanos} from
   * {@code now} (0: a window begins now). All of them are left by this engine's count, after its
   * {@code starts}; the fleet's shared count says how many are left of them for the fleet.
   */
  void recalled(long perWindow, long window, long resetNanos, long starts, long now) {
    if (remaining >= 0 || perWindow <= 0 || window <= 0) {
      return; // its own word stands, or nothing to roll with
    }
    this.perWindow = perWindow;
    this.window = window;
    remaining = perWindow;
    at = starts;
    rolled = true;
    resetAt = now + (resetNanos > 0 ? Math.min(resetNanos, window) : window);
  }

  /**
   * Whether an announcement holds at {@code now}, after {@code starts} starts: before its reset;
   * or past it, rolled into the window of {@code now} when the host said how many it takes a
   * window. Else the budget ends (the next answers will say anew).
   */
  private boolean current(long now, long starts) {
    if (remaining < 0) {
      return false;
    }
    if (resetAt - now > 0) {
      return true;
    }
    if (perWindow <= 0 || window <= 0) {
      remaining = -1;
      return false;
    }
    resetAt += ((now - resetAt) / window + 1) * window;
    remaining = perWindow;
    at = starts;
    rolled = true;
    return true;
  }

  /**
   * Whether the budget holds the host's next start at {@code now}, after {@code starts} starts:
   * as many started since the announcement (or the roll into this window) as remained.
   */
  boolean holds(long now, long starts) {
    return current(now, starts) && remaining - (starts - at) <= 0;
  }

  /** When the announced quota resets; meaningful while the budget {@link #holds} or {@link #keepsIdle}. */
  long resetAt() {
    return resetAt;
  }

  /**
   * Whether an idle host must be kept until {@link #resetAt()}: few remain, and the reset is ahead.
   * An idle budget does not roll: an idle host is let go after the window it heard of.
   */
  boolean keepsIdle(long now, long starts) {
    return remaining >= 0 && resetAt - now > 0 && remaining - (starts - at) < FEW_REMAINING;
  }

  /**
   * Whether the host last announced fewer than {@link #FEW_REMAINING} left, its reset ahead (or
   * rolled into the window of {@code now}, after {@code starts} starts): a fleet's processes then
   * spend them together (SPEC S3), as each counts only its own starts.
   */
  boolean few(long now, long starts) {
    return current(now, starts) && remaining < FEW_REMAINING;
  }

  /** The host's starts a window, as it announced them; 0 when it did not. */
  long perWindow() {
    return perWindow;
  }

  /** The window's length, as far as the announced resets tell it; 0 when the host said no starts a window. */
  long window() {
    return perWindow > 0 ? window : 0;
  }

  /**
   * How long from {@code now} until the window the host announced resets, rolled on by whole
   * windows when past; 0 when it said no starts a window, or no announcement was heard.
   */
  long resetIn(long now) {
    if (perWindow <= 0 || window <= 0 || remaining < 0) {
      return 0;
    }
    long left = resetAt - now;
    return left > 0 ? left : window - Math.floorMod(-left, window);
  }

  /** Forgets the announcement (SPEC R7). */
  void forget() {
    remaining = -1;
    perWindow = 0;
    window = 0;
    rolled = false;
  }
}

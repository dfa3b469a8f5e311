package io.hostpace;

/**
 * The quota a host last announced (SPEC R8), as a budget of starts: so many remained when the
 * attempt that started as the host's {@code at}-th was answered, until {@code resetAt}. The
 * latest-started attempt's word stands, less the host's starts since it; with none left, the host
 * starts nothing until the reset.
 *
 * <p>Example: the host's 10th start is answered at 5 s with {@code remaining=3, reset=30}: the
 * budget is 3 until 35 s. After its 13th start nothing more starts until 35 s; an answer to its
 * 9th start, arriving later, says nothing new; an answer to its 12th with {@code remaining=0}
 * pauses the host until its reset.
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
  /** The host's count of starts at the announcing attempt's start. */
  private long at;
  private long resetAt;

  /**
   * An answer to the attempt that started as the host's {@code startSeq}-th announced
   * {@code announced} remaining until {@code resetNanos} from {@code now}, the reset held to
   * {@code limit} (SPEC R3).
   *
   * @return how long to pause the host: the time to the reset when nothing remains, else 0
   */
  long heard(long announced, long resetNanos, long startSeq, long now, long limit) {
    if (announced < 0 || startSeq < at) {
      return 0; // announced nothing, or an older attempt's word
    }
    long reset = Math.min(resetNanos, limit);
    remaining = announced;
    at = startSeq;
    resetAt = now + reset;
    return announced == 0 && reset > 0 ? reset : 0;
  }

  /**
   * Whether the budget holds the host's next start at {@code now}, after {@code starts} starts:
   * as many started since the announcement as remained. Past its reset the budget ends (the next
   * answers will say anew).
   */
  boolean holds(long now, long starts) {
    if (remaining < 0) {
      return false;
    }
    if (resetAt - now <= 0) {
      remaining = -1;
      return false;
    }
    return remaining - (starts - at) <= 0;
  }

  /** When the announced quota resets; meaningful while the budget {@link #holds} or {@link #keepsIdle}. */
  long resetAt() {
    return resetAt;
  }

  /** Whether an idle host must be kept until {@link #resetAt()}: few remain, and the reset is ahead. */
  boolean keepsIdle(long now, long starts) {
    return remaining >= 0 && resetAt - now > 0 && remaining - (starts - at) < FEW_REMAINING;
  }

  /**
   * Whether the host last announced fewer than {@link #FEW_REMAINING} left, its reset ahead: a
   * fleet's processes then spend them together (SPEC S3), as each counts only its own starts.
   */
  boolean few(long now) {
    return remaining >= 0 && remaining < FEW_REMAINING && resetAt - now > 0;
  }

  /** Forgets the announcement (SPEC R7). */
  void forget() {
    remaining = -1;
  }
}

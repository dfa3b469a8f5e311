package io.hostpace.rules;

/**
 * First contact with a host that refuses bare (SPEC R12): its interval narrowed between the gaps it
 * refused and the gaps it accepted, where the rule would otherwise guess by halving and cutting.
 *
 * <p>A token bucket with a burst of one accepts a request started at least its interval after the
 * last one it accepted, and refuses one started sooner. So a refused request started {@code g}
 * after the last accepted start says the interval is longer than {@code g} ({@link #lo}, the
 * longest such gap), and two accepted starts {@code g} apart say it is at most {@code g}
 * ({@link #hi}, the shortest). Until something is accepted the next interval is twice the longest
 * gap refused (and at least twice the one before); from then on the next gap lies between the two,
 * nearer {@code hi} ({@link #TOWARD_REFUSED}), and a refusal or an acceptance there narrows them;
 * once {@code hi} is within {@value #NARROW} times {@code lo} the host's rate is known to that, and
 * the rule goes on from {@code 1/hi} as from a measured rate.
 *
 * <p>Example, a host of one a second: accepted at 0 s, the opening's second request refused at
 * 0.05 s opens the bracket; the slow start's request at 0.30 s is refused ({@code lo} 0.30 s), so the next goes
 * 0.6 s on, at 0.90 s, refused ({@code lo} 0.90 s); the next 1.8 s on, at 2.70 s, is accepted
 * ({@code hi} 2.70 s); the lower end is tried again alone at 3.60 s (below), refused; then 1.84,
 * 1.43, 1.22, 1.09 and 1.02 s from each accepted start, each accepted: {@code hi} is within 1.2
 * times {@code lo}, and the host is paced at 0.94 a second: four refusals in all.
 *
 * <p>A refused gap read from an accepted start with nothing refused since is read <em>alone</em>
 * ({@link #loAlone}): no debt of an earlier refusal can have refused it, even at a server that
 * counts refusals against the client, so it says what a probe beyond the host's rate would.
 *
 * <p>A server that counts each refused request against the client (a bucket in debt) refuses a
 * request started {@code g} after the last accepted start, with {@code r} refused since, while
 * {@code g} is under {@code r + 1} of its intervals: a lower end read with refusals before it may
 * be the debt's, not the interval's. A host that accepted one request before its first refusal is
 * read both ways, and where the first accepted gap leaves the counting reading no longer than the
 * plain lower end, that end is tried again alone, once: a plain bucket refuses it, a counting one
 * accepts it, and its gaps are read as a counting bucket's from then on (each over {@code r + 1},
 * the next start after a refusal waiting for the debt to be refilled). A host that accepted more
 * before its first refusal let a burst through, whose debt the gaps do not tell.
 *
 * <p>It reads the gaps of a client alone with a bucket, so it gives way to the rule as it was
 * wherever they say something else. A host that refused the first
 * request it was sent (others keep it busy, or it is in debt) or accepted more than
 * {@value #MOST_ACCEPTED_BEFORE} before its first refusal (a burst, a window) is never bracketed.
 * A refused gap shorter than the slow start's interval is a fast host, which the slow start finds.
 * A refused gap as long as an accepted one however the refusals are counted, more than
 * {@value #UNANSWERED} refusals with nothing accepted (one fewer for a host that accepted more than
 * one), more than {@value #MOST_REFUSALS} in all, or a refusal more than {@link #LONGEST_GAP}
 * seconds after the last acceptance say that other clients take the host's tokens, that its
 * refusals take them too (a server that counts them) or that it is in trouble: the host is then
 * paced as the rule's own cuts would have paced it by now ({@link #shadow}). An accepted gap as
 * short as a refused one ends the bracket where it is. Guarded by the engine's lock, as the rule's
 * memory is.
 */
final class IntervalBracket {

  /** How close the bracket's ends must come, as a ratio, before the rule takes over. */
  static final double NARROW = 1.2;
  /**
   * Where between the two ends the next gap goes, as the weight of {@code lo} in their geometric
   * mean: nearer the accepted end, as a refusal costs more than a slower start.
   */
  static final double TOWARD_REFUSED = 0.35;
  /** The most requests a host may have accepted before its first refusal to be bracketed. */
  static final int MOST_ACCEPTED_BEFORE = 3;
  /**
   * The most refusals before anything is accepted in the bracket, for a host that accepted one
   * before its first refusal: a counting bucket three refusals in debt accepts the fourth gap.
   */
  static final int UNANSWERED = 3;
  /** The most refusals in the bracket. */
  static final int MOST_REFUSALS = 5;
  /**
   * The longest refused gap read, in seconds: a host refusing longer than that after accepting is
   * in trouble (down, in debt, crowded), which the rule handles as such, not slow.
   */
  static final double LONGEST_GAP = WindowQuota.MIN_WALL_SECONDS;

  /**
   * What {@link #refused} answers besides an interval: nothing changes; the bracket is given up;
   * it is left to the rule (a fast host); the rule cuts as it would, the bracket still open
   * (nothing accepted yet to read a gap from).
   */
  static final long SAME = 0;
  static final long GIVEN_UP = -1;
  static final long FAST = -2;
  static final long RULE = -3;
  /** What {@link #accepted} answers besides an interval: too little to narrow yet, narrowed, or conflicting. */
  static final long NOT_YET = 0;
  static final long NARROWED = -1;
  static final long CONFLICTING = -2;

  /** The shortest interval the bracket sets after a refusal, in seconds: the next start is not the same instant. */
  private static final double MIN_GAP = 0.001;
  private static final double NANOS = 1e9;

  /** When the bracket opened: only requests started after it are read. */
  private final long from;
  private final double slowStartInterval;
  /** The longest gap refused, in seconds; 0 before one. */
  double lo;
  /** The shortest gap between two accepted starts, in seconds; infinite before one. */
  double hi = Double.POSITIVE_INFINITY;
  /**
   * Whether {@link #lo} was read from a request refused with no other refused since the accepted
   * start it is read from: only then can no debt of an earlier refusal have refused it (a server
   * that counts refusals), and it says what a probe beyond the host's rate would.
   */
  boolean loAlone;
  /**
   * The host's interval read as a bucket's that counts each refusal against the client, in
   * seconds: longer than {@code loCounted}, at most {@code hiCounted}. There a request started
   * {@code g} after the last accepted start, with {@code r} refused since, is refused while
   * {@code g} is under {@code (r + 1)} intervals, so each gap counts divided by {@code r + 1}.
   * Read alone, the two readings are the same.
   */
  private double loCounted;
  private boolean loCountedAlone;
  private double hiCounted = Double.POSITIVE_INFINITY;
  /**
   * Whether the gaps are read as a counting bucket's from now on: a lower end read with refusals
   * before it was tried again alone, and accepted (a plain bucket would have refused it).
   */
  private boolean counted;
  /** That lower end's one try alone: not made, its answer awaited, or answered. */
  private LowerEndTry lowerEndTry = LowerEndTry.UNTRIED;
  /**
   * Whether the host accepted one request before its first refusal: a bucket of a burst of one,
   * empty after each request it accepts, whose debt of refusals the gaps can be read for.
   */
  private final boolean burstOfOne;
  /** This process's refusals since the last accepted start, the one that opened the bracket included. */
  private int debt = 1;
  /** The latest start refused, or when the bracket opened, before any. */
  private long lastRefused;
  private int refusals;
  /** The pace the rule's own cuts would have come to by now, per second; what a given-up bracket leaves. */
  double shadow;
  /** The pace the rule's cuts had before the last refusal, per second. */
  double shadowBefore;

  IntervalBracket(long from, double slowStart, boolean burstOfOne) {
    this.from = from;
    this.burstOfOne = burstOfOne;
    this.lastRefused = from;
    this.slowStartInterval = 1 / slowStart;
    this.shadow = slowStart;
    this.shadowBefore = slowStart;
  }

  /**
   * A bare refusal of the request started at {@code startedAt}, the last accepted one having started
   * at {@code lastAccepted} ({@code Long.MIN_VALUE} for none); {@code sameBurst} when it started
   * before the pace last changed. The next interval in nanoseconds, or {@link #SAME},
   * {@link #GIVEN_UP} (pace the host at {@link #shadow}), {@link #FAST} (leave it to the rule) or
   * {@link #RULE} (the rule's cut, this once).
   */
  long refused(long startedAt, long lastAccepted, boolean sameBurst, long interval) {
    boolean sinceAccepted = lastAccepted == Long.MIN_VALUE || startedAt - lastAccepted > 0;
    boolean triedNow = lowerEndTry == LowerEndTry.TRYING && sinceAccepted && debt == 0;
    lowerEndTryAnswered();
    int before = debt;
    if (sinceAccepted) {
      debt++;
    }
    if (startedAt - from <= 0) {
      return SAME; // of the burst that opened the bracket
    }
    refusals++;
    boolean alone = lastAccepted != Long.MIN_VALUE && lastRefused - lastAccepted < 0;
    if (startedAt - lastRefused > 0) {
      lastRefused = startedAt;
    }
    shadowBefore = shadow;
    if (!sameBurst) {
      shadow *= refusals == 1 ? 0.5 : HostpaceRule.BETA_AGAIN;
    }
    double gap = 0;
    if (lastAccepted != Long.MIN_VALUE && sinceAccepted) {
      gap = (startedAt - lastAccepted) / NANOS;
      if (gap < slowStartInterval && !counted) {
        return FAST;
      }
      if (gap > LONGEST_GAP) {
        return GIVEN_UP;
      }
      if (gap > lo || alone && gap >= lo) {
        lo = gap;
        loAlone = alone;
      }
      double asCounted = gap / (before + 1);
      if (asCounted > loCounted || alone && asCounted >= loCounted) {
        loCounted = asCounted;
        loCountedAlone = alone;
      }
    }
    boolean answered = hi < Double.POSITIVE_INFINITY;
    if (refusals > MOST_REFUSALS || !answered && refusals > (burstOfOne ? UNANSWERED : UNANSWERED - 1)) {
      return GIVEN_UP;
    }
    // A refusal at a gap as long as one accepted: the plain reading is contradicted, and the counting
    // one is all that is left.
    counted |= answered && lo >= hi;
    if (counted) {
      if (!countedHolds()) {
        return GIVEN_UP; // contradicted however the refusals count
      }
      // A counting bucket takes a refused request's token too: the next is accepted only once it
      // has refilled one more than that, each of the refusals since the last accepted start.
      return Math.round(Math.max(hiCounted, (debt + 1) * hiCounted - gap) * NANOS);
    }
    if (lo == 0) {
      return RULE;
    }
    if (!answered) {
      return Math.round(Math.max(2 * lo, interval / NANOS * (sameBurst ? 1 : 2)) * NANOS);
    }
    if (triedNow) {
      // The try's refusal says nothing the gaps left to try do not: the next goes where it would
      // have gone without it, from the last accepted start.
      return Math.round(Math.max(between(lo, hi) - gap, MIN_GAP) * NANOS);
    }
    return Math.round(between(lo, hi) * NANOS);
  }

  /**
   * Whether the counting reading still holds: the host accepted one request before its first
   * refusal (after a burst let through, no debt is read), and its ends do not contradict each other.
   */
  private boolean countedHolds() {
    return burstOfOne && loCounted < hiCounted;
  }

  /** The next gap tried between {@code lo} and {@code hi}, in seconds. */
  private static double between(double lo, double hi) {
    return Math.pow(lo, TOWARD_REFUSED) * Math.pow(hi, 1 - TOWARD_REFUSED);
  }

  /**
   * The accepted answer of the request started at {@code startedAt}, the accepted one before it
   * having started at {@code previous} ({@code Long.MIN_VALUE} for none). The next interval in
   * nanoseconds, or {@link #NOT_YET} (pace as the rule does), {@link #NARROWED} (paced from
   * {@link #hi} on; under the counting reading {@link #lo}, {@link #hi} and {@link #loAlone} are set
   * to its ends first) or {@link #CONFLICTING} (leave it to the rule).
   */
  long accepted(long startedAt, long previous) {
    if (startedAt - from > 0 && previous != Long.MIN_VALUE && startedAt - previous > 0) {
      double gap = (startedAt - previous) / NANOS;
      hi = Math.min(hi, gap);
      hiCounted = Math.min(hiCounted, gap / (debt + 1));
    }
    if (startedAt - lastRefused > 0) {
      debt = 0;
    }
    if (lo == 0 || hi == Double.POSITIVE_INFINITY) {
      return NOT_YET;
    }
    boolean triedAccepted = lowerEndTry == LowerEndTry.TRYING;
    lowerEndTryAnswered();
    if (!counted && (triedAccepted || lo >= hi) && countedHolds()) {
      // The lower end tried alone was accepted (a gap as short as one refused): it was read with
      // the debt of the refusals before it, at a bucket that counts them.
      counted = true;
    }
    if (!counted && lo >= hi) {
      return CONFLICTING;
    }
    if (counted) {
      if (!countedHolds()) {
        return CONFLICTING;
      }
      if (hiCounted <= NARROW * loCounted) {
        lo = loCounted;
        hi = hiCounted;
        loAlone = loCountedAlone;
        return NARROWED;
      }
      return Math.round(between(loCounted, hiCounted) * NANOS);
    }
    if (lowerEndTry == LowerEndTry.UNTRIED && !loAlone && hiCounted <= lo && countedHolds()) {
      // The lower end was read with refusals before it, and a bucket that counts them against the
      // client would put the interval at most at the gap they allow: the lower end is tried again
      // alone, once. A plain bucket refuses it (the end now read alone); a counting one accepts it.
      lowerEndTry = LowerEndTry.TRYING;
      return Math.round(lo * NANOS);
    }
    if (hi <= NARROW * lo) {
      return NARROWED;
    }
    return Math.round(between(lo, hi) * NANOS);
  }

  /** An answer came: a try of the lower end that awaited one is answered by it. */
  private void lowerEndTryAnswered() {
    if (lowerEndTry == LowerEndTry.TRYING) {
      lowerEndTry = LowerEndTry.TRIED;
    }
  }

  /** The one try alone of a lower end read with refusals before it. */
  private enum LowerEndTry {
    UNTRIED,
    TRYING,
    TRIED
  }
}

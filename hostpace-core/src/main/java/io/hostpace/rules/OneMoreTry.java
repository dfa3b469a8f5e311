package io.hostpace.rules;

/**
 * A {@link WindowQuota}'s check that its quota still holds. A quota is a hypothesis, and a wall can
 * have other causes (an outage of 30 s after a run of requests looks the same). So the window after
 * it is learned allows one more than the quota: a host that accepts it counts no such quota, and
 * the quota is dropped at once; one that refuses it keeps it, and the next such try comes
 * {@value #PROBE_EVERY_GROWTH} windows later, then sixteen, up to {@value #MAX_PROBE_EVERY} (for a
 * quota under {@value WindowQuota#ROUND_MIN_PERMITS}, two windows later, then four, each twice the
 * last).
 *
 * <p>A quota under {@value WindowQuota#ROUND_MIN_PERMITS} is as often a token bucket's as a
 * window's (a bucket that counts refusals against the client builds walls of its debt, and lets its
 * burst through after each), and a bucket refuses one more sent with the window's starts just as a
 * window does. So outside a fleet, where the window before took its starts at once, the try goes
 * alone after them ({@link #plan}, once they are taken): late enough that a bucket which gave the
 * quota once a window has a token back, early enough that the window cannot have ended. Refused,
 * the quota holds; accepted, it was a bucket's, and the rate rule paces the host from what the
 * windows held ({@link #heldRate()}). Where the bounds leave no such time, the try waits a window,
 * once, then goes with the starts.
 *
 * <p>Guarded by the engine's lock, as the quota is. Times are the quota's: seconds from its origin.
 */
final class OneMoreTry {

  /** The most windows between two tries of one more, however long the quota held. */
  static final int MAX_PROBE_EVERY = 64;
  /** How much rarer each try of one more than the quota is than the last, while the quota holds. */
  static final int PROBE_EVERY_GROWTH = 4;
  /**
   * How soon, after a window of a quota under {@value WindowQuota#ROUND_MIN_PERMITS} began, its try
   * of one more goes alone, in shares of the window's longest length over the quota: a token bucket
   * that gave the quota's starts once a window at most has a token back by one share.
   */
  static final double ALONE_AFTER_SHARES = 1.1;
  /**
   * How quickly, as a share of the window's shortest length, the window before must have taken its
   * starts for the try of one more to go alone: a bucket in debt, read as a window, is spent in a
   * burst, and so is a window's quota.
   */
  static final double BURST_SHARE = 0.05;

  /** Whether this window allows one more than the quota, to see whether the quota still holds. */
  private boolean extra;
  private int windowsSinceExtra;
  private int probeEvery = 1;
  /** Whether a window began with the last probe and no probe has gone since: its try of one more is decided once. */
  private boolean windowOpen;
  /**
   * How long after it began the window took its starts (the run's span before the first window),
   * and how long the window before took them.
   */
  private double windowSpan;
  private double burstBefore;
  /** When this window's try of one more goes alone, after its starts; 0 when it does not. */
  private double aloneAt;
  /** Whether the engine was told the window ends at {@link #aloneAt}, its starts taken. */
  private boolean aloneArmed;
  /**
   * The windows begun, and the one in which the try of one more, due, was put off because it could
   * not go alone (0: not put off).
   */
  private int windowsBegun;
  private int putOffIn;
  /** The quota a refusal lowered while one more was due in this window (0: none). */
  private int loweredWhileDue;
  /** The window in which a try of one more was refused last (-1: none), counted as {@link #windowsBegun}. */
  private int refusedIn = -1;
  /**
   * Whether a try of one more, alone part way into a window, was refused: a quota under
   * {@value WindowQuota#ROUND_MIN_PERMITS} that a token bucket would have refilled by then is a
   * window's, and counted at a round length as a larger one is.
   */
  private boolean shownWindow;
  /**
   * Set when a try of one more that went alone was accepted, ending the quota: the rate the
   * windows held (the quota over their longest length) and the rate the try showed (the window's
   * starts and it, over the time from the window's start to it).
   */
  private double heldRate;
  private double triedRate;

  /** How long, in seconds, the window before took its starts (the run, before the first window). */
  double burstBefore() {
    return burstBefore;
  }

  /** Whether this window allows one more than the quota. */
  boolean due() {
    return extra;
  }

  /** Whether a try of one more, alone part way into a window, was refused: the quota is a window's. */
  boolean shownWindow() {
    return shownWindow;
  }

  /** The rate the quota's windows held, a second, once a try that went alone was accepted; else 0. */
  double heldRate() {
    return heldRate;
  }

  /** As {@link #heldRate()}: the rate the window's starts and the try accepted showed, a second. */
  double triedRate() {
    return triedRate;
  }

  /** A quota was learned from a run that took {@code runSpan} seconds: the first window's starts are the run's. */
  void learned(double runSpan) {
    windowSpan = runSpan;
    putOffIn = 0;
  }

  /** A window began with the probe just accepted: maybe one more tried in it. */
  void windowBegan() {
    burstBefore = windowSpan;
    windowSpan = 0;
    windowOpen = true;
    windowsBegun++;
    loweredWhileDue = 0;
    disarmAlone();
    if (++windowsSinceExtra >= probeEvery) {
      extra = true;
      windowsSinceExtra = 0;
    }
  }

  /** One of the window's starts was accepted, {@code since} seconds after the window began. */
  void startTaken(double since) {
    windowSpan = Math.max(windowSpan, since);
  }

  /** A probe was refused: this window's try of one more goes with nothing alone. */
  void probeRefused() {
    windowOpen = false;
    disarmAlone();
  }

  /**
   * How many more than the quota of {@code permits} the window allows with its starts, 1 or 0, as
   * the next probe is planned. A quota of a few, counted at no round length ({@code noRound}), is as
   * often a token bucket's (its debt's walls, or its burst's) as a window's, and a bucket refuses
   * one more with the window's starts just as a window does. So, where {@code mayGoAlone} (the
   * boundary not searched for, no fleet), the try goes alone, after them, where a bucket that gave
   * the quota once a window would have a token back and a window would not have ended: a share of
   * the window after it began ({@code lastUpper}), before the soonest the next boundary may come
   * ({@code nextLower}), the window lasting {@code lo} to {@code hi}. Where the window's bounds
   * leave no such time, the try is put off a window, once; then it goes with the starts.
   */
  int plan(
      int permits, boolean noRound, boolean mayGoAlone, double lastUpper, double lo, double hi, double nextLower) {
    if (windowOpen && extra && permits < WindowQuota.ROUND_MIN_PERMITS && (noRound || shownWindow) && mayGoAlone) {
      double alone = Math.max(lastUpper + ALONE_AFTER_SHARES * hi / permits, (lastUpper + nextLower) / 2);
      boolean spentAtOnce = burstBefore <= BURST_SHARE * lo;
      if (spentAtOnce && alone < nextLower - 0.01 * lo) {
        aloneAt = alone;
        aloneArmed = false;
        putOffIn = 0;
        return 0;
      }
      if (putOffIn == 0 || putOffIn == windowsBegun) {
        putOffIn = windowsBegun;
        return 0;
      }
    }
    disarmAlone();
    if (extra) {
      putOffIn = 0;
    }
    return extra ? 1 : 0;
  }

  /**
   * Once the window has taken its starts ({@code taken}), before the time its try of one more goes
   * alone, the engine is to be told the window ends there, so that the try goes then: that time, or
   * 0 when there is nothing to tell. A window whose starts came later than that (less to send) tries
   * nothing this time, its try still due.
   */
  double armAlone(double now, boolean taken) {
    if (aloneAt > 0 && !aloneArmed && taken) {
      if (now < aloneAt) {
        aloneArmed = true;
        return aloneAt;
      }
      aloneAt = 0;
    }
    return 0;
  }

  /** Whether a start at {@code at} is the try that went alone: from its time, before the next probe's. */
  boolean triedAlone(double at, double probeAt) {
    return aloneArmed && at >= aloneAt - 0.001 && at < probeAt - 0.001;
  }

  /**
   * The try of one more, alone after the window's starts, was refused: the window holds its quota
   * still, where a token bucket would have refilled one.
   */
  void refusedAlone(int permits) {
    disarmAlone();
    shownWindow = true;
    refused(permits);
  }

  /**
   * The try of one more, alone part way into the window, was accepted, the quota of {@code permits}
   * dropped since: the rates the windows held, the longest {@code hi} seconds, and the window's
   * {@code accepted} starts and the try showed, {@code since} seconds after it began.
   */
  void acceptedAlone(int permits, double hi, int accepted, double since) {
    heldRate = permits / hi;
    triedRate = (accepted + 1) / Math.max(0.001, since);
  }

  /**
   * The one more tried in this window was refused: the quota holds; it is tried again less often,
   * counted from this window. Once a window: in a fleet (SPEC S2) each process hears the others'
   * tries, and one process's refused try is every process's, so that they try in the same windows,
   * not each on its own count (three processes that each tried when their own count said would try
   * three times as often as one).
   */
  void refused(int permits) {
    if (refusedIn == windowsBegun) {
      return;
    }
    refusedIn = windowsBegun;
    windowsSinceExtra = 0;
    extra = false;
    int growth = permits >= WindowQuota.ROUND_MIN_PERMITS ? PROBE_EVERY_GROWTH : 2;
    probeEvery = Math.min(MAX_PROBE_EVERY, growth * probeEvery);
  }

  /**
   * The quota of {@code from} came down to what the window accepted: nothing more is tried with
   * its starts. Where one more was due, the refusal that lowered it may have been the try, heard
   * before the window's other acceptances (a fleet's answers come in any order): {@link #restored}.
   */
  void quotaLowered(int from) {
    loweredWhileDue = extra ? from : 0;
    extra = false;
    if (!aloneArmed) {
      aloneAt = 0;
    }
  }

  /**
   * The window's later acceptances raised the quota back to {@code permits}: where it is back to
   * what it was when a refusal lowered it while one more was due, that refusal was the try's.
   */
  void restored(int permits) {
    if (loweredWhileDue > 0 && permits >= loweredWhileDue) {
      loweredWhileDue = 0;
      refused(permits);
    }
  }

  /** The quota was dropped: nothing is tried, and what a try showed is forgotten. */
  void quotaDropped() {
    disarmAlone();
    heldRate = 0;
    triedRate = 0;
    shownWindow = false;
    extra = false;
  }

  /** This window's try of one more goes with nothing alone: not planned, or decided already. */
  private void disarmAlone() {
    aloneAt = 0;
    aloneArmed = false;
  }
}

package io.hostpace.rules;

import io.hostpace.Clock;
import io.hostpace.spi.HostState;
import org.jspecify.annotations.Nullable;

/**
 * Recognises a quota counted in fixed windows ("60 a minute", reset on the minute) from refusals
 * that say nothing, and then follows the window: part of the default rule ({@link HostpaceRule}).
 *
 * <h2>Recognising it</h2>
 * A host that counts in fixed windows accepts everything up to its quota, then refuses whatever
 * the pace until its window resets, then accepts a burst again. So: a <em>run</em> of at least
 * {@value #MIN_PERMITS} accepted answers, then a <em>wall</em> of at least {@value #MIN_PERMITS}
 * refusals lasting at least {@value #MIN_WALL_SECONDS} s (the host's first after a run of
 * {@value #ROUND_MIN_PERMITS} or more: whatever ends at its first probe, {@link RunAndWall})
 * and longer than the run took (unless the run, of {@value #ROUND_MIN_PERMITS} or more, began at
 * the end of such a wall: another limit may have paced it slower than the windows allow), ended
 * by an accepted answer. A token bucket answers a refused
 * client within one token's time once it slows down, so it builds no such wall; one that it does
 * build (a bucket in debt, or one of a large burst's first wall) teaches a quota
 * that the next refusals undo. While the wall lasts, its end is probed each time twice as far from
 * its start as the probe before ({@link #wallInterval}); the first wall after a run of
 * {@value #ROUND_MIN_PERMITS} or more skips the probes before 3 s, after a smaller run those before
 * half a second.
 *
 * <h2>Following it</h2>
 * The quota is {@code permits} starts (the run's length) a window. The engine starts a window's
 * first request alone (a probe) and the rest once it is accepted, the window then counted from
 * it; the rule says when the probe goes. It keeps, for each window boundary it has seen, when the
 * boundary must have been: after the last refused start before it and by the accepted probe
 * after it. Counting boundaries from the run's first start (taken as the host's first boundary),
 * {@code k} boundaries bound the window's length: between {@code L_k / k} and {@code U_k / k}. The
 * next boundary then lies between {@code L_k + lo} and {@code U_k + hi}; the probe goes in the
 * middle while that span is wider than {@value #NARROW_ENOUGH} of the window (a refused probe
 * raises the lower end, and the next goes in the middle of what is left), else at its end. So the
 * span narrows as boundaries add up, and the probes are refused at most a few times in all, at
 * most {@value #MAX_REFUSED_PROBES} times for one boundary (each is a retry of the oldest request).
 *
 * <p>Most hosts count in windows of a round length (a minute, ten seconds, an hour:
 * {@link RoundWindowLengths}). While the bounds allow one, and the quota is at least
 * {@value #ROUND_MIN_PERMITS} starts (a smaller one once its try of one more, alone part way into
 * a window, was refused: a token bucket would have had one back by then), the shortest such
 * length is taken for the window's, and each
 * probe goes where it puts the next boundary, a thousandth of it late: no probe is refused when the
 * guess is right, and one refused there rules the length out (the next round length the bounds
 * allow; where none is left but a length that is not round, the narrowing above). A window spent
 * each time its length has passed gets one burst whatever its phase, so where the host's windows
 * begin matters no more than that. The first boundary found may lie up to a window before the
 * probe that found it; where the length puts the next one sooner after that probe than the run
 * took to go, the probe passes over it to the one after, so that the window's starts do not cross
 * a boundary a wrong guess put (100 a minute met 7.3 s into a window that began 17.4 s into the
 * clock's minute: the wall's end found by 19.2 s, 6 s windows fit, the next boundary at 19.3 s; the
 * probe goes at 25.3 s instead, where the starts that crossed 19.3 s would have read as a second
 * window, whose refusal lowered the quota to what crossed). A probe refused where a length that
 * held put the boundary says the windows moved or grew: the boundary is searched for within a
 * window's length of it, and the windows counted from there afresh, first at the length before,
 * then at the round lengths up to the span between the last two boundaries found.
 *
 * <p>The first wall's probes skip its first seconds, so a window of a second or two may have passed
 * several times before its end is seen: the boundary found is then counted as the round length's
 * boundary it is from the run's first start (15 a second, the wall ended by 5.05 s: the fifth, and
 * the next probe at 6.001 s). That guess is held only once the next boundary confirms it: a probe
 * refused where it puts that boundary searches for it within one length (the run began within a
 * window), and fewer than half the quota accepted in the first window, or nothing found by that
 * search, forgets the quota. Fewer than the run but at least half of it say the run spanned a
 * boundary (100 a second met 0.39 s before one: a run of 134): its first start was none, and the
 * wall's last refusal rules out no length longer than the run took from there, so the shortest
 * round length that leaves is guessed again. More than the quota in that window says the probe
 * was accepted at the end of the host's window and the rest began the next: the windows are
 * counted from there; but not where those starts began with the refusal that lowered the quota (a
 * fleet's answers of one burst come in any order), which the window held too.
 *
 * <p>A run that began within a window, not at its start (a host that counts by the clock's minute,
 * met 40 s into one), makes the run's first start no boundary: it says only that the window lasts
 * longer than from there to the boundary found after it. When nothing counted from it fits (a
 * probe refused where the last length the bounds allow put the next boundary), the windows are
 * counted from the boundary found instead, which lies somewhere between its last refused probe and
 * its accepted one (the slack), at the shortest round length longer than what was refused. Since a
 * probe counted so comes up to the slack late, a round length longer than the host's would be
 * accepted there every time: one is taken only once the window is known to last at least
 * {@value #NEAR_ROUND} of it, the boundaries narrowed by probes until then, and each boundary found
 * bounds the length from the one before it as well as from the origin.
 *
 * <p>A host accepts every probe of a count longer than its own (each meets a window nobody started
 * in), however the windows are counted, and nothing else ever rules such a count out: a host of
 * 90 s counted at two minutes leaves one window in four unused for good. So a round length of
 * {@value #CHECKED_FROM_SECONDS} s or more, while the window is not known to last
 * {@value #NEAR_ROUND} of it ({@code knownLast}: the first wall's last refusal after the run's first
 * start, or the longest a probe was refused after a window began, in a fleet another process's
 * too, so that its processes know it alike), is checked once, by a start that far after the
 * window began, before its probe ({@link #tooLong}). Refused, the window lasts that long; accepted,
 * a window began sooner, and the windows are counted from that start as from a boundary found.
 *
 * <p>Before that, where the rule is given the engine's clock, the windows are counted from the
 * clock's day: a host that counts by the clock's minute (a gateway that keys its counter by the
 * time divided by the window) begins them at round times of the day, every round length dividing
 * a day. The shortest round length that puts a boundary within the first one found and none in
 * the wall before it, one within the last one found and none from there to the last refused probe
 * ({@link RoundWindowLengths#shortestOnClock}) is taken, its next boundary probed; refused there,
 * the next such length; none left, the boundary found as above. Example, 100 a minute by the clock,
 * the run begun 41.7 s into a minute: the first boundary found 11.9 s to 23.1 s after the run's
 * first start, 53.6 s to 64.8 s after the clock's minute began; 12, 15 and 20 s from the run's
 * first start and a length between refused (the last at 87.9 s of that minute, which rules out
 * 20 s by the clock too), then 30 s by the clock (its probe at 90.03 s), and a minute's probe
 * accepted at 120.06 s and each minute after, where counted from the boundary found they come up
 * to 4.9 s late.
 *
 * <p>A refusal within a window, after fewer accepted than the quota, means the host counts more than
 * ours (other clients, a lower quota): the quota comes down to what was accepted, and below
 * {@value #MIN_PERMITS} it is dropped and the rate rule takes over.
 *
 * <p>A quota is a hypothesis, and a wall can have other causes (an outage of 30 s after a run of
 * requests looks the same): now and then a window allows one more than the quota, to see whether
 * it still holds ({@link OneMoreTry}). And {@value #MOST_PROBES_REFUSED_IN_A_ROW} probes refused in
 * a row, whatever boundary each looked for, drop it: probes go at the windows' pace and never slow
 * down, so a host whose tokens others take would refuse them, and the calls behind them, for good.
 *
 * <p>Example, 60 a minute from 0 s: 60 accepted at 0 s, the wall's last refusal at 31.6 s and the
 * burst accepted at 63.6 s: the window lasts 31.6 s to 63.6 s, a minute is the one round length
 * in that span, so the next probe goes at 120.06 s, accepted, then 180.06 s, and so on, none
 * refused. Had the wall's last refusal come at 31.6 s and the burst at 47.6 s, no round length
 * would fit: the next boundary lies in 63.2 s to 95.2 s, the probe goes in the middle, at 79.2 s,
 * and the bounds narrow from the refused and accepted probes as boundaries add up.
 *
 * <h2>In a fleet</h2>
 * The processes of a fleet (SPEC S2) each hear the others' answers, a little late and in no order
 * that matches the host's: a burst of 96 from three processes, 60 of them accepted, may reach one
 * process as 32 accepted, 16 refused, 28 accepted and 20 refused. So answers whose starts are
 * within {@code SAME_BURST_NANOS} of each other count as one burst: an accepted one started with
 * the wall's refused ones (or before) adds to the run and ends no wall; a refusal that lowered the
 * quota to what the window had accepted is followed by its burst's acceptances, which raise it
 * back to what the window held. And one more than the quota, accepted when the next probe was due
 * within {@value #NARROW_ENOUGH} of the window, is the probe of another process whose reckoning
 * put the boundary a little earlier (where it started after this process's last refused probe):
 * a boundary, not a sign that there is no quota. A fleet's
 * processes count the windows from the run's first start while anything counted so fits, as each
 * of them saw it: bounded from the boundary before, as a process alone bounds them too, each
 * process's count would drift from the others', whose probes it hears at their own reckoning.
 * Where nothing counted so fits (a host whose windows no round length fits, met part way into
 * one), they count from the boundary found, as a process alone does, and narrow where it lies
 * ({@link #phaseProbeAt}). The clock's day they
 * read alike: where a round length counted from it fits the first boundary found and puts the next
 * one sooner than the run's count (a host that counts by the clock's minute, met part way into one,
 * whose windows' probes that count would put late, and never refused there), the windows are counted
 * by it ({@code fleetByClock}). A probe refused there, no length of the clock left, says the clock's
 * phase was wrong, not the run's count, which every process kept: the windows are counted from the
 * run's first start again, as they were ({@code RunCount}). Where that count is
 * off the host's, a start of another process between the host's boundary and the count's is
 * accepted beyond the quota: one that comes at least the window's shortest length after the last
 * probe, while a length holds, is the host's next window, and the windows are counted from it
 * afresh, not taken to be no quota. A refusal heard once the window accepted the quota is the
 * fleet's try of one more, refused: every process counts its next try from it
 * ({@link OneMoreTry#refused}), so that they try in the same windows.
 *
 * <p>Guarded by the engine's lock, as the host's state is. Times are the engine's clock in
 * nanoseconds, compared by difference; the quota's own are seconds from the run's first start.
 */
final class WindowQuota {

  static final int MIN_PERMITS = 3;
  static final double MIN_WALL_SECONDS = 5;
  static final double NARROW_ENOUGH = 0.02;
  static final int MAX_REFUSED_PROBES = 3;
  /**
   * The most probes refused in a row, whatever boundary they looked for, before the quota is
   * dropped: a host that counts windows accepts a probe where its bounds put the boundary within a
   * few; one that refuses on is counting no such windows now (others take its tokens), and the rate
   * rule's cuts, which slow down, pace it instead of probes that never do. Counted afresh once the
   * run's first start is ruled out as a boundary ({@link #unknownFound}): the probes before said
   * where the windows are counted from, not whether there are any.
   */
  static final int MOST_PROBES_REFUSED_IN_A_ROW = 8;
  /**
   * The fewest starts a window for which a round length is taken and the tries of one more grow
   * rarer by {@value OneMoreTry#PROBE_EVERY_GROWTH}: a run of a few accepted before a wall is as
   * often a token bucket that other clients share (its walls come and go) as a quota, and is
   * followed as any quota was, its boundaries narrowed by probes and one more tried every other
   * window, then four.
   */
  static final int ROUND_MIN_PERMITS = 10;
  /**
   * How far after where a round length puts a boundary its probe goes, as a share of the length: no
   * rounding of ours may put it a nanosecond before the host's window begins.
   */
  static final double ROUND_MARGIN = 0.001;
  /** How narrow, as a share of the round length, the span a fleet's boundary was found in must be before its probes stop narrowing it. */
  static final double PHASE_NARROW = 0.05;
  /**
   * The shortest round length whose count is checked for being longer than the host's windows
   * ({@link #tooLong}): a probe of a shorter one comes later into the host's window by the round
   * trips and the margin, a larger share of it, and a start three quarters into the count would
   * meet the host's next window whatever the length.
   */
  static final double CHECKED_FROM_SECONDS = 10;
  /**
   * The soonest, after it began, that a host's first wall after a run of {@value #ROUND_MIN_PERMITS}
   * or more is probed for its end: a quota that size is counted in windows of seconds or more, which
   * probes at half a second and a second would only meet as refusals.
   */
  static final long FIRST_WALL_PROBE_NANOS = 3_000_000_000L;
  /**
   * The soonest, after it began, that a host's first wall after a run of {@value #MIN_PERMITS} or
   * more, fewer than {@value #ROUND_MIN_PERMITS}, is probed for its end: a fixed window of a few
   * is counted over seconds, and a token bucket that holds a few refills one within half a second
   * at two a second or more; the doubling's probes before then meet the window's wall again and
   * again.
   */
  static final long FIRST_SMALL_WALL_PROBE_NANOS = 500_000_000L;
  /** How far apart two starts may be and still be of one burst: a fleet's lessons come a little late. */
  static final long SAME_BURST_NANOS = 50_000_000L;
  /**
   * How near its round length a window must be known to last, as a share of it, for that length
   * to be taken when the windows are counted from a boundary found, not from one known exactly.
   */
  static final double NEAR_ROUND = 0.75;
  /** The longest a window is taken to last when nothing else bounds it: a day. */
  static final double LONGEST_SECONDS = 86_400;
  private static final double NANOS = 1e9;

  /** Recognising: the run of accepted answers since the last wall, and the wall since the last answer. */
  private final RunAndWall runAndWall;
  /** How long the run the quota was learned from took, first start to last answer, in seconds. */
  private double runSpan;

  // Following, in seconds from origin (the run's first start): the quota, 0 when none.
  private int permits;
  private long origin;
  /** Boundaries seen, and the bounds of the last one. */
  private int boundaries;
  /**
   * Whether the probe planned passes over the round length's next boundary, the window found
   * counted with the next ({@link #plan}): that boundary counts as one seen.
   */
  private boolean passedOver;
  private double lastLower;
  private double lastUpper;
  /** Bounds of the window's length. */
  private double lo;
  private double hi;
  /** Bounds of the next boundary, and when its probe goes. */
  private double nextLower;
  private double nextUpper;
  private double probeAt;
  private int refusedProbes;
  /** Probes refused since the last one accepted. */
  private int probesRefusedInARow;
  /**
   * The round length the window is taken to be ({@link RoundWindowLengths}), 0 when the bounds
   * allow none; whether a probe where it put a boundary was accepted since it was taken; and
   * whether, refused after that, the boundary is searched for (the windows moved, or grew).
   */
  private double round;
  private boolean roundHeld;
  private boolean searching;
  /** Whether the search began because the round length was ruled out, not because it stopped holding. */
  private boolean roundRuledOut;
  /**
   * Whether the windows are counted from the run's first start or the clock's day, taken to be a
   * boundary (the slack then 0).
   */
  private boolean fromRun;
  /**
   * Whether the one boundary found so far, after the host's first wall, is counted by the round
   * length guessed (that wall's probes may have let several windows pass), not as the first:
   * until the next boundary confirms the guess, a probe refused where the length puts it searches
   * for the boundary within one length, and fewer than half the quota accepted in the first window
   * or nothing found by that search forgets the quota.
   */
  private boolean countByRound;
  /** How much earlier than the origin the host's boundary there may lie: 0 when the origin is one. */
  private double slack;
  /**
   * In a fleet counting from a boundary found: whether the next probe goes in the middle of where
   * the last boundary lay, a round length on ({@link #phaseProbeAt}), and whether one so placed was
   * refused in this window (the next then goes where the length puts it).
   */
  private boolean phaseProbe;
  private boolean phaseRefused;
  /**
   * Whether another process of a fleet told of this host (SPEC S2): it counts from the run's first
   * start while anything counted so fits.
   */
  private boolean fleet;
  private int acceptedInWindow;
  /** Whether a refusal lowered the quota in this window, and the start of the request it refused. */
  private boolean lowered;
  private long loweredBy;
  /** The check that the quota still holds: one more than it tried now and then. */
  private final OneMoreTry oneMore = new OneMoreTry();
  /** The clock's day, which the windows may be counted from; and whether they are, unconfirmed. */
  private final DayClock day = new DayClock();
  private boolean byClock;
  /**
   * A fleet's count from the run's first start, as it stood when the fleet's processes took the
   * clock's instead at their first boundary: taken up again where the clock's probes are all
   * refused; null when none is kept.
   */
  private @Nullable RunCount runCount;
  /**
   * How long a window is known to last: the longest a probe (this process's or, in a fleet,
   * another's) was refused after the window before began (at first, the first wall's last refusal
   * after the run's first start); and whether the probe planned is the check that the round length
   * counted is not longer than the host's.
   */
  private double knownLast;
  private boolean checking;
  /** Whether the refusal just told dropped the quota, its probes refused too often in a row. */
  private boolean droppedByProbes;
  /** The rate of the quota the refusal just told dropped, a second; 0 when it dropped none. */
  private double droppedRate;

  /** The fields of a count from the run's first start that counting by the clock replaces. */
  private record RunCount(
      double round, int boundaries, double lo, double hi, boolean countByRound, boolean roundHeld) {}

  /** Knows nothing yet. */
  WindowQuota() {
    runAndWall = new RunAndWall();
  }

  /**
   * Made on a host's first refusal, after a run of {@code runAccepted} accepted answers, the first
   * started at {@code runFirstStart}, the last answered at {@code runLastAnswer} (counted until
   * then by the rule, so that a host that never refuses costs none of this).
   */
  WindowQuota(int runAccepted, long runFirstStart, long runLastAnswer) {
    runAndWall = new RunAndWall(runAccepted, runFirstStart, runLastAnswer);
  }

  /**
   * How many refusals came since the last accepted answer (the wall), read before
   * {@link #accepted} ends it; the rate rule reads it too.
   */
  int wallRefusals() {
    return runAndWall.wallRefusals();
  }

  /** When the wall's first refusal came; meaningful only when {@link #wallRefusals()} > 0. */
  long wallFrom() {
    return runAndWall.wallFrom();
  }

  /** Whether a quota is followed. */
  boolean active() {
    return permits > 0;
  }

  /**
   * The engine's clock, which the rule passes on with each refusal of this process's own (null with
   * another process's, which keeps the one known).
   */
  void clock(@Nullable Clock clock) {
    day.clock(clock);
  }

  /** Whether another process of a fleet told of this host: the rule says so before each answer it passes on. */
  void fleet(boolean heard) {
    fleet = heard;
  }

  /**
   * The rate the quota's windows held, a second, when the quota just ended because its try of one
   * more, alone part way into a window, was accepted; 0 otherwise.
   */
  double heldRate() {
    return oneMore.heldRate();
  }

  /**
   * Whether the refusal just told dropped the quota because {@value #MOST_PROBES_REFUSED_IN_A_ROW}
   * of its probes were refused in a row: the rate rule takes the host with nothing measured, as the
   * answers since the quota was learned are its windows' bursts, not a rate.
   */
  boolean droppedByProbes() {
    return droppedByProbes;
  }

  /**
   * The rate of the quota the refusal just told dropped, however it did (its quota over its
   * window, a second), or 0 when it dropped none: the answers since the quota was learned are its
   * windows' bursts, whose gaps may read a rate far above what those windows let through.
   */
  double droppedRate() {
    return droppedRate;
  }

  /** As {@link #heldRate()}: the rate the window's starts and the try accepted showed, a second. */
  double triedRate() {
    return oneMore.triedRate();
  }

  /**
   * A refusal without Retry-After, {@code heard} when another process of a fleet met it (SPEC S2);
   * true when the quota accounts for it (the rate rule then does not). Only this process's own
   * probes count toward {@value #MOST_PROBES_REFUSED_IN_A_ROW}: the others' come at their own
   * reckoning of the windows.
   */
  boolean refused(long now, long startedAt, boolean heard, HostState host) {
    droppedByProbes = false;
    droppedRate = 0;
    runAndWall.refused(now, startedAt);
    if (permits == 0) {
      return false;
    }
    double at = seconds(startedAt);
    if (oneMore.triedAlone(at, probeAt)) {
      // The try of one more, alone after the window's starts, refused: the next window's probe goes
      // as planned.
      oneMore.refusedAlone(permits);
      host.quota(permits, nanos(probeAt - lastUpper));
      return true;
    }
    if (at >= probeAt - 0.001) {
      oneMore.probeRefused();
      if (checking) {
        // The count's check refused: the window lasts that long at least; its boundary is probed.
        checking = false;
        knownLast = Math.max(knownLast, at - lastUpper);
        plan(host);
        return true;
      }
      if (phaseProbe) {
        // Refused in the middle of where the last boundary lay, a round length on: the boundary
        // lies later in it; this window's probe goes where the length puts it.
        phaseRefused = true;
        nextLower = Math.max(nextLower, at);
        plan(host);
        return true;
      }
      if (searching && countByRound && at >= nextUpper - 0.001) {
        // Searched for over a whole round length: the first wall was no window of that length, but
        // a longer window met near its end, say.
        forget(host);
        return false;
      }
      if (!heard && ++probesRefusedInARow >= MOST_PROBES_REFUSED_IN_A_ROW) {
        drop(host);
        droppedByProbes = true;
        return false;
      }
      if (!searching) {
        // Another process's probe too: processes that know alike how long the window lasts make
        // their checks alike, not one of them on its own while the others' places run out.
        knownLast = Math.max(knownLast, at - lastUpper);
      }
      if (byClock) {
        // Refused where the clock's round length put the boundary: the next length the clock
        // allows, else the windows are counted from the boundary found, as without the clock.
        double length = day.length(lastLower, lastUpper, at);
        if (length > 0) {
          countByClock(length, host);
          return true;
        }
        byClock = false;
        RunCount run = runCount;
        if (fleet && run == null) {
          // In a fleet: the windows moved, as the others will find too; searched for as then.
          search(at, true, host);
          return true;
        }
        backToRunStart();
        at -= day.shift();
        if (run == null) {
          unknownFound(Math.max(day.keptAbove(), at - lastUpper), host);
          return true;
        }
        // In a fleet that took the clock over the run's count: the clock's phase was wrong, not the
        // run's count, which every process kept; counted from the run's first start again, and this
        // refusal read as that count's where it put its probe no later.
        runCount = null;
        countFromRun(run, host);
        if (probeAt > at + 0.001) {
          return true;
        }
      }
      if (round > 0 && (roundHeld || countByRound) && !searching) {
        // Refused where a length that held put the boundary: the windows moved, or grew. The
        // boundary is searched for within a window's length of this probe, then counted from. So
        // too where the first wall's length was guessed: a run that began within a window of it
        // (a host that counts by the clock's second) puts no boundary at its first start.
        search(at, false, host);
        return true;
      }
      // The probe, refused: the boundary is later (and not where the round length taken put it).
      boolean beyond = at >= nextUpper - 0.001;
      nextLower = Math.max(nextLower, at);
      if (nextLower >= nextUpper) {
        nextUpper = nextLower + 0.1 * hi;
      }
      refusedProbes++;
      // The window lasts longer than this probe lies from the origin over the boundaries counted,
      // and than it lies from the last boundary found.
      double above = Math.max(lo, Math.max(at / probedBoundary(), at - lastUpper));
      if (round > 0 && !searching) {
        double next = RoundWindowLengths.shortestWithin(above, hi);
        if (next == 0 && above < hi && !fleet) {
          // No round length is left, but one that is not round still fits: it is narrowed by
          // probes in the middle of where the next boundary lies, as when none fitted.
          round = 0;
        } else if (next == 0 && fromRun) {
          unknownPhase(above, at, host);
          return true;
        } else if (next == 0) {
          // No round length is left: the windows moved or grew. The boundary is searched for, and
          // the windows counted from it at the next round length.
          search(at, true, host);
          return true;
        } else {
          round = next;
        }
      } else if (!searching && fromRun && beyond) {
        // Refused where the last boundary the bounds allow had come: counted from the run's first
        // start, nothing fits.
        unknownPhase(above, at, host);
        return true;
      }
      plan(host);
      return true;
    }
    if (acceptedInWindow >= permits && (oneMore.due() || heard)) {
      // The one more tried in this window was refused, this process's or, in a fleet, another's:
      // the quota holds; tried again less often, by every process of the fleet from this window.
      oneMore.refused(permits);
      host.quota(permits, host.quotaWindow());
      return true;
    }
    if (countByRound && !searching && 2 * acceptedInWindow < permits) {
      // Fewer than half the quota accepted in the first window after the first wall's length was
      // guessed (a run that spanned a boundary counts at most twice the host's quota): no window's
      // quota, but a bucket of a large burst that refills slowly, say.
      forget(host);
      return false;
    }
    if (acceptedInWindow >= MIN_PERMITS) {
      boolean spanned = countByRound && !searching && !lowered;
      oneMore.quotaLowered(permits);
      permits = acceptedInWindow;
      lowered = true;
      loweredBy = startedAt;
      // The first window after the guess holds fewer than the run: the run spanned a boundary, and
      // the wall's last refusal, counted from its first start, rules out no length longer than
      // the run took from there. A shorter round length the bounds allow is guessed instead.
      double shorter = spanned ? RoundWindowLengths.shortestWithin(Math.max(0, lastLower - runSpan), hi) : 0;
      if (shorter > 0 && shorter < round) {
        round = shorter;
        boundaries = boundariesByRound();
        plan(host);
        return true;
      }
      host.quota(permits, host.quotaWindow());
      return true;
    }
    drop(host);
    return false;
  }

  /**
   * The quota guessed from the host's first wall did not hold: the rate rule takes over, as from
   * any quota dropped, but the starts its window accepted are a run and the refusals since then a
   * wall after it, which a window that ends later still makes a quota of (no sooner than
   * {@value #MIN_WALL_SECONDS} s, as for any wall but the first).
   */
  private void forget(HostState host) {
    int run = acceptedInWindow;
    long first = origin + Math.round(lastUpper * NANOS);
    drop(host);
    runAndWall.runAgain(run, first);
  }

  /** The host counts no quota of ours, or none worth the name: the rate rule takes over. */
  private void drop(HostState host) {
    droppedRate = host.quotaWindow() > 0 ? permits * NANOS / host.quotaWindow() : 0;
    oneMore.quotaDropped();
    knownLast = 0;
    checking = false;
    countByRound = false;
    byClock = false;
    runCount = null;
    permits = 0;
    probesRefusedInARow = 0;
    runAndWall.quotaDropped();
    round = 0;
    roundHeld = false;
    searching = false;
    host.quota(0, 0);
  }

  /**
   * While no quota is followed, the interval a wall of refusals after a run asks for, or 0 when
   * there is no such wall ({@link RunAndWall#wallInterval}).
   */
  long wallInterval(long now) {
    return runAndWall.wallInterval(now, permits > 0);
  }

  /** An accepted answer; true when the quota accounts for it. */
  boolean accepted(long now, long startedAt, HostState host) {
    if (permits > 0) {
      double at = seconds(startedAt);
      runAndWall.acceptedWithinQuota();
      if (oneMore.triedAlone(at, probeAt)) {
        // The try of one more, alone part way into the window, accepted: the host gave back a start
        // before its window could end, as a token bucket refills (one that counts refusals against
        // the client, whose debt's walls read as a window). No such window: the rate rule paces the
        // host from what the windows held.
        int quota = permits;
        drop(host);
        oneMore.acceptedAlone(quota, hi, acceptedInWindow, at - lastUpper);
        return false;
      }
      if (at >= probeAt - 0.001 && checking) {
        tooLong(at, host);
      } else if (at >= probeAt - 0.001 && searching) {
        anchor(at, host);
      } else if (at >= probeAt - 0.001) {
        boundary(nextLower, at, host);
      } else if (++acceptedInWindow <= permits) {
        oneMore.startTaken(at - lastUpper);
        armAlone(seconds(now), host);
      } else {
        if (lowered && startedAt - loweredBy <= SAME_BURST_NANOS) {
          // Of the burst whose refusal lowered the quota, answered after it (a fleet's answers come
          // in any order): the window held these too, whatever else more than the quota may say.
          permits = acceptedInWindow;
          oneMore.restored(permits);
          host.quota(permits, host.quotaWindow());
          return true;
        }
        if (countByRound && !searching) {
          // More than the quota in the first window after the first wall's length was guessed: the
          // probe was accepted at the end of the host's window, and the rest began the next. The
          // windows are counted from this start.
          anchor(at, host);
          return true;
        }
        if (at > nextLower && at >= probeAt - NARROW_ENOUGH * (hi < LONGEST_SECONDS ? hi : lo)) {
          // More than the quota, started just before the probe was due: another process of a
          // fleet probed a little earlier (SPEC S2), and the host began a window for it. Not one
          // started with this process's last refused probe, in the same moment: it took the
          // window's last place, and a boundary at the refused probe's own time fits no length.
          boundary(nextLower, at, host);
          return true;
        }
        if (fleet && round > 0 && !searching && at - lastUpper >= lo) {
          // More than the quota, started a window's shortest length after the last probe: another
          // process met the host's next window, which began before this count put it (the run's
          // first start, or the boundary found, lay within one). The windows are counted from that
          // start afresh.
          roundRuledOut = false;
          anchor(at, host);
          return true;
        }
        // More than the quota accepted in one window: there was none (an outage that ended, say).
        drop(host);
        return false;
      }
      return true;
    }
    if (!runAndWall.accepted(now, startedAt)) {
      return false;
    }
    // The run's count is the quota, its first start the first boundary, the wall's end the next.
    runSpan = (runAndWall.runLastAnswer() - runAndWall.runFirstStart()) / NANOS;
    permits = runAndWall.runAccepted();
    origin = runAndWall.runFirstStart();
    fromRun = true;
    slack = 0;
    boundaries = 0;
    oneMore.learned(runSpan); // the first window's starts are the run's, which the wall followed
    double wallLast = Math.max(0, seconds(runAndWall.wallLastRefusedStart()));
    day.firstWall(seconds(runAndWall.wallFrom()), wallLast, seconds(startedAt));
    knownLast = wallLast;
    boundary(wallLast, seconds(startedAt), host);
    return true;
  }

  /** A window began between {@code lower} and {@code upper} (the accepted probe's start). */
  private void boundary(double lower, double upper, HostState host) {
    probesRefusedInARow = 0;
    byClock = false;
    runCount = null;
    int k = probedBoundary();
    passedOver = false;
    if (boundaries > 0 && upper > nextUpper) {
      // A quiet host probed late: the boundaries it let pass count too.
      k += (int) ((upper - nextUpper) / hi);
    }
    // The boundary before this one, since windows earlier: the origin itself, or one found.
    int since = k - boundaries;
    boolean pairs = boundaries > 0 && !fleet;
    double beforeLower = lastLower;
    double beforeUpper = lastUpper;
    boundaries = k;
    lastLower = Math.min(lower, upper);
    lastUpper = upper;
    // Counted from the origin, the window lasts more than lastLower / k (the host's boundary there
    // is at or before it) and at most (lastUpper + slack) / k; counted from the boundary found
    // before, between the two's bounds apart.
    double pairLo = pairs ? (lastLower - beforeUpper) / since : 0;
    double pairHi = pairs ? (lastUpper - beforeLower) / since : LONGEST_SECONDS;
    double loBefore = lo;
    double hiBefore = hi;
    lo = Math.max(lastLower / k, pairLo);
    hi = Math.min((lastUpper + slack) / k, pairHi);
    if (slack > 0 && Math.max(lo, loBefore) < Math.min(hi, hiBefore)) {
      // Counted from a boundary found, what was known of the length before still holds.
      lo = Math.max(lo, loBefore);
      hi = Math.min(hi, hiBefore);
    }
    if (lo >= hi) {
      lo = pairLo;
      hi = pairHi;
    }
    hi = Math.max(hi, 0.001);
    windowBegan();
    expectNextBoundary();
    // A round length the bounds allow is taken for the window's; the one taken stays while it fits.
    roundHeld = round > lo && round <= hi;
    boolean roundLengths = permits >= ROUND_MIN_PERMITS || oneMore.shownWindow();
    round = roundHeld ? round : roundLengths ? RoundWindowLengths.shortestWithin(lo, hi) : 0;
    if (slack > 0 && notKnownNear(lo, round)) {
      // Counted from a boundary found, a probe where a round length puts the next one comes late by
      // up to the slack, and a length much shorter still fits: a round length longer than the
      // host's would be accepted there each time, and never ruled out. The boundaries are narrowed
      // by probes until it is the only length near.
      round = 0;
      roundHeld = false;
    }
    // The first boundary found may be the round length's second or later: the first wall's probes
    // skip its first seconds, and several windows of a second pass unseen. Where the length fits
    // twice, the boundaries are counted by it, the next probe going where it puts the next one.
    countByRound = k == 1 && fromRun && round > 0 && 2 * round <= lastUpper;
    if (countByRound) {
      boundaries = boundariesByRound();
    }
    plan(host);
    if (k == 1 && fromRun && fleet) {
      fleetByClock(host);
    }
  }

  /** Which boundary from the origin the planned probe looks for: the next, or the one after where one is passed over. */
  private int probedBoundary() {
    return boundaries + (passedOver ? 2 : 1);
  }

  /** The boundaries the round length puts from the run's first start up to the one found (countByRound). */
  private int boundariesByRound() {
    return (int) Math.floor(lastUpper / round);
  }

  /**
   * Counted from the run's first start as a boundary, nothing fits what the host did (the last
   * probe refused at {@code at}): the run began within a window. A host
   * that counts by the clock's minute begins its windows at round times of the day: where the
   * engine's clock is known and a round length counted so fits the boundaries found, the windows
   * are counted by the clock, at the shortest such length, until a probe where it put a boundary is
   * accepted or none is left. Else {@link #unknownFound}. The clock gives the phase, not a longer
   * length: a length longer than the one counted from the boundary found would try first is a
   * coincidence of a host that does not count by the clock (a minute's windows from 17.4 s fit two
   * minutes of the clock), and would be accepted at every probe, every other window unused.
   */
  private void unknownPhase(double above, double at, HostState host) {
    double length = day.read(origin, lastLower, lastUpper, at);
    if (length > 0 && length <= RoundWindowLengths.shortestWithin(above, LONGEST_SECONDS)) {
      countFromDay(length, above, host);
      return;
    }
    unknownFound(above, host);
  }

  /**
   * A fleet's first boundary found, counted from the run's first start: where the engine's clock is
   * known and a round length counted from the clock's day fits it, with its next boundary sooner
   * than the next probe that count put, the windows are counted by the clock, as each process reads
   * the same clock (a host that counts by the clock's minute, which the fleet met part way into
   * one, would otherwise have each window's probe late by as much, and accepted there, for good).
   */
  private void fleetByClock(HostState host) {
    double length = day.read(origin, lastLower, lastUpper, lastUpper);
    if (length > 0 && day.nextBoundary(length, lastUpper) < probeAt - 0.001) {
      runCount = new RunCount(round, boundaries, lo, hi, countByRound, roundHeld);
      countByRound = false;
      countFromDay(length, lo, host);
    }
  }

  /** The windows counted from the run's first start again, as {@code run} had them. */
  private void countFromRun(RunCount run, HostState host) {
    round = run.round();
    boundaries = run.boundaries();
    lo = run.lo();
    hi = run.hi();
    countByRound = run.countByRound();
    roundHeld = run.roundHeld();
    expectNextBoundary();
    plan(host);
  }

  /** The next boundary lies {@code lo} to {@code hi} after the last one found; no probe refused for it yet. */
  private void expectNextBoundary() {
    nextLower = lastLower + lo;
    nextUpper = Math.max(lastUpper + hi, nextLower);
    refusedProbes = 0;
  }

  /** The times counted from the run's first start again, not the clock's day. */
  private void backToRunStart() {
    origin = day.runStart();
    lastLower -= day.shift();
    lastUpper -= day.shift();
  }

  /**
   * The windows counted from the start of the clock's day, {@code length} long, the count from the
   * run's first start kept (the length then longer than {@code above}) for when the clock's probes
   * are refused.
   */
  private void countFromDay(double length, double above, HostState host) {
    day.keep(above);
    origin = day.start();
    lastLower += day.shift();
    lastUpper += day.shift();
    countByClock(length, host);
  }

  /**
   * The windows counted from a day's start by the clock, {@code length} long: the last boundary
   * found is the one of them it lies on, and the next probe goes at the next.
   */
  private void countByClock(double length, HostState host) {
    byClock = true;
    countByRound = false;
    fromRun = true;
    slack = 0;
    round = length;
    roundHeld = false;
    boundaries = (int) Math.floor(lastUpper / length);
    lo = lastLower / boundaries;
    hi = lastUpper / boundaries;
    expectNextBoundary();
    plan(host);
  }

  /**
   * The run began within a window and the clock does not say where: the windows are counted from the
   * boundary found, longer than {@code above} seconds, the next boundary probed for where the
   * shortest round length longer than that puts it (a probe refused there rules the length out, as
   * before); a day's is the longest.
   */
  private void unknownFound(double above, HostState host) {
    countByRound = false;
    origin += Math.round(lastUpper * NANOS);
    fromRun = false;
    slack = lastUpper - lastLower;
    boundaries = 0;
    lastLower = -slack;
    lastUpper = 0;
    lo = above;
    hi = LONGEST_SECONDS;
    round = RoundWindowLengths.shortestWithin(lo, hi);
    roundHeld = false;
    nextLower = lo - slack;
    nextUpper = hi;
    refusedProbes = 0;
    probesRefusedInARow = 0; // they ruled out the run's first start as a boundary, not the quota
    plan(host);
  }

  /**
   * The boundary searched for after the windows moved or grew began by {@code at}, after the last
   * probe refused: the windows are counted from here afresh, as from a boundary found, taken to last
   * as long as before (a window that moved kept its length), and at most from the last boundary
   * found to this one (a window that grew). A probe refused where the length before puts the next
   * boundary takes the next round length up to that.
   */
  private void anchor(double at, HostState host) {
    // The last boundary found lay between lastLower and lastUpper, this one by at.
    double span = at - lastLower;
    // Searched for, the boundary lies between the last probe refused and this start.
    countFrom(at, searching ? Math.max(0, at - nextLower) : 0);
    hi = Math.max(span, round);
    double before = round;
    if (roundRuledOut) {
      // The window grew beyond the length before: a longer round length, which a host of any length
      // between would accept at every probe, is taken only once the window is known to last near it.
      round = RoundWindowLengths.shortestWithin(before, hi);
      if (notKnownNear(before, round)) {
        round = 0;
      }
    }
    lo = roundRuledOut ? before : 0.5 * before;
    followFound(host);
  }

  /**
   * The check at {@code at}, three quarters of the round length after the window began, was
   * accepted: a window began sooner than the length puts it, so the count was longer than the
   * host's windows. Counted from this start as from a boundary found, which came after the window
   * before had lasted what it is known to last: the window lasts that long at least, and at most
   * from the window before's start to this one; a round length is taken only once it is known near.
   */
  private void tooLong(double at, HostState host) {
    double span = at - lastLower;
    countFrom(at, Math.max(0, at - (lastLower + knownLast)));
    byClock = false;
    runCount = null;
    lo = knownLast;
    hi = Math.max(span, knownLast + 0.001);
    round = RoundWindowLengths.shortestWithin(lo, hi);
    if (notKnownNear(lo, round)) {
      round = 0;
    }
    roundRuledOut = false;
    followFound(host);
  }

  /**
   * The windows counted afresh from {@code at}, a boundary found, which lies up to {@code slack} s
   * before it: the origin moved there, nothing counted from the one before.
   */
  private void countFrom(double at, double slack) {
    countByRound = false;
    probesRefusedInARow = 0;
    origin += Math.round(at * NANOS);
    fromRun = false;
    this.slack = slack;
    searching = false;
    boundaries = 0;
    lastLower = -slack;
    lastUpper = 0;
  }

  /** The window the boundary found began, the next boundary between {@code lo} and {@code hi} from it. */
  private void followFound(HostState host) {
    windowBegan();
    nextLower = lo;
    nextUpper = hi;
    refusedProbes = 0;
    roundHeld = false;
    plan(host);
  }

  /**
   * The probe at {@code at} was refused, and the next boundary is searched for within a window's
   * length of it, by probes in the middle of what is left; {@code ruledOut} when the round length
   * taken was ruled out, else it held until now.
   */
  private void search(double at, boolean ruledOut, HostState host) {
    searching = true;
    roundRuledOut = ruledOut;
    nextLower = at;
    nextUpper = at + (ruledOut ? Math.max(round, hi) : round);
    refusedProbes = 0;
    plan(host);
  }

  /** A window began with the probe just accepted: one start of it spent; maybe one more tried in it. */
  private void windowBegan() {
    phaseRefused = false;
    oneMore.windowBegan();
    acceptedInWindow = 1;
    lowered = false;
  }

  /** When the next probe goes, told to the engine as the window it counts from the last probe. */
  private void plan(HostState host) {
    checking = false;
    phaseProbe = false;
    passedOver = false;
    if (round > 0 && !searching) {
      // Where the round length puts the next boundary, counted from the origin or from the last
      // boundary found, whichever is sooner: by both, the boundary has come if the length is right.
      double next = Math.min(boundaries + 1, lastUpper / round + 1) * round;
      // The first boundary found from the run may lie up to a window before the probe that found
      // it. Where the length then puts the next boundary sooner after that probe than the run took
      // to go, the window's starts would cross it, and a wrong guess would read the host's one
      // window as two, the second's refusal lowering the quota to what crossed: that boundary is
      // passed over, the window found counted with the next. Alone only: a fleet's processes each
      // took their runs in their own time, and would pass over different boundaries.
      passedOver = !fleet && boundaries == 1 && fromRun && !countByRound
          && next - lastUpper < oneMore.burstBefore();
      if (passedOver) {
        next += round;
      }
      probeAt = Math.max(next + ROUND_MARGIN * round, lastUpper + 0.001);
      // A host accepts every probe of a count longer than its own, a window of its unused each time,
      // and nothing ever rules such a count out: while the window is not known to last three
      // quarters of the round length, a start goes there first, a check ({@link #tooLong}).
      double check = lastUpper + NEAR_ROUND * round;
      if (permits >= ROUND_MIN_PERMITS && round >= CHECKED_FROM_SECONDS && !countByRound && !passedOver
          && knownLast < NEAR_ROUND * round - 0.001 && check < probeAt - 0.001) {
        probeAt = check;
        checking = true;
      }
      double phase = phaseProbeAt();
      if (!checking && phase > 0 && phase < probeAt - 0.001) {
        probeAt = phase;
        phaseProbe = true;
      }
    } else {
      boolean wide = nextUpper - nextLower > NARROW_ENOUGH * hi && refusedProbes < MAX_REFUSED_PROBES;
      probeAt = Math.max(wide ? (nextLower + nextUpper) / 2 : nextUpper, lastUpper + 0.001);
    }
    int more = oneMore.plan(permits, round == 0, !searching && !fleet, lastUpper, lo, hi, nextLower);
    host.quota(permits + more, nanos(probeAt - lastUpper));
    // A try planned alone is told once the window's starts are taken (at once, where they are).
    armAlone(lastUpper, host);
  }

  /**
   * Where a fleet's probe goes to narrow where the windows begin, or 0 where it does not. Counted
   * from a boundary found, a probe where the round length puts the next boundary comes up to the
   * span the boundary was found in late, and is accepted there, so that each window would begin up
   * to that span late, for good. So while the span is wider than {@value #PHASE_NARROW} of a round
   * length of {@value #CHECKED_FROM_SECONDS} s or more, the probe goes in its middle, a round length
   * on, once a window: accepted, the boundary is found there; refused, this window's probe goes
   * where the length puts it, the span's lower end raised. In a fleet only, whose probe is one
   * process's (SPEC S2): for a process alone, narrowing so cost more refusals than it gave back.
   */
  private double phaseProbeAt() {
    if (!fleet || phaseRefused || slack <= 0 || round < CHECKED_FROM_SECONDS
        || lastUpper - lastLower <= PHASE_NARROW * round) {
      return 0;
    }
    double middle = (lastLower + lastUpper) / 2 + round;
    return middle > nextLower ? middle + ROUND_MARGIN * round : 0;
  }

  /**
   * Tells the engine the window ends where its try of one more goes alone, once the window has
   * taken its starts ({@link OneMoreTry#armAlone}).
   */
  private void armAlone(double now, HostState host) {
    double alone = oneMore.armAlone(now, acceptedInWindow >= permits);
    if (alone > 0) {
      host.quota(permits, nanos(alone - lastUpper));
    }
  }

  /**
   * Whether round length {@code length} (0 for none) is not yet to be taken for a window known only
   * to last longer than {@code known} seconds: a host accepts every probe of a count longer than its
   * own, so one is taken only once the window is known to last {@value #NEAR_ROUND} of it.
   */
  private static boolean notKnownNear(double known, double length) {
    return length > 0 && known < NEAR_ROUND * length;
  }

  private double seconds(long time) {
    return (time - origin) / NANOS;
  }

  private static long nanos(double seconds) {
    return Math.max(1_000_000L, Math.round(seconds * NANOS));
  }
}

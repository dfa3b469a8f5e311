package io.hostpace.rules;

import io.hostpace.Clock;
import io.hostpace.spi.HostState;
import io.hostpace.spi.LearningRule;
import org.jspecify.annotations.Nullable;

/**
 * The default learning rule: find the rate a host accepts by measuring it, settle a little under
 * it, and probe above it ever more rarely while the host stays the same.
 *
 * <h2>From the naive version up</h2>
 * The seed's rule (SPEC R4) doubles the interval on a refusal and takes a tenth off per answer.
 * Against a host that accepts one request a second it never rests: ten answers undo a doubling,
 * so it climbs back over the host's rate within seconds and is refused again, about one request
 * in five. Three ideas fix that:
 * <ol>
 *   <li><b>Measure, don't guess</b> (the AWS SDK's adaptive retry mode measures its fill rate from
 *       successes). While a host refuses some of what we send, the rate of the answers it
 *       accepts <em>is</em> its rate. The rule keeps the last {@value #SAMPLES} accepted
 *       answers; at a refusal, one over the median gap between the starts of those of the last
 *       {@value #WINDOW_SECONDS} s is the measured rate {@code m} (the median, because gaps
 *       while we had less to send say nothing of the host; the starts, because requests started
 *       together and let through by a burst the host held answer apart only by their round
 *       trips' spread, which is no rate). Two readings sharpen it. When the last
 *       {@value #SAMPLES} answers came with nothing refused between them, they came at our pace,
 *       which the host took: {@code m} is at least the pace of the last two. When refusals came
 *       between them, their gaps hold our own waits after each refusal as well: a request refused
 *       a gap {@code g} after the last accepted answer bounds the host's interval from below, the
 *       gaps accepted from above, and {@code m} is taken from the middle. In a fleet (SPEC S2),
 *       where the other processes' answers are heard too, the pace refused is the fleet's: when
 *       the answers accepted since the last drop came more than 5 % faster than this process's
 *       own pace (1 % for a refusal another process met), that is the pace the drop is taken from;
 *       a drop never leaves this process faster than it was.
 *   <li><b>Remember the limit</b> (TCP CUBIC's {@code W_max}). After a refusal the rate drops to
 *       {@code base}: {@code 0.96 m} when the host accepted slower than we sent, or took
 *       {@value #SAMPLES} in a row at our pace (then {@code m} is its rate), else a
 *       multiplicative cut ({@code × 0.9}; {@code × 0.7} when refused again within {@code K/2}). It climbs back concave to {@code wmax = 0.99 m} by time {@code K},
 *       stays flat there, then probes convex beyond: {@code wmax − (wmax − base)(1 − t/K)³} before
 *       {@code K}, {@code wmax (1 + 0.1 ((t − K)/K)³)} after. The plateau is spent where nothing is
 *       refused; the probe finds a host that got faster. {@code t} counts only the time the host
 *       was asked at the rule's pace (SPEC R16): a start that came more than twice the interval
 *       after the host's last one (another limit held it, or nothing waited) adds one interval, not
 *       the whole gap, as TCP's CUBIC moves its epoch past an idle spell.
 *   <li><b>Probe less while nothing changes</b> (Netflix's concurrency limits trust a stable
 *       measurement). A refusal met only while probing beyond the plateau, at the same measured
 *       rate, doubles {@code K} (from {@value #K_MIN_SECONDS} s up to {@value #K_MAX_SECONDS} s);
 *       a refusal soon after a drop, or a lower measured rate, sets it back to
 *       {@value #K_MIN_SECONDS} s, so a host whose rate halves is followed within a few refusals.
 *       The first probe after first contact's bracket narrowed (SPEC R12), refused at the rate it
 *       found, confirms that rate: {@code K} doubles twice there. A bracket that narrowed on a gap
 *       refused alone, within {@code 1 + }{@value #PROBE} times the gap accepted (where the probe
 *       would reach by {@code 2K}), was confirmed by that refusal: {@code K} starts at four times
 *       {@value #K_MIN_SECONDS} s, and that probe is not sent.
 *       A pace the host had before this rule's memory of it (a state file's, the fleet's) was
 *       measured already: {@code K} starts at {@value #K_INHERITED_SECONDS} s there, so a process
 *       that joins a fleet leaves the probing to the fleet.
 *       In a fleet, a probe refused beyond the plateau at the rate measured at the last drop (to
 *       {@value #SAME_PLATEAU} of it) is the fleet's own: its processes' starts are spaced
 *       together, so no client they cannot see took a share. The rate drops to the plateau, not
 *       under it, and stays there {@value #HELD_INTERVALS} of the host's intervals more before the
 *       next probe; a plateau so held that is refused says the rate measured reads the host high (a
 *       bucket's burst spent, another client), and none is held for that host again. A process
 *       alone, which cannot tell its own probe from another client's arrival, drops under it: that
 *       room is what lets processes that share a host converge.
 * </ol>
 * Only a refusal of a request started since the last drop counts (as in SPEC R4): a burst
 * refused together drops the rate once. Before anything is measured the rule starts at 4 a
 * second and doubles each second (TCP's slow start); a refusal with too few accepted answers to
 * measure halves the rate the first time and cuts it by 0.7 after. A host that accepted its first
 * request and then refused bare is not guessed at so: its interval is bracketed between the gaps
 * it refused and the gaps it accepted ({@link IntervalBracket}, SPEC R12), and the rule goes on
 * from there as from a measured rate. Every interval the rule sets is lengthened by the spread of
 * the host's last round trips, at most {@value #MOST_TRIP_MARGIN} of it (SPEC R13): the host
 * counts requests as they arrive, and two started an interval apart arrive closer after a slow
 * trip and a fast one.
 *
 * <h2>A worked example</h2>
 * A host accepts one request a second (a token bucket) and we send 1.05 a second: refused; the
 * accepted answers came 1 s apart, so {@code m = 1.0/s}; the rate drops to {@code base = 0.96/s}
 * (an interval of 1042 ms) with {@code wmax = 0.99/s}. With {@code K = 10 s} it is 0.986/s at
 * 5 s, 0.99/s at 10 s, and crosses 1.0/s at 14.7 s: refused there, beyond the plateau at the same
 * {@code m}, it doubles {@code K} to 20 s, so the next refusal comes 29 s later, then 59 s, then
 * every 88 s: fewer than 1 % of requests refused, at 97 to 99 % of the host's rate.
 *
 * <h2>After trouble</h2>
 * A host that refuses everything for a while (an outage, a maintenance window, a debt to an
 * earlier run, other clients that took its whole rate) drives the pace down cut after cut with
 * nothing to measure; when it accepts again, climbing back from there would take minutes. So when
 * a host that refused at least three times accepts a request after {@value WindowQuota#MIN_WALL_SECONDS}
 * s or more with nothing accepted, the cuts are set aside. A host that had answered
 * {@value #SAMPLES} times in the {@value #WINDOW_SECONDS} s before its trouble, and is now paced
 * under a quarter of what it was then, starts over from that pace: slow start for a host that was
 * not paced, half of it (climbing back to it) for one that was. A host with no pace before to go
 * back to, that accepted a request before its trouble (the first of a burst that put it in debt,
 * say), climbs from the pace just accepted, doubling it per answer to a request started at it
 * (TCP's slow start after a timeout), up to {@value #SLOW_START_PER_SECOND} a second and slow start
 * from there; refused on the way, it drops to the pace before the last doubling and climbs back
 * as after any drop. A host that never accepted a request is climbed as after any drop: it may be
 * one that other clients keep busy, where doubling only costs refusals (and the rate the others
 * would have had).
 *
 * <h2>A run of refusals</h2>
 * Refused again with nothing accepted since (and fewer than three accepted before: more make a
 * wall, {@link WindowQuota}'s), the host is spent by something else: another client, or a bucket
 * that counts our refusals against us. Probing it again an interval later only runs up the debt.
 * So the next start waits as many of the intervals the rule set as the run has refusals, up to
 * {@value #MOST_INTERVALS_WAITED} (SPEC R14), once: the rule keeps the interval it set as the
 * host's pace ({@link Memory#meant}), and cuts or climbs from that, not from the wait. Where the
 * drop before was to the rate a whole cycle measured (a bucket's, below), the second refusal is not
 * cut at all: that rate is the host's, and the bucket only went into debt for the first.
 *
 * <h2>A bucket of a large burst</h2>
 * A token bucket that holds ten or more and refills slower (one a second, a burst of ten) lets a
 * client through faster than it refills while its stored tokens last: the gaps its answers came at
 * read a rate above its own, and a rule paced by them is refused every few requests. For a host
 * whose first run was that large ({@value #LARGE_BURST} or more), or whose quota of a few a window
 * turned out a bucket's ({@link WindowQuota}'s try of one more, accepted alone), each cycle between
 * two drops is measured too: a bucket that refused at both ends was empty at both, so what it
 * accepted between them is what it refilled ({@link Memory#cycleRate}, SPEC R15). Where that is
 * under {@value #CYCLE_BELOW} of the gaps' rate, it is the rate measured. Nor does the wall of
 * refusals after a run ({@link WindowQuota}'s) of a host whose first run was large lower the
 * plateau: the wall's probes slow the pace to find its end, and a window of a second whose wall
 * made no quota is climbed back to the rate it took before, not to what the probes left.
 *
 * <h2>Beyond the interval</h2>
 * Two kinds of host defeat any interval. One that refuses with {@code Retry-After} beyond so many
 * at once (KGF's admission gate) is paused as asked, and then 32 start at once again: the rule
 * learns the number it holds ({@link #inFlightAfterPause}). One that counts in fixed windows
 * refuses whatever the pace until its window resets: {@link WindowQuota} recognises it and
 * follows its windows, and while it does the interval is 0; a window that takes more than the
 * quota ends it, and the host goes on from the slow start, not unpaced.
 *
 * <p>The rule holds no state of its own: what it learns of a host is a {@link Memory} kept in
 * that host's {@link HostState#memory()}, guarded by the engine's lock. Most hosts never refuse,
 * and are let go once idle, so it is kept small until needed: until the host's second answer or
 * first refusal, only its first answer is kept there; then, while nothing paces the host and it
 * refuses nothing, only the last answers ({@link Samples}). A store that cannot keep
 * it (returns null) gets the seed's slowing and a hundredth off per answer: safe, not clever.
 */
final class HostpaceRule implements LearningRule {

  static final HostpaceRule INSTANCE = new HostpaceRule();

  /**
   * The fewest answers a host's first run accepted before its first refusal for its bursts to be
   * large (a token bucket that holds ten or more, as {@code nginx}'s {@code limit_req} with a
   * {@code burst}): the gaps its tokens let through read faster than it refills, and the rate over
   * a whole cycle between two drops is measured as well ({@link Memory#cycleRate}).
   */
  static final int LARGE_BURST = WindowQuota.ROUND_MIN_PERMITS;
  /** How far under the rate the gaps measured the rate over the cycle must lie to be taken instead. */
  static final double CYCLE_BELOW = 0.9;
  static final int SAMPLES = 8;
  static final int WINDOW_SECONDS = 30;
  static final double SLOW_START_PER_SECOND = 4.0;
  static final double K_MIN_SECONDS = 10;
  /**
   * The longest time to the plateau after a drop: the longer, the fewer probes a steady host gets
   * (each a refusal where its rate has not grown), and the later a host that got faster is found.
   */
  static final double K_MAX_SECONDS = 120;
  /** The time to the plateau of a pace read from a state file or the fleet, measured before by others. */
  static final double K_INHERITED_SECONDS = 60;
  static final double UNDER_MEASURED = 0.96;
  static final double PLATEAU = 0.99;
  static final double BETA = 0.9;
  static final double BETA_AGAIN = 0.7;
  static final double SLOW_START_DOUBLING_SECONDS = 1;
  static final double PROBE = 0.1;
  /** In a fleet, the host's intervals spent at the plateau after a probe refused at the rate measured before. */
  static final double HELD_INTERVALS = 40;
  /** How near two plateaus are, as a fraction, for a fleet's refused probe to have met the same rate. */
  static final double SAME_PLATEAU = 0.01;
  /**
   * The most the spread of a host's round trips lengthens an interval the rule sets, as a share of
   * it (SPEC R13): enough for a network's jitter at hosts of a few a second, little at fast ones.
   */
  static final double MOST_TRIP_MARGIN = 0.03;
  /**
   * How many times a dropped quota's rate the gaps of its windows' answers must read to be taken
   * for its bursts rather than a rate (SPEC R11): processes that share a host read their share's
   * windows near their rate, a bucket in debt read as windows reads its bursts' milliseconds.
   */
  static final double BURSTS_OVER_QUOTA = 4;
  /** The most intervals a run of refusals makes the next start wait (SPEC R14). */
  static final int MOST_INTERVALS_WAITED = 3;
  static final long MAX_INTERVAL = 60_000_000_000L;
  static final long FORGOTTEN_BELOW = 1_000_000L;

  private static final double NANOS = 1e9;

  private HostpaceRule() {}

  /**
   * What the rule keeps of a host that has only accepted since its memory was made (most hosts):
   * the last answers and round trips, and the run of accepted answers they make. An accepted answer
   * writes nothing else while nothing paces the host; the rest of a {@link Memory} is read only
   * after a refusal, a pause, or a pace, so a host whose memory is made from its answers holds
   * this, and its {@code Memory} is made from it (taking its rings) when one is needed. Guarded by
   * the engine's lock, as the host's state is.
   */
  static class Samples {
    /**
     * Three rings of {@value #SAMPLES} in one array, so that a host holds and writes one object for
     * them: from {@link #ANSWERS}, the times of the last accepted answers ({@code next} is the
     * oldest once full); from {@link #STARTS}, when their requests started, beside them; from
     * {@link #TRIPS}, the round trips of the last accepted answers in nanoseconds, a ring of its
     * own ({@code tripNext}, SPEC R13).
     */
    final long[] rings;
    static final int ANSWERS = 0;
    static final int STARTS = SAMPLES;
    static final int TRIPS = 2 * SAMPLES;
    int count;
    int next;
    /** Which of the accepted answers another process of the fleet met, a bit for each place of the ring. */
    int heardAnswers;
    /** Whether another process of the fleet told of this host (SPEC S2): its starts are spaced with this one's. */
    boolean fleetHeard;
    int tripCount;
    int tripNext;
    /** Accepted answers since the last refusal. */
    int acceptedInARow;
    /** The run of accepted answers a {@link WindowQuota} starts from, until the first refusal makes one. */
    int runAccepted;
    /**
     * Whether a learned window quota's try of one more was accepted part way into a window: the
     * host is a token bucket (SPEC R11), measured over its cycles (SPEC R15).
     */
    boolean refilled;
    long runFirstStart;
    long runLastAnswer;
    /** When the last accepted request started; {@code Long.MIN_VALUE} before one. */
    long lastAcceptedStart = Long.MIN_VALUE;
    /** When the in-flight limit last changed: at first, when the memory was made. */
    long limitChangedAt;

    Samples() {
      rings = new long[3 * SAMPLES];
    }

    /** The samples {@code from} kept, taken over: their rings are this one's from now on. */
    Samples(Samples from) {
      rings = from.rings;
      count = from.count;
      next = from.next;
      heardAnswers = from.heardAnswers;
      fleetHeard = from.fleetHeard;
      tripCount = from.tripCount;
      tripNext = from.tripNext;
      acceptedInARow = from.acceptedInARow;
      runAccepted = from.runAccepted;
      runFirstStart = from.runFirstStart;
      runLastAnswer = from.runLastAnswer;
      lastAcceptedStart = from.lastAcceptedStart;
      limitChangedAt = from.limitChangedAt;
    }

    /**
     * Counts, in samples made just now, the host's first answer, kept alone until now, as an
     * accepted answer would have.
     */
    void first(FirstAnswer first) {
      answered(first.answeredAt(), first.startedAt(), first.heard());
      acceptedInARow++;
      addToRun(first.answeredAt(), first.startedAt());
      acceptedStart(first.startedAt());
    }

    /**
     * An accepted answer at {@code now} to a request started at {@code startedAt}, to a host that
     * nothing paces and that has not refused since its memory was made: all that such an answer
     * changes of a {@link Memory}, none of which the rest of one reads before a refusal, a pause or
     * a pace.
     */
    void acceptedUnpaced(long now, long startedAt, boolean heard) {
      sample(now, startedAt, heard);
      acceptedInARow++;
      addToRun(now, startedAt);
      acceptedStart(startedAt);
    }

    /** Counts an accepted answer in the rings: when it came, when its request started, its round trip. */
    void sample(long now, long startedAt, boolean heard) {
      answered(now, startedAt, heard);
      trip(now - startedAt);
    }

    /** Counts an accepted answer in the run a {@link WindowQuota} starts from, until a refusal makes one. */
    void addToRun(long now, long startedAt) {
      if (runAccepted++ == 0) {
        runFirstStart = startedAt;
      }
      runLastAnswer = now;
    }

    /**
     * Takes {@code startedAt} as the last accepted request's start, unless a later one was accepted
     * already; the last accepted start before it ({@code Long.MIN_VALUE} for none).
     */
    long acceptedStart(long startedAt) {
      long previous = lastAcceptedStart;
      if (previous == Long.MIN_VALUE || startedAt - previous > 0) {
        lastAcceptedStart = startedAt;
      }
      return previous;
    }

    /** An accepted answer's round trip, in nanoseconds. */
    void trip(long nanos) {
      rings[TRIPS + tripNext] = Math.max(0, nanos);
      tripNext = (tripNext + 1) % SAMPLES;
      if (tripCount < SAMPLES) {
        tripCount++;
      }
    }

    /**
     * Counts an accepted answer at {@code now} to a request started at {@code startedAt}: this
     * process's own, or one another process met ({@code heard}).
     */
    void answered(long now, long startedAt, boolean heard) {
      rings[ANSWERS + next] = now;
      rings[STARTS + next] = startedAt;
      heardAnswers = heard ? heardAnswers | 1 << next : heardAnswers & ~(1 << next);
      fleetHeard |= heard;
      next = (next + 1) % SAMPLES;
      if (count < SAMPLES) {
        count++;
      }
    }
  }

  /** What the rule knows of one host. Guarded by the engine's lock, as the host's state is. */
  static final class Memory extends Samples implements LearningRule.Paced {
    /** A quota counted in fixed windows, when the host shows one: made on the first refusal, from the run. */
    @Nullable WindowQuota window;

    Memory() {}

    /** A memory made from what {@code samples} kept; the rest as a memory made with them would hold. */
    Memory(Samples samples) {
      super(samples);
    }

    WindowQuota window() {
      WindowQuota quota = window;
      if (quota == null) {
        quota = window = new WindowQuota(runAccepted, runFirstStart, runLastAnswer);
      }
      return quota;
    }
    /** When the rate last dropped; {@code rate(t)} counts from here. */
    long epoch;
    /**
     * How long since the drop at {@link #idleAt} (that epoch only) this process did not try the
     * rule's pace: its starts came further apart than it allowed, as nothing waited or another
     * limit held them (SPEC R16). The climb counts only the time the pace was tried.
     */
    long idle;
    long idleAt;
    /**
     * When the last answered request started, accepted or refused, this process's or (in a fleet)
     * another's; {@code Long.MIN_VALUE} before one.
     */
    long lastStart = Long.MIN_VALUE;
    /**
     * The cycle since this process's own last drop (SPEC R15): the start of the request whose
     * refusal began it, this process's answers accepted since, and the interval the drop set (0
     * when the cycle says nothing: no drop of this process's own since the opening).
     */
    long cycleFrom;
    int cycleAccepted;
    long cycleInterval;
    /** Whether the last drop took the rate its cycle measured (SPEC R15), until the next refusal. */
    boolean cycleDrop;

    /**
     * The rate a token bucket refilled at over the cycle that a refusal of the request started at
     * {@code startedAt} ends, per second, or NaN where the cycle says nothing of it. A bucket that
     * refused at both ends of the cycle was empty at both, so what it accepted between is what it
     * refilled, however many of its tokens a burst let through at our pace in between. That holds
     * while this process kept asking (no gap of the cycle over twice its interval on average, at
     * least two accepted) and the bucket could not have filled up and thrown tokens away while
     * this process went slower than that rate (from the drop's pace, at most as many as the
     * host's first run accepted: its burst). For a host shown to be a bucket ({@link #refilled}),
     * whose pace climbed from the drop's past that rate to {@code paceInterval}'s, only the part of
     * the climb under the rate piled tokens up: taken as a straight climb, half the rate's excess
     * over the drop's pace, for the share of the cycle the climb took to reach it. A host of a
     * large first run may count in windows of a second instead, which throw each window's unused
     * rest away whenever the pace is under their rate: there the whole cycle is taken at the drop's
     * pace.
     */
    double cycleRate(long startedAt, long paceInterval) {
      long span = startedAt - cycleFrom;
      boolean keptAsking = span > 0 && span <= 2 * (cycleAccepted + 1) * cycleInterval;
      if (cycleInterval == 0 || cycleAccepted < 2 || !keptAsking) {
        return Double.NaN;
      }
      double rate = cycleAccepted * NANOS / span;
      double slowest = NANOS / cycleInterval;
      double fastest = paceInterval > 0 ? NANOS / paceInterval : 0;
      double excess = rate - slowest;
      double piled = refilled && fastest > rate
          ? excess * excess / (fastest - slowest) * span / NANOS / 2
          : excess * span / NANOS;
      return piled > runAccepted ? Double.NaN : rate;
    }
    /** Whether the pace is one the host was paced at before this memory (a store's, the fleet's), not yet dropped from. */
    boolean inherited;
    /** The rate right after the last drop, per second. */
    double base;
    /** The rate the host was last measured to accept, a little under; 0 before a measurement (slow start). */
    double wmax;
    /** Seconds from the drop to the plateau at {@code wmax}. */
    double k = K_MIN_SECONDS;
    /** Seconds at the plateau after {@code K}, for the drop at {@link #heldAt} only: a fleet's (SPEC S3). */
    double hold;
    long heldAt;
    /** Whether a plateau held so was refused: the rate measured reads this host high, so none is held again. */
    boolean heldRefused;
    /**
     * The current trouble: refusals since the host last accepted {@value #SAMPLES} in a row; the
     * rate before the first of them; and whether the host had answered {@value #SAMPLES} times in
     * the {@value #WINDOW_SECONDS} s before it. (The wall of refusals since the last accepted
     * answer is the {@link WindowQuota}'s.)
     */
    int troubleRefusals;
    double rateBefore;
    boolean healthyBefore;
    /** While climbing back after trouble with no pace before: the pace now, doubled per accepted answer; 0 when not. */
    double ramp;
    /** This process's own refusals since the host last accepted an answer (SPEC R14). */
    int refusedInARow;
    /**
     * The interval the rule set at the refusal whose start waits a run's length (SPEC R14), read
     * back as the host's pace at the next answer or refusal; 0 when none.
     */
    long meant;
    /**
     * How much longer than the intervals the rule set the run's waits held the host (SPEC R14),
     * nanoseconds: time in which it was not asked, which says nothing of how long it refused.
     */
    long waitedLonger;
    /** First contact's bracket of the host's interval (SPEC R12), while it narrows; null when not. */
    @Nullable IntervalBracket bracket;
    /**
     * The {@link #epoch} of the drop the bracket made as it narrowed (SPEC R12): while no other drop
     * came since, a probe beyond the plateau refused at the same rate confirms what it found.
     */
    long narrowedAt = Long.MIN_VALUE;

    /**
     * How many were in flight when the last accepted requests started, a ring; made on the first
     * refusal with {@code Retry-After}, as only such refusals read it.
     */
    int @Nullable [] acceptedInFlight;
    int acceptedCount;
    int acceptedNext;
    /** Seconds at the in-flight limit, every request accepted, before one more is tried. */
    double limitProbe = K_MIN_SECONDS;
    /** The limit a probe went up from, while its answer is awaited; 0 when not probing. */
    int probedFrom;
    /** When a refusal with {@code Retry-After} was last heard, once {@link #acceptedInFlight} is made. */
    long lastPause;
    /**
     * For a host that pauses what is over its rate (SPEC R9): whether a pause counted yet, when the
     * last that counted was asked for and until when, and the answers accepted since.
     */
    boolean pauseCounted;
    long pausedAt;
    long pausedUntil;
    int acceptedSincePause;

    void accepted(int inFlightAtStart) {
      int[] acceptedInFlight = this.acceptedInFlight;
      if (acceptedInFlight == null) {
        return;
      }
      acceptedInFlight[acceptedNext] = inFlightAtStart;
      acceptedNext = (acceptedNext + 1) % SAMPLES;
      if (acceptedCount < SAMPLES) {
        acceptedCount++;
      }
    }

    /** The most requests in flight with which one of the last accepted ones started; 0 for none. */
    int mostAccepted() {
      int most = 0;
      int[] acceptedInFlight = this.acceptedInFlight;
      for (int i = 0; acceptedInFlight != null && i < acceptedCount; i++) {
        most = Math.max(most, acceptedInFlight[i]);
      }
      return most;
    }

    /**
     * Drops the pace to {@code base} a second at {@code now}, to climb back to {@code wmax} by
     * {@value #K_MIN_SECONDS} s, as after any drop; the interval of that pace.
     */
    long dropTo(double base, double wmax, long now) {
      cycleInterval = 0;
      this.base = base;
      this.wmax = wmax;
      k = K_MIN_SECONDS;
      epoch = now;
      return withMargin(toInterval(base));
    }

    /**
     * Paces a host not paced now at {@code base} a second from {@code now}, doubled each second
     * until the next pause or refusal (SPEC R9, R11); the interval of that pace.
     */
    long slowStartAt(double base, long now) {
      this.base = base;
      wmax = 0;
      epoch = now;
      ramp = 0;
      return withMargin(toInterval(base));
    }

    /**
     * Paces the host at the interval {@code next}, in nanoseconds, from {@code now}, as its bracket
     * asks; that interval, with the margin of the host's round trips ({@link #withMargin}).
     */
    long pacedAt(long next, long now) {
      base = NANOS / next;
      epoch = now;
      return withMargin(next);
    }

    /**
     * The interval {@code next} the rule set at a refusal of its own, lengthened once when the
     * refusal is the second or later since the host last accepted (SPEC R14): a run of refusals at
     * a pace the host took before says another client takes its tokens now (or a bucket counts
     * our refusals against us), and the next start waits as many intervals as the run has
     * refusals, up to {@value #MOST_INTERVALS_WAITED}, so that the host has refilled by then.
     * Only the next start waits: the rule keeps {@code next} as the pace it meant, so the waits
     * do not compound into the cuts.
     */
    long waitOnce(long next) {
      if (refusedInARow < 2 || next <= 0 || next >= MAX_INTERVAL) {
        return next;
      }
      meant = next;
      long waited = Math.min(MAX_INTERVAL, next * Math.min(refusedInARow, MOST_INTERVALS_WAITED));
      waitedLonger += waited - next;
      return waited;
    }

    /**
     * The host's pace, given the interval it is held to now: the interval the rule meant while a
     * run's wait lasts (SPEC R14), else {@code interval} itself. The wait ends here.
     */
    long endWait(long interval) {
      long pace = pace(interval);
      meant = 0;
      return pace;
    }

    /**
     * The host's pace, given the interval the rule set last: the interval it meant while a run's wait
     * lasts (SPEC R14), which a store keeps and a fleet shares instead of the wait; else
     * {@code interval} itself.
     */
    @Override
    public long pace(long interval) {
      return meant > 0 ? meant : interval;
    }

    /**
     * {@code interval} lengthened by the spread of the host's last round trips, the longest less the
     * shortest, at most {@value #MOST_TRIP_MARGIN} of it (SPEC R13): the host counts its requests
     * as they arrive, and two started an interval apart arrive that much closer when the first was
     * slow on its way and the second fast. 0 and the longest interval are left as they are.
     */
    long withMargin(long interval) {
      if (interval <= 0 || interval >= MAX_INTERVAL || tripCount < 2) {
        return interval;
      }
      long shortest = Long.MAX_VALUE;
      long longest = 0;
      for (int i = 0; i < tripCount; i++) {
        shortest = Math.min(shortest, rings[TRIPS + i]);
        longest = Math.max(longest, rings[TRIPS + i]);
      }
      long margin = Math.min(longest - shortest, (long) (MOST_TRIP_MARGIN * interval));
      return Math.min(MAX_INTERVAL, interval + margin);
    }

    /**
     * The accepted answers' rate, per second, or NaN: one over the median gap between the starts
     * of the answers of the last {@value #WINDOW_SECONDS} s (the lower median, at least 3
     * answers). The median, not the mean, because the gaps while we sent slower than the host
     * accepts say nothing of its rate, and the first answers of a refused burst come together. The
     * starts, not the answers: a host that spaces what it accepts spaces their arrivals, and the
     * answers follow a round trip later, but requests started together that a burst it held let
     * through answer apart by as much as their round trips differ, which would read as a rate.
     */
    double measured(long now) {
      return medianGapRate(now, false, 2);
    }

    /**
     * The rate of the answers accepted since the last drop, per second, or NaN with fewer than
     * four: the median gap between them, as {@link #measured}.
     */
    double sinceDrop(long now) {
      return medianGapRate(now, true, 3);
    }

    /**
     * One over the lower median gap between the starts of the accepted answers of the last
     * {@value #WINDOW_SECONDS} s, per second; with {@code sinceEpoch}, only those answered after
     * {@link #epoch}. NaN with fewer than {@code fewestGaps} gaps, or a median under a millisecond.
     *
     * <p>In a fleet an answer another process met is heard a trip through the fleet after it came,
     * this process's own at once: between an answer of each kind the gap is that trip too long or
     * too short, and with two processes taking turns every other gap is, so the lower median would
     * be the short one, a rate above the host's. So each gap is taken from an answer back to the
     * last one before it of the same kind, both as late, over the answers between: a process
     * alone, whose answers are all its own, has the gaps between them as they came.
     */
    private double medianGapRate(long now, boolean sinceEpoch, int fewestGaps) {
      int answered = 0;
      for (; answered < count; answered++) {
        long at = answerAgo(answered);
        if ((sinceEpoch && at - epoch <= 0) || now - at > WINDOW_SECONDS * 1_000_000_000L) {
          break;
        }
      }
      long[] gaps = new long[SAMPLES];
      int n = 0;
      for (int i = 0; i < answered - 1; i++) {
        long gap = gapBefore(i, answered);
        if (gap >= 0) {
          gaps[n++] = gap;
        }
      }
      if (n < fewestGaps) {
        return Double.NaN;
      }
      java.util.Arrays.sort(gaps, 0, n);
      long median = gaps[(n - 1) / 2];
      return median < 1_000_000L ? Double.NaN : NANOS / median;
    }

    /**
     * The gap before the start of the accepted answer {@code i} (0: the last), of the first
     * {@code answered}: from the start of the last answer before it of the same kind, this
     * process's own or another's, over the answers between them (see {@link #medianGapRate}); -1
     * when there is none of its kind. Another process's start is heard as late as its answer.
     */
    private long gapBefore(int i, int answered) {
      boolean heard = heardAgo(i);
      for (int j = i + 1; j < answered; j++) {
        if (heardAgo(j) == heard) {
          return (startAgo(i) - startAgo(j)) / (j - i);
        }
      }
      return -1;
    }

    /** Whether the accepted answer {@code i} before the last one (0: the last) was another process's. */
    private boolean heardAgo(int i) {
      return (heardAnswers >>> ago(i) & 1) != 0;
    }

    /** The time of the accepted answer {@code i} before the last one (0: the last). */
    long answerAgo(int i) {
      return rings[ANSWERS + ago(i)];
    }

    /** When the request of the accepted answer {@code i} before the last one started (0: the last). */
    private long startAgo(int i) {
      return rings[STARTS + ago(i)];
    }

    /** Where in the rings the accepted answer {@code i} before the last one is (0: the last). */
    private int ago(int i) {
      return (next - 1 - i + SAMPLES) % SAMPLES;
    }

    /**
     * One over the gap before the start of the last accepted answer, from the last one of its kind
     * as {@link #medianGapRate} takes it; 0 when they started together or there is none.
     */
    double lastGapRate() {
      long gap = gapBefore(0, count);
      return gap < 1_000_000L ? 0 : NANOS / gap;
    }

    /**
     * The host's rate at a refusal {@code now}, from {@code m}, the accepted answers' rate, when
     * refusals came between those answers (their gaps then hold our own waits after a refusal too,
     * and make the host look slower than it is): a host that refused a request a gap {@code g}
     * after the last accepted answer, and accepted them {@code 1/m} apart, has an interval between
     * the two, and the middle is taken. A gap under half of {@code 1/m} (a refused burst) bounds
     * nothing, and one beyond it says the host changed or is shared: {@code m} as it is then.
     */
    double bracketed(double m, long now) {
      double refusedGap = (now - answerAgo(0)) / NANOS;
      return refusedGap >= 0.5 / m && refusedGap < 1 / m ? 2 / (refusedGap + 1 / m) : m;
    }

    /**
     * The time to the plateau after a drop: doubled (up to {@value #K_MAX_SECONDS} s) when refused
     * only beyond the plateau at the same measured rate; back to {@value #K_MIN_SECONDS} s when
     * refused soon after the last drop or at a different rate; else as it was.
     */
    double nextK(boolean beyondPlateau, boolean same, boolean soon) {
      return beyondPlateau && same ? Math.min(K_MAX_SECONDS, 2 * k) : soon || !same ? K_MIN_SECONDS : k;
    }

    /**
     * This process's own request, answered, started at {@code startedAt} while the rule paced the
     * host at {@code interval}, after waits of a run of refusals {@code waited} longer (SPEC R14).
     * Where it came more than twice the interval after the last one (or the drop), beyond those
     * waits, the time beyond one interval was not spent at the rule's pace, and the climb does not
     * count it (SPEC R16), as TCP's CUBIC moves its epoch past an idle spell.
     */
    void started(long startedAt, long interval, long waited) {
      long last = lastStart;
      tried(startedAt);
      if (interval <= 0 || last == Long.MIN_VALUE) {
        return;
      }
      long gap = startedAt - (last - epoch > 0 ? last : epoch) - waited;
      if (gap > 2 * interval) {
        if (idleAt != epoch) {
          idleAt = epoch;
          idle = 0;
        }
        idle += gap - interval;
      }
    }

    /** A request started at {@code startedAt} was answered, whatever the answer, this process's or another's. */
    void tried(long startedAt) {
      if (lastStart == Long.MIN_VALUE || startedAt - lastStart > 0) {
        lastStart = startedAt;
      }
    }

    /** Seconds at the plateau after {@code K} since the last drop: {@link #hold} if that drop set it, else none. */
    double held() {
      return heldAt == epoch ? hold : 0;
    }

    /**
     * The rate at {@code now}, per second: concave from {@code base} up to {@code wmax} at
     * {@code K}, flat there (for {@link #held()} more), then convex beyond, {@value #PROBE} of
     * {@code wmax} more {@code K} after.
     */
    double rate(long now) {
      double t = Math.max(0, (now - epoch - (idleAt == epoch ? idle : 0)) / NANOS);
      if (wmax == 0) {
        return base * Math.pow(2, Math.min(t / SLOW_START_DOUBLING_SECONDS, 60));
      }
      if (t < k) {
        double x = 1 - t / k;
        return wmax - (wmax - base) * x * x * x;
      }
      double beyond = t - k - held();
      if (beyond <= 0) {
        return wmax;
      }
      double x = beyond / k;
      return wmax * (1 + PROBE * x * x * x);
    }
  }

  @Override
  public long onRefusal(long now, long startedAt, HostState host) {
    return refused(now, startedAt, host, false, null);
  }

  /**
   * As {@link #onRefusal(long, long, HostState)}; the time of day read from {@code clock} where a
   * quota's windows may be counted by it (SPEC R11).
   */
  @Override
  public long onRefusal(long now, long startedAt, HostState host, Clock clock) {
    return refused(now, startedAt, host, false, clock);
  }

  /**
   * A refusal another process of the fleet met (SPEC S2) is of the fleet's pace, which the fastest
   * of its processes sets, not of this one's: the drop is taken from the pace its answers came at
   * since the last drop whenever that was faster than this process's own; and a pace this process
   * took from the fleet, with nothing of its own measured yet, drops a little under the pace
   * refused, as the others do, where a pace of its own would be cut.
   */
  @Override
  public long onRefusalHeard(long now, long startedAt, HostState host) {
    return refused(now, startedAt, host, true, null);
  }

  private long refused(long now, long startedAt, HostState host, boolean heard, @Nullable Clock clock) {
    long waiting = host.interval();
    Memory memory = memoryOf(host, now);
    if (memory == null) {
      return onRefusal(now, startedAt, waiting, host.intervalChangedAt());
    }
    long interval = memory.endWait(waiting); // a run's wait is not the pace (SPEC R14)
    memory.fleetHeard |= heard;
    // A host of large bursts, or one shown to be a bucket, is measured over the cycle too (SPEC
    // R15); in a fleet the others' starts spend its tokens as well.
    boolean largeBursts = memory.runAccepted >= LARGE_BURST;
    boolean cycles = (largeBursts || memory.refilled) && !heard && !memory.fleetHeard;
    double cycle = cycles ? memory.cycleRate(startedAt, interval) : Double.NaN;
    memory.tried(startedAt);
    if (!heard) {
      memory.refusedInARow++;
    }
    boolean acceptedOurPace = memory.acceptedInARow >= SAMPLES;
    memory.acceptedInARow = 0;
    if (memory.troubleRefusals == 0) {
      memory.rateBefore = interval > 0 ? NANOS / interval : Double.POSITIVE_INFINITY;
      memory.healthyBefore = memory.count == SAMPLES
          && now - memory.rings[Memory.ANSWERS + memory.next] <= WINDOW_SECONDS * 1_000_000_000L;
    }
    memory.troubleRefusals++;
    memory.window().fleet(memory.fleetHeard);
    memory.window().clock(clock);
    if (memory.window().refused(now, startedAt, heard, host)) {
      return 0; // the quota spaces the starts
    }
    long wall = memory.window().wallInterval(now);
    IntervalBracket bracket = memory.bracket;
    if (bracket != null && heard) {
      memory.bracket = null; // another process's refusal: this process's gaps say nothing of it
    } else if (bracket != null) {
      long next = bracket.refused(startedAt, memory.lastAcceptedStart, startedAt - memory.epoch < 0, interval);
      if (next == IntervalBracket.SAME) {
        return interval;
      }
      if (next == IntervalBracket.GIVEN_UP) {
        // Paced as the rule's own cuts would have paced it by now, climbing back to the pace before.
        memory.bracket = null;
        return memory.dropTo(bracket.shadow, Math.max(bracket.shadowBefore, bracket.shadow * 1.03), now);
      }
      if (next == IntervalBracket.FAST) {
        memory.bracket = null;
      } else if (next > 0) {
        return memory.pacedAt(next, now);
      }
      // FAST and RULE: the rule's own way, below
    }
    if (interval > 0 && startedAt - memory.epoch < 0) {
      // Went at the pace before the last drop: that drop already answered it, and its wait goes on.
      if (interval != waiting) {
        memory.meant = interval;
      }
      return waiting;
    }
    boolean afterCycleDrop = memory.cycleDrop;
    memory.cycleDrop = false;
    if (afterCycleDrop && !heard && memory.refusedInARow == 2 && interval > 0) {
      // Refused again right after a drop to the rate a whole cycle measured, nothing accepted
      // between: that rate is the bucket's own, and the bucket went into debt for the refusal
      // before (it counts refusals against the client). A cut and a sooner probe would only run
      // the debt up again: the pace is kept, K with it, and the next start waits two intervals
      // (SPEC R14).
      return memory.waitOnce(interval);
    }
    double current = interval > 0 ? NANOS / interval : Double.POSITIVE_INFINITY;
    double own = current;
    // In a fleet the others' starts are heard too: answers accepted since the drop, faster than
    // this process's own pace, were carried by processes that went faster, and the refusal is of
    // that pace (beyond its noise; any faster at all for a refusal another process met). Alone, no
    // answer comes faster than the starts, so this never holds.
    double carried = memory.sinceDrop(now);
    if (carried > 1.05 * current || heard && carried > 1.01 * current) {
      current = carried;
    }
    if (memory.ramp > 0) {
      // Refused while climbing after trouble: the pace before the last doubling was accepted and
      // this one was not. Drop to the accepted one and climb back as after any drop.
      memory.ramp = 0;
      memory.count = 0;
      memory.next = 0;
      return memory.dropTo(Math.min(current / 2, own), current, now);
    }
    double m = memory.measured(now);
    boolean fewAccepted = memory.count <= IntervalBracket.MOST_ACCEPTED_BEFORE;
    double dropped = memory.window().droppedRate();
    boolean droppedBursts = Double.isInfinite(current) && dropped > 0 && m > BURSTS_OVER_QUOTA * dropped;
    if (droppedBursts && !heard && !memory.fleetHeard) {
      // A quota whose windows' bursts read many times its rate, ended by a refusal of one of them:
      // a bucket whose debt's walls read as windows, as one its quota's try showed. Measured over
      // its cycles from here (SPEC R15), which its stored tokens do not read as rate.
      memory.refilled = true;
    }
    if (Double.isInfinite(current) && (fewAccepted || memory.window().droppedByProbes() || droppedBursts)) {
      // Nothing paced yet, and the gaps measured are no rate: up to three accepted, the opening's
      // round trips or a burst the host let through (SPEC R12), bracketed as after one; or the
      // bursts of a quota's windows, which its probes refused on and on just dropped (SPEC R11; in
      // a fleet, heard a fleet's trip apart, they read far faster than the host went), or which
      // a refusal of one of those bursts just dropped where their gaps read many times what the
      // windows let through (a bucket that counts refusals, its debt's walls read as windows:
      // paced by those gaps, it is refused again and again, deeper into debt).
      m = Double.NaN;
    }
    double since = (now - memory.epoch) / NANOS;
    boolean soon = interval > 0 && since < memory.k / 2;
    double target;
    double wmax;
    boolean atPlateau = false;
    if (heard && memory.inherited && !Double.isInfinite(current)) {
      // The fleet's pace, taken as this process joined, refused in another process while this one
      // still goes at it: its own answers came at that pace and say only that the host took it (a
      // few of them, soon after it joined, would read as a drop refused again soon, and cut). A
      // little under the pace refused, as the fleet's others drop, not cut.
      target = UNDER_MEASURED * current;
      wmax = PLATEAU * current;
    } else if (!Double.isNaN(m)) {
      if (acceptedOurPace) {
        // The last answers came at our pace, nothing refused between them: the host took that pace.
        m = Math.max(m, memory.lastGapRate());
      } else if (m < 0.97 * current) {
        m = memory.bracketed(m, now);
      }
      if (cycle < CYCLE_BELOW * m) {
        // The gaps read the tokens of a large burst as rate: the bucket refilled slower (SPEC R15).
        m = cycle;
        memory.cycleDrop = true;
      }
      // Accepted slower than sent, or a run at our pace: m is the host's rate. Else m is our own
      // pace, and the host's is only known to be under it: cut by β.
      target = m < 0.97 * current || acceptedOurPace
          ? UNDER_MEASURED * Math.min(m, current)
          : Math.min(UNDER_MEASURED * m, (soon ? BETA_AGAIN : BETA) * current);
      wmax = PLATEAU * Math.min(m, current);
      boolean beyondPlateau = interval > 0 && since >= memory.k + memory.held();
      boolean same = memory.wmax > 0 && wmax >= 0.95 * memory.wmax;
      // Refused on a plateau held (below), the host took less than the rate measured (a bucket's
      // burst spent in the measurement, or another client): its probes drop under it from then on.
      memory.heldRefused |= memory.held() > 0 && !beyondPlateau;
      // A fleet's probe refused where the last one was (SPEC S3): the fleet's processes are spaced
      // together, so no client it cannot see took a share, and the rate drops only to the plateau,
      // held there a while before the next probe. A process alone drops under it instead, as that
      // room is what lets processes that share a host unseen converge.
      atPlateau = memory.fleetHeard && !memory.heldRefused && beyondPlateau && same
          && Math.abs(wmax / memory.wmax - 1) <= SAME_PLATEAU;
      memory.k = memory.nextK(beyondPlateau, same, soon);
      if (atPlateau) {
        target = Math.max(target, wmax);
        memory.hold = HELD_INTERVALS / Math.min(m, current);
        memory.heldAt = now;
      }
      if (memory.epoch == memory.narrowedAt && beyondPlateau && same) {
        // The first probe confirms the bracket: the rate is known twice over, so the time to the
        // plateau doubles once more (SPEC R12).
        memory.k = Math.min(K_MAX_SECONDS, 2 * memory.k);
      }
    } else if (Double.isInfinite(current)) {
      target = SLOW_START_PER_SECOND;
      wmax = 0;
      if (!heard && memory.count > 0 && memory.count <= IntervalBracket.MOST_ACCEPTED_BEFORE) {
        memory.bracket = new IntervalBracket(now, SLOW_START_PER_SECOND, memory.count == 1);
      }
    } else {
      // Refused with too little accepted to measure: cut (halve the first time), as CUBIC does.
      target = (memory.wmax == 0 ? 0.5 : BETA_AGAIN) * current;
      wmax = current;
      memory.k = K_MIN_SECONDS;
    }
    if (wall > 0 && NANOS / wall < target) {
      target = NANOS / wall; // a wall after a run: probe for its end at twice the time each
    }
    if (wall > 0 && largeBursts) {
      // A wall of a host of large bursts (a window of a second that a burst spent) says nothing of
      // the rate it took before: the plateau stays, and the climb after the wall goes back to it
      // (SPEC R15).
      wmax = Math.max(wmax, memory.wmax);
    }
    if (target > own) {
      // A refusal never speeds this process up. The fleet's answers can come faster than any of
      // its processes goes (a bucket with a burst to spend, answers bunched by their latency), and
      // a drop under that pace would take the fastest process beyond the pace just refused; a
      // slower one climbs toward the fleet's plateau from its own pace instead.
      target = own;
    }
    memory.base = target;
    memory.wmax = wmax == 0 ? 0 : Math.max(wmax, atPlateau ? target : target * 1.03);
    memory.epoch = now;
    memory.inherited = false;
    long next = memory.withMargin(toInterval(target));
    // The next cycle begins; the opening's drop begins none (its slow start went under any rate).
    memory.cycleFrom = startedAt;
    memory.cycleAccepted = 0;
    memory.cycleInterval = heard || Double.isInfinite(current) ? 0 : next;
    return heard || wall > 0 ? next : memory.waitOnce(next);
  }

  @Override
  public long onAnswer(long now, long startedAt, HostState host) {
    return accepted(now, startedAt, host, false);
  }

  /**
   * An answer another process of the fleet met (SPEC S2) teaches as this process's own would, but
   * that it came a trip through the fleet before it was heard: the rate measured from the answers
   * takes its gaps from answers of one kind (see {@code Memory.medianGapRate}).
   */
  @Override
  public long onAnswerHeard(long now, long startedAt, HostState host) {
    return accepted(now, startedAt, host, true);
  }

  private long accepted(long now, long startedAt, HostState host, boolean heard) {
    long interval = host.interval();
    if (interval == 0 && host.memory() == null) {
      // A host's first answer, nothing refused: kept small, as most hosts never refuse and are let
      // go once idle; the memory is made from it when a second answer or a refusal comes.
      FirstAnswer first = new FirstAnswer(startedAt, now, heard);
      host.memory(first);
      if (host.memory() == first) {
        return 0;
      }
    }
    Object kept = host.memory();
    if (interval == 0 && (kept instanceof FirstAnswer || kept instanceof Samples && !(kept instanceof Memory))) {
      // Nothing paces the host and it has not refused since its memory was made: the answer is
      // counted in its samples, and its whole memory waits for a refusal, a pause or a pace.
      Samples samples = samplesOf(host, kept, now);
      if (samples != null) {
        samples.acceptedUnpaced(now, startedAt, heard);
        return 0;
      }
    }
    Memory memory = memoryOf(host, now);
    if (memory == null) {
      return onAnswer(now, startedAt, interval, host.intervalChangedAt());
    }
    interval = memory.endWait(interval); // paced from the pace the run's wait was for (SPEC R14)
    memory.refusedInARow = 0;
    long waitedLonger = memory.waitedLonger;
    memory.waitedLonger = 0;
    // Answers count before any refusal too: the first answers of a refused burst are what the
    // first measurement needs. The cost: one memory per host the engine holds.
    // A host that never accepted a request before has nothing to climb back to (and may be one that
    // other clients keep busy: climbing there only costs refusals).
    boolean acceptedBefore = memory.count > 0;
    memory.sample(now, startedAt, heard);
    if (!heard && startedAt - memory.cycleFrom > 0) {
      memory.cycleAccepted++;
    }
    memory.acceptedSincePause++;
    if (++memory.acceptedInARow >= SAMPLES) {
      memory.troubleRefusals = 0; // healthy again
    }
    WindowQuota window = memory.window;
    // The wall of refusals since the last accepted answer, which this one ends.
    int wallRefusals = window == null ? 0 : window.wallRefusals();
    long wallFrom = window == null ? now : window.wallFrom();
    if (window == null) {
      memory.addToRun(now, startedAt);
    } else {
      boolean followed = window.active();
      window.fleet(memory.fleetHeard);
      if (window.accepted(now, startedAt, host)) {
        return 0; // the quota spaces the starts
      }
      if (followed && !window.active() && window.triedRate() > 0) {
        // The quota's try of one more, alone part way into a window, was accepted: a token bucket
        // whose debt or burst read as a window. Paced from what the windows held, climbing toward
        // what the try showed (at most twice that), and measured over its cycles from here, as a
        // bucket of a large burst is (SPEC R15): its burst's tokens read as rate in the gaps.
        memory.refilled = true;
        return memory.dropTo(window.heldRate(), Math.min(window.triedRate(), 2 * window.heldRate()), now);
      }
      if (followed && !window.active() && interval == 0) {
        // More accepted in a window than the quota: there was none (an outage that ended, a debt
        // paid). What waited behind the quota would all start at once, and a bucket that counts its
        // refusals against the client, whose debt looked like a window, would refuse them all and
        // go deeper in debt: the host is paced from the slow start instead, which a host that takes
        // everything leaves within seconds.
        return memory.slowStartAt(SLOW_START_PER_SECOND, now);
      }
    }
    long previousStart = memory.acceptedStart(startedAt);
    if (heard) {
      memory.tried(startedAt);
    } else {
      memory.started(startedAt, interval, waitedLonger);
    }
    IntervalBracket bracket = memory.bracket;
    if (bracket != null) {
      long next = bracketAccepted(memory, bracket, startedAt, previousStart, now);
      if (next > 0) {
        return next;
      }
    }
    if (memory.ramp > 0) {
      // Climbing after trouble: an answer to a request started at this pace doubles it.
      if (startedAt - memory.epoch < 0) {
        return memory.withMargin(toInterval(memory.ramp));
      }
      memory.ramp *= 2;
      memory.epoch = now;
      if (memory.ramp < SLOW_START_PER_SECOND) {
        return memory.withMargin(toInterval(memory.ramp));
      }
      memory.ramp = 0; // fast enough: slow start from here
      memory.base = SLOW_START_PER_SECOND;
      memory.wmax = 0;
    }
    // Trouble: refused at least three times, nothing accepted for MIN_WALL_SECONDS (not counting
    // the run's own waits, SPEC R14), and now accepted (an outage that ended, a debt paid, other
    // clients gone). What the cuts left says nothing of the host. One that took more before starts
    // again from that pace: slow start for a host that was not paced, half of it else. One that had
    // no pace before climbs from here, doubling per answer.
    boolean afterTrouble = memory.troubleRefusals >= 3 && wallRefusals > 0 && acceptedBefore
        && interval > 0 && (now - wallFrom - waitedLonger) / NANOS >= WindowQuota.MIN_WALL_SECONDS;
    if (afterTrouble && memory.healthyBefore && NANOS / interval < memory.rateBefore / 4) {
      memory.troubleRefusals = 0;
      memory.epoch = now;
      if (Double.isInfinite(memory.rateBefore)) {
        memory.base = SLOW_START_PER_SECOND;
        memory.wmax = 0;
      } else {
        memory.base = 0.5 * memory.rateBefore;
        memory.wmax = memory.rateBefore;
        memory.k = K_MIN_SECONDS;
      }
    } else if (afterTrouble && !memory.healthyBefore) {
      memory.troubleRefusals = 0;
      memory.epoch = now;
      memory.count = 0; // the answers before say nothing of the host now
      memory.next = 0;
      memory.answered(now, startedAt, heard);
      memory.ramp = 2 * NANOS / interval;
      return memory.withMargin(toInterval(memory.ramp));
    }
    if (interval == 0) {
      return 0; // nothing refused yet: nothing to pace
    }
    long next = memory.withMargin(toInterval(memory.rate(now)));
    if (next < FORGOTTEN_BELOW) {
      host.memory(null);
      return 0;
    }
    return next;
  }

  /**
   * An accepted answer told to the host's bracket (SPEC R12): the interval it paces the host at
   * next, or 0 where the rule goes on its own way (too little to narrow yet, or the bracket ended
   * on gaps that contradict each other).
   */
  private static long bracketAccepted(Memory memory, IntervalBracket bracket, long startedAt, long previousStart, long now) {
    long next = bracket.accepted(startedAt, previousStart);
    if (next == IntervalBracket.NARROWED) {
      // The host's interval is known to within the bracket: paced from 1/hi as from a measured rate.
      memory.bracket = null;
      long paced = memory.dropTo(UNDER_MEASURED / bracket.hi, PLATEAU / bracket.hi, now);
      if (bracket.loAlone && bracket.hi <= (1 + PROBE) * bracket.lo) {
        // Narrowed on a refusal no debt can explain, where the first probe beyond the plateau would
        // be refused: that refusal confirmed the rate as the probe would have, twice over.
        memory.k = 4 * K_MIN_SECONDS;
        memory.narrowedAt = Long.MIN_VALUE;
      } else {
        memory.narrowedAt = memory.epoch;
      }
      return paced;
    }
    if (next == IntervalBracket.CONFLICTING) {
      memory.bracket = null;
      return 0;
    }
    return next > 0 ? memory.pacedAt(next, now) : 0;
  }

  /**
   * A host that refused, asking for a pause, the request that started as its {@code k}-th in
   * flight, when none of the last accepted ones started with {@code k} or more, holds fewer than
   * {@code k} at once (a gate, as KGF's admission control): its limit becomes {@code k - 1}. A
   * refusal where others with as many in flight were accepted, or of a request that had the host
   * to itself, is about something else (a rate, other clients) and changes nothing. A probe above the limit that is refused doubles the time
   * before the next one (up to {@value #K_MAX_SECONDS} s); a cut sets it back to
   * {@value #K_MIN_SECONDS} s.
   */
  @Override
  public int inFlightAfterPause(long now, long startedAt, int k, HostState host) {
    int limit = host.inFlightLimit();
    Memory memory = memoryOf(host, now);
    if (memory != null) {
      memory.lastPause = now;
      if (memory.acceptedInFlight == null) {
        memory.acceptedInFlight = new int[SAMPLES];
      }
    }
    if (memory == null || k <= 1 || k <= memory.mostAccepted()) {
      return limit;
    }
    int next = Math.max(1, limit == 0 ? k - 1 : Math.min(limit, k - 1));
    if (memory.probedFrom > 0 && next == memory.probedFrom) {
      memory.limitProbe = Math.min(K_MAX_SECONDS, 2 * memory.limitProbe);
    } else if (next < limit || limit == 0) {
      memory.limitProbe = K_MIN_SECONDS;
    }
    memory.probedFrom = 0;
    memory.limitChangedAt = now;
    return next;
  }

  /**
   * A host that refused with {@code Retry-After} a request that started with no more in flight than
   * others it accepted (or alone) refuses what is over its rate, not over a number at once (SPEC
   * R9; the other kind, a gate, is {@link #inFlightAfterPause}'s), and is paced from what it
   * accepted between pauses: not yet paced, by a slow start from {@value #UNDER_MEASURED} of what
   * it accepted between this pause and the one before; paused in that slow start, at
   * {@value #BETA} of the pace refused; paced, a little under what it accepted since the last
   * pause ended, or cut from the pace refused when refused again soon. From there the rule climbs
   * and probes as after a bare refusal. The pause itself lasts as asked. A refusal of a request
   * started before the last pause counted is of the same burst, and counts no more; the first
   * pause only starts the count.
   */
  @Override
  public long intervalAfterPause(long now, long startedAt, int k, HostState host) {
    long interval = host.interval();
    Memory memory = memoryOf(host, now);
    if (memory == null || (memory.pauseCounted && startedAt - memory.pausedAt < 0)) {
      return interval;
    }
    interval = memory.endWait(interval); // a run's wait is not the pace (SPEC R14)
    memory.bracket = null; // a host that pauses is learned from its pauses
    boolean first = !memory.pauseCounted;
    memory.pauseCounted = true;
    double seconds = (now - memory.pausedAt) / NANOS;
    double unpaused = (now - memory.pausedUntil) / NANOS;
    int accepted = memory.acceptedSincePause;
    memory.pausedAt = now;
    memory.pausedUntil = host.pausedUntil();
    memory.acceptedSincePause = 0;
    boolean gate = k > 1 && k > memory.mostAccepted();
    if (first && !gate && memory.count > 0 && memory.wmax == 0 && interval == 0) {
      // First contact paused over a rate after an accepted answer: the host accepts at least one a
      // pause (a bucket with no burst refills one by then). Slow start from that floor, as from the
      // floor between two pauses below, or the next request after the pause goes a round trip
      // after the first and is paused again.
      double pause = (memory.pausedUntil - now) / NANOS;
      if (pause > 0) {
        return memory.slowStartAt(UNDER_MEASURED / pause, now);
      }
    }
    if (first || gate || accepted == 0 || !(seconds > 0)) {
      return interval;
    }
    double m = accepted / seconds;
    double current = interval > 0 ? NANOS / interval : Double.POSITIVE_INFINITY;
    if (memory.wmax == 0 && interval == 0) {
      // Paused, not yet paced: what it accepted between the pauses is a floor of its rate (a bucket
      // with no burst accepts one a pause, whatever its rate). Slow start from there: doubled each
      // second until the next pause, which tells the rate.
      return memory.slowStartAt(UNDER_MEASURED * m, now);
    }
    if (memory.wmax == 0) {
      // Paused in that slow start: the pace of the last accepted answers was taken, this one not.
      // Cut by beta and climb back to the pace taken (not the one refused, which may be over the
      // host's rate by less than the plateau's margin), as after a drop.
      memory.base = Math.max(UNDER_MEASURED * m, BETA * current);
      memory.wmax = Math.max(memory.base * 1.03, PLATEAU * Math.min(current, memory.lastGapRate()));
      memory.k = K_MIN_SECONDS;
      memory.epoch = now;
      memory.ramp = 0;
      return memory.withMargin(toInterval(memory.base));
    }
    // Paced, and paused again. Between the pauses it accepted m a second: its rate if it refills
    // a pause's worth while paused (a second's burst for Retry-After: 1), less if it refills less.
    // Since the last pause ended it accepted, up to the pace now refused: its rate if it refills
    // little while paused. Its rate lies between: paced a little under the second, or, refused again
    // soon after the last drop (the second was too high: a burst), cut from the pace refused as
    // after a bare refusal; never under m.
    double high = unpaused > 0 ? Math.max(m, Math.min(current, accepted / unpaused)) : m;
    double since = (now - memory.epoch) / NANOS;
    double wmax = PLATEAU * high;
    boolean soon = interval > 0 && since < memory.k / 2;
    boolean beyondPlateau = interval > 0 && since >= memory.k;
    boolean same = memory.wmax > 0 && wmax >= 0.95 * memory.wmax;
    memory.k = memory.nextK(beyondPlateau, same, soon);
    memory.base = Math.max(UNDER_MEASURED * m, soon ? Math.min(UNDER_MEASURED * high, BETA_AGAIN * current) : UNDER_MEASURED * high);
    memory.wmax = Math.max(wmax, memory.base * 1.03);
    memory.epoch = now;
    memory.ramp = 0;
    return memory.withMargin(toInterval(memory.base));
  }

  /**
   * Counts how many were in flight when an accepted request started; after
   * {@code limitProbe} seconds at the limit with every request accepted, tries one more
   * (additive increase, as Netflix's AIMD limit, but rarely, since a refused probe costs a pause).
   * A probe that is accepted halves the time before the next, so a host that grew is followed.
   * An accepted request that started with more in flight than the limit (another process of a
   * fleet had them, SPEC S2: its count is a floor of what the host held) raises the limit to that.
   */
  @Override
  public int inFlightAfterAnswer(long now, long startedAt, int k, HostState host) {
    int limit = host.inFlightLimit();
    if (limit == 0 && !(host.memory() instanceof Memory)) {
      return limit; // nothing learned of how many at once, nor any refusal to count them for
    }
    Memory memory = memoryOf(host, now);
    if (memory == null) {
      return limit;
    }
    if (memory.acceptedInFlight != null && memory.lastPause - startedAt > 0) {
      // A refusal was heard while this one was in flight: it may have got in only because that one
      // was refused, so how many were in flight at its start says nothing of the host.
      return limit;
    }
    memory.accepted(k);
    if (limit == 0 || k < limit) {
      return limit;
    }
    if (k > limit) { // the host held k at once: another process of a fleet had them (SPEC S2)
      memory.probedFrom = 0;
      memory.limitChangedAt = now;
      return k;
    }
    if (memory.probedFrom > 0) {
      memory.probedFrom = 0; // the probe's level was accepted
      memory.limitProbe = Math.max(1, memory.limitProbe / 2);
      memory.limitChangedAt = now;
      return limit;
    }
    if ((now - memory.limitChangedAt) / NANOS >= memory.limitProbe) {
      memory.probedFrom = limit;
      memory.limitChangedAt = now;
      return limit + 1;
    }
    return limit;
  }

  /** A host's first answer, before any refusal: what its memory is made from when one is needed. */
  private record FirstAnswer(long startedAt, long answeredAt, boolean heard) {}

  /**
   * The samples of a host that nothing paces, {@code kept} (its first answer, or its samples), made
   * at {@code now} from its first answer when that is all it kept; null when the store cannot keep
   * them.
   */
  private static @Nullable Samples samplesOf(HostState host, Object kept, long now) {
    if (kept instanceof Samples samples) {
      return samples;
    }
    Samples fresh = new Samples();
    fresh.first((FirstAnswer) kept);
    fresh.limitChangedAt = now;
    host.memory(fresh);
    return host.memory() == fresh ? fresh : null;
  }

  /**
   * The host's memory, made on first use at {@code now}; null when the store cannot keep one. An
   * in-flight limit the host has already (kept by a store from another run, or another process's)
   * counts as set at {@code now}: one more is tried only after {@code limitProbe} at it, as after
   * a limit the rule set.
   */
  private static @Nullable Memory memoryOf(HostState host, long now) {
    Object kept = host.memory();
    if (kept instanceof Memory memory) {
      return memory;
    }
    Memory fresh;
    if (kept instanceof Samples samples) {
      // Made when the samples were, and changed since only as they were: nothing more to set.
      fresh = new Memory(samples);
      host.memory(fresh);
      return host.memory() == fresh ? fresh : null;
    }
    fresh = new Memory();
    if (kept instanceof FirstAnswer first) {
      fresh.first(first); // as onAnswer would have left it after that answer
    }
    fresh.limitChangedAt = now;
    long interval = host.interval();
    if (interval > 0) {
      // A host paced already with nothing of this rule's memory (a store that kept the interval
      // alone, from another run or process): go on at that pace, as if the rule had just set it,
      // and probe beyond it only after the longest plateau, as the pace was measured already. A
      // process that joins a fleet so leaves the probing to the fleet's others, whose refusals it
      // hears; probing at once, each newcomer was refused its own probe soon after it joined.
      fresh.base = NANOS / interval;
      fresh.wmax = fresh.base;
      fresh.epoch = host.intervalChangedAt();
      fresh.k = K_INHERITED_SECONDS;
      fresh.inherited = true;
    }
    host.memory(fresh);
    return host.memory() == fresh ? fresh : null;
  }

  private static long toInterval(double perSecond) {
    if (!(perSecond > 0)) {
      return MAX_INTERVAL;
    }
    double nanos = NANOS / perSecond;
    return nanos >= MAX_INTERVAL ? MAX_INTERVAL : Math.round(nanos);
  }

  // Without a memory (a store that keeps none): slow down on a refusal, as the seed does, and
  // recover by a hundredth per answer, so a forgetful store is safe if slow.

  @Override
  public long onRefusal(long now, long startedAt, long interval, long changedAt) {
    return SeedRule.INSTANCE.onRefusal(now, startedAt, interval, changedAt);
  }

  @Override
  public long onAnswer(long now, long startedAt, long interval, long changedAt) {
    return SeedRule.eased(interval, 100);
  }

  /** True: the rule probes, and no request is to pay for its probes with its retries (SPEC R10). */
  @Override
  public boolean sparesRetries() {
    return true;
  }

  /** One: a host nothing is known of is opened as TCP opens a connection (SPEC P12). */
  @Override
  public int openingInFlight() {
    return 1;
  }

  @Override
  public String toString() {
    return "hostpace";
  }
}

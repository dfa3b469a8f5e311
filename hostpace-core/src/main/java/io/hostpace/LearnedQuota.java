package io.hostpace;

import org.jspecify.annotations.Nullable;

/**
 * A quota the learning rule found a host or group to count in: at most {@code permits} starts in
 * each window of {@code window} nanoseconds, the windows as the host counts them. The engine does
 * not know where the host's windows begin, so each window begins with a <em>probe</em>: its first
 * start goes alone, and only once the host accepted it do the others follow, the window then
 * counted from the probe's start. A refused probe began no window: the next one goes a window
 * after the last window began (by then the rule may have changed the window).
 *
 * <p>Example: 60 a minute, the last window begun at 0 s by a probe accepted, 59 more started at
 * 0.05 s. At 60 s one request starts; when its acceptance arrives at 60.05 s, 59 more start.
 *
 * <p>Guarded by the engine's lock. Times compared by difference.
 */
final class LearnedQuota {

  final int permits;
  final long window;
  /** When the current window began (its probe's start), and the starts in it (in a fleet, the others' accepted too). */
  private long from;
  private int used;
  /** The probe in flight, whose answer says whether a window began. */
  private @Nullable Call<?> probe;

  /** A quota learned from {@code taught}, which started the window that taught it. */
  LearnedQuota(int permits, long window, long windowFrom) {
    this.permits = permits;
    this.window = window;
    this.from = windowFrom;
    this.used = 1;
  }

  /** The same windows, counted from where {@code before} counts them, with other numbers. */
  LearnedQuota(int permits, long window, LearnedQuota before) {
    this.permits = permits;
    this.window = window;
    this.from = before.from;
    this.used = before.used;
    this.probe = before.probe;
  }

  /**
   * The quota a host holds after its rule set {@code permits} a {@code window} (0 for none): none;
   * the same windows as {@code before}, counted where it counts them, with the new numbers; or, for
   * a first quota, windows counted from {@code startedAt}, the start of the request that taught it.
   */
  static @Nullable LearnedQuota after(@Nullable LearnedQuota before, int permits, long window, long startedAt) {
    if (permits <= 0 || window <= 0) {
      return null;
    }
    return before == null ? new LearnedQuota(permits, window, startedAt) : new LearnedQuota(permits, window, before);
  }

  /**
   * A quota the fleet kept (SPEC S3), its current window full for {@code fullFor} more
   * nanoseconds (0: starts may go): the windows counted as if one ends then, every start of it
   * spent; else as if one began now, as the fleet's places of the quota hold its starts in any
   * window already (counted from a window ago, a probe refused would go again at once, and again).
   */
  static LearnedQuota recalled(int permits, long window, long fullFor, long now) {
    LearnedQuota quota = new LearnedQuota(permits, window, fullFor > 0 ? now + fullFor - window : now);
    if (fullFor > 0) {
      quota.used = permits;
    }
    return quota;
  }

  /** How long from {@code now} the current window stays full, every start of it spent; 0 when a start may go. */
  long fullFor(long now) {
    return used >= permits && from + window - now > 0 ? from + window - now : 0;
  }

  /**
   * The quota of a state a store opened knowing one (kept from another run, SPEC S1), or null when
   * it knows none: where the host's windows begin is not known, so the window counted last ended at
   * {@code now} and the host's first start is a window's probe, as after any window.
   */
  static @Nullable LearnedQuota opened(int permits, long window, long now) {
    return after(null, permits, window, now - window);
  }

  /** Whether a probe is in flight: nothing else starts until its answer. */
  boolean probing() {
    return probe != null;
  }

  /** Whether a start at {@code now} would be a window's probe: the window counted ended, no probe out. */
  boolean wouldProbe(long now) {
    return probe == null && now - (from + window) >= 0;
  }

  /** When the next start may go, if it may not at {@code now}; {@code now} itself when it may. */
  long readyAt(long now) {
    if (used < permits || now - (from + window) >= 0) {
      return now;
    }
    return from + window;
  }

  /** {@code call} starts at {@code now}, which {@link #readyAt} allows. */
  void start(Call<?> call, long now) {
    if (now - (from + window) >= 0) {
      probe = call; // the first of a window goes alone
    } else {
      used++;
    }
  }

  /**
   * {@code call} was answered, or another process's request (SPEC S2) when null, started at
   * {@code startedAt}; {@code accepted} unless refused. A refusal other than the probe's says the
   * host's window is full, whatever this engine counted of it: nothing more starts until the window
   * ends. Another process's start accepted once this engine's window ended, while no probe of its
   * own is out, began the host's next window as a probe of this engine's would have: the windows are
   * counted from it, and this engine starts in that window at once (the fleet's places of the quota
   * hold the processes together to it), not a whole window after its own last probe. Another
   * process's start accepted within this engine's window is one of the window's starts too, so
   * that the engine holds the fleet to the quota by its own count as well: a place of the quota is
   * leased for the window the rule told when it was claimed, which for a window's first start is
   * the window before's, shorter where that one ended at a check or a probe that searched for the
   * boundary; its places would end before the window does.
   */
  void answered(@Nullable Call<?> call, long startedAt, boolean accepted) {
    if (call == null && accepted && probe == null && startedAt - (from + window) >= 0) {
      from = startedAt;
      used = 1;
      return;
    }
    if (call == null && accepted && startedAt - from >= 0 && startedAt - (from + window) < 0) {
      used++;
      return;
    }
    if (call != probe || call == null) {
      if (!accepted) {
        used = Math.max(used, permits);
      }
      return;
    }
    probe = null;
    if (accepted) {
      from = call.startedAt;
      used = 1;
    }
  }

  /** Whether {@code call} is the probe in flight. */
  boolean probe(@Nullable Call<?> call) {
    return call != null && call == probe;
  }

  /**
   * After a probe refused, when the window counted from the last one accepted ended by {@code now}
   * (the rule moved no boundary for it: this engine counts from a probe older than the host's last
   * window, another process of a fleet having begun it, SPEC S2): the windows are counted on by whole
   * windows from there, so the next probe goes once a window has passed, not at once, and again.
   */
  void countOnAfterRefusedProbe(long now) {
    if (now - (from + window) >= 0) {
      from += window * ((now - from) / window);
      used = permits;
    }
  }

  /** {@code call} ended without an answer (failed, cancelled): if it was the probe, another may go. */
  void letGo(Call<?> call) {
    if (call == probe) {
      probe = null;
    }
  }

  /** The quota as a rate, for snapshots and events. */
  Rate rate() {
    return Rate.of(Math.min(permits, Rate.MAX_PERMITS), java.time.Duration.ofNanos(window));
  }
}

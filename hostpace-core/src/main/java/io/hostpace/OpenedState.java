package io.hostpace;

import io.hostpace.spi.HostState;

/**
 * Holds what a store opened to this run's limits (SPEC S1), for every store alike: a state file
 * kept from a run with other limits, a store shared by processes with other limits, or one that
 * carries numbers no engine would learn. The decision is {@link Decisions#held}; this writes back
 * only what it changed, so a state within the limits is not touched (nor its store told of it).
 *
 * <p>Example: a state file keeps a pause until a day from now; this run's retry delay limit is
 * 5 s; the host opens paused until 5 s from now, and the listener hears a pause of 5 s.
 *
 * <p>Called under the engine's lock, where the engine opens a state ({@link Nodes}).
 */
final class OpenedState {

  private OpenedState() {}

  /** Holds {@code state}, as its store opened it at {@code now}, to a retry delay limit of {@code retryDelayLimit} ns. */
  static void holdToLimits(HostState state, long now, long retryDelayLimit) {
    Decisions.Taught opened = new Decisions.Taught(state.paused(), state.pausedUntil(), state.interval(),
        state.inFlightLimit(), state.quotaPermits(), state.quotaWindow());
    Decisions.Taught held = Decisions.held(opened, now, retryDelayLimit);
    if (held.pausedUntil() != opened.pausedUntil()) {
      state.pauseUntil(held.pausedUntil());
    }
    if (held.interval() != opened.interval()) {
      state.interval(held.interval(), now);
    }
    if (held.inFlightLimit() != opened.inFlightLimit()) {
      state.inFlightLimit(held.inFlightLimit());
    }
    if (held.quotaPermits() != opened.quotaPermits() || held.quotaWindow() != opened.quotaWindow()) {
      state.quota(held.quotaPermits(), held.quotaWindow());
    }
  }
}

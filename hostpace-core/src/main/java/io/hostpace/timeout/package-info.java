/**
 * Timeout budgets per endpoint and per kind of query (SPEC D1 to D8), and the engine's probes of
 * endpoints held down or degraded (D6, {@link io.hostpace.internal.Prober}).
 *
 * <p>A {@link io.hostpace.timeout.TimeoutPolicy} is a state machine fed
 * {@code (now, endpoint, kind, outcome, duration)}: before each attempt an adapter asks it for a
 * {@link io.hostpace.timeout.Budget}, and after the attempt it reports the
 * {@link io.hostpace.timeout.Outcome}. Time is always an argument, the engine's monotonic clock in
 * nanoseconds, so the engine and the simulator run the same classes and a test feeds them
 * literal numbers.
 *
 * <p>Three policies: {@link io.hostpace.timeout.TimeoutPolicy#fixed fixed}, the
 * {@link io.hostpace.timeout.TimeoutPolicy#seed seed's} reference policy (seed 003, kept to
 * compare against), and {@link io.hostpace.timeout.TimeoutPolicy#adaptive(AdaptiveTimeouts)
 * adaptive}, configured by {@link io.hostpace.timeout.AdaptiveTimeouts}.
 */
@NullMarked
package io.hostpace.timeout;

import org.jspecify.annotations.NullMarked;

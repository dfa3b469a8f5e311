/**
 * What tests and simulations of Hostpace use: models of servers that refuse clients who ask too
 * often, each a small state machine fed the time.
 *
 * <p>A {@link io.hostpace.testing.ServerLimit} decides whether a request arriving at
 * {@code now} is accepted: an {@link io.hostpace.testing.AdmissionGate} (so many in flight), a
 * {@link io.hostpace.testing.TokenBucket} (a rate and a burst), a
 * {@link io.hostpace.testing.FixedWindow} (so many a window) or a
 * {@link io.hostpace.testing.Spacing} (one an interval). A
 * {@link io.hostpace.testing.RefusingServer} puts a limit behind a status, a
 * {@code Retry-After} and steps that change the limit over time, and answers each request. Time
 * is always an argument, in nanoseconds as {@link io.hostpace.Clock#nanoTime()} counts them, so
 * the same classes run in virtual time (the simulator, the engine's tests) and behind real
 * servers on the wall clock (the testkit, the Fuseki endpoints). None is thread-safe: a server
 * that answers on many threads holds a lock around them.
 *
 * <p>Also here: {@link io.hostpace.testing.ScriptedExchange}, an exchange whose attempts a script
 * answers, to drive the engine without a network, and {@link io.hostpace.testing.LocalFleet}, a
 * fleet of engines in one JVM (SPEC S2 without Redis). None of this package is needed to run the engine; it ships in core, as
 * {@link io.hostpace.VirtualTime} does, so that every module's tests and the simulator use it.
 */
@NullMarked
package io.hostpace.testing;

import org.jspecify.annotations.NullMarked;

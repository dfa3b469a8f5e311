/**
 * Replays scenarios in virtual time against several policies, and reports what each lost and
 * how long it took: Caffeine's simulator, for Hostpace's timeout policies and learning rules.
 *
 * <p>The entry points are {@link io.hostpace.simulator.TimeoutSimulation} (format in
 * {@code scenarios/timeouts/README.md}) and {@link io.hostpace.simulator.PacingSimulation}, which
 * runs the real engine against server models (format in {@code scenarios/pacing/README.md}): a
 * scenario file in, a result out, as a table ({@code toTable()}) or one JSON object
 * ({@code toJson()}); {@link io.hostpace.simulator.PacingSimulation#chart} draws a pacing result
 * and writes its figures as CSV. {@link io.hostpace.simulator.ShippedScenario} reads the scenarios
 * shipped in the jar by name. {@link io.hostpace.simulator.Main} is the command line of the
 * benchmarks.
 */
@NullMarked
package io.hostpace.simulator;

import org.jspecify.annotations.NullMarked;

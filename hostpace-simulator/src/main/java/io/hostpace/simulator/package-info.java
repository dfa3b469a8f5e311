/**
 * Replays scenarios in virtual time against several policies, and reports what each lost and
 * how long it took: Caffeine's simulator, for Hostpace's timeout policies and learning rules.
 *
 * <p>One {@link io.hostpace.simulator.Simulator}, two kinds of workload: {@code PACING} runs the
 * real engine's pacing policies against server models (format in
 * {@code scenarios/pacing/README.md}), {@code TIMEOUTS} the timeout policies against one slow
 * endpoint (format in {@code scenarios/timeouts/README.md}). Either takes a scenario file in and
 * gives a {@link io.hostpace.simulator.SimulationResult} out, as a table ({@code toTable()}) or
 * one JSON object ({@code toJson()}); {@link io.hostpace.simulator.PacingResult#chart} draws a
 * pacing result and writes its figures as CSV. {@link io.hostpace.simulator.ShippedScenario} reads
 * the scenarios shipped in the jar by name. {@link io.hostpace.simulator.Main} is the command line
 * of the benchmarks.
 */
@NullMarked
package io.hostpace.simulator;

import org.jspecify.annotations.NullMarked;

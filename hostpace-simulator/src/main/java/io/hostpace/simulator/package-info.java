/**
 * Replays scenarios in virtual time against several policies, and reports what each lost and
 * how long it took: Caffeine's simulator, for Hostpace's timeout policies.
 *
 * <p>The entry point is {@link io.hostpace.simulator.TimeoutSimulation}: a scenario file (its
 * format is in {@code scenarios/timeouts/README.md}) in, one JSON object out.
 */
@NullMarked
package io.hostpace.simulator;

import org.jspecify.annotations.NullMarked;

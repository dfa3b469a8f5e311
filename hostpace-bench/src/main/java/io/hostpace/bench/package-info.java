/**
 * Benchmarks of the engine: {@link io.hostpace.bench.AcquireReleaseBenchmark}, the cost of one
 * request under JMH, and {@link io.hostpace.bench.QueuedMemory}, the heap a waiting request costs.
 */
@NullMarked
package io.hostpace.bench;

import org.jspecify.annotations.NullMarked;

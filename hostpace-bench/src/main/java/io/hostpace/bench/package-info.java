/**
 * Benchmarks of the engine: {@link io.hostpace.bench.AcquireReleaseBenchmark}, the cost of one
 * request under JMH; {@link io.hostpace.bench.ScaleBenchmark}, the same as the hosts and a
 * group's member hosts grow; {@link io.hostpace.bench.GroupSizeBenchmark}, a request through
 * groups of more and more members over the same hosts; {@link io.hostpace.bench.QueuedMemory}, the
 * heap a waiting request costs; {@link io.hostpace.bench.HostMemory}, the heap a host held costs;
 * {@link io.hostpace.bench.ThreadScaling}, what a second thread adds on one engine;
 * {@link io.hostpace.bench.CrawlCost}, the cost per request through a crawl of a
 * million requests in virtual time; and {@link io.hostpace.bench.ProxyOverhead}, the requests a
 * second the proxy keeps of going direct.
 */
@NullMarked
package io.hostpace.bench;

import org.jspecify.annotations.NullMarked;

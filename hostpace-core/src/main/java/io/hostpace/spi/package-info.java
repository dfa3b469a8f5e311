/**
 * Extension points of Hostpace: what an HTTP client adapter implements ({@link
 * io.hostpace.spi.Exchange}), where what hosts taught is kept ({@link io.hostpace.spi.HostStateStore},
 * {@link io.hostpace.spi.HostState}), how it is learned ({@link io.hostpace.spi.LearningRule}), and
 * what the processes of a fleet share ({@link io.hostpace.spi.Fleet}; {@code RedisFleet} in
 * {@code hostpace-redis} implements it across machines, {@code io.hostpace.testing.LocalFleet} in
 * one JVM), how such an implementation warns of failures that repeat without flooding the log
 * ({@link io.hostpace.spi.FailureLog}), and how an adapter holds an answer's body to its deadline
 * ({@link io.hostpace.internal.AnswerDeadline}). Nothing else lives here.
 */
@NullMarked
package io.hostpace.spi;

import org.jspecify.annotations.NullMarked;

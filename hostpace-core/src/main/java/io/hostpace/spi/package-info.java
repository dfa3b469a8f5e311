/**
 * Extension points of Hostpace: what an HTTP client adapter implements, where the engine's
 * learned state and learning rules can be replaced, and what the processes of a fleet share
 * ({@link io.hostpace.spi.Fleet}; {@link io.hostpace.spi.LocalFleet} in one JVM, {@code RedisFleet}
 * in {@code hostpace-redis} across machines).
 */
@NullMarked
package io.hostpace.spi;

import org.jspecify.annotations.NullMarked;

/**
 * A fleet over Redis (SPEC S2), one server, behind Sentinels or a Redis Cluster (SPEC S5):
 * {@link io.hostpace.redis.RedisFleet}, an
 * {@link io.hostpace.spi.Fleet} whose processes share what hosts taught through Redis pub/sub, and
 * space their starts and hold a host's places with scripts on Redis's own clock.
 */
@NullMarked
package io.hostpace.redis;

import org.jspecify.annotations.NullMarked;

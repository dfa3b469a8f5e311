/**
 * Real Redis servers on loopback, for tests and demos, as hostpace-testing's {@code io.hostpace.testing} holds
 * a fleet in one JVM: {@link io.hostpace.redis.testing.RedisServer} (one server on 127.0.0.1 and a
 * free port, nothing saved, that a test can stop, kill and start again empty),
 * {@link io.hostpace.redis.testing.RedisCluster} (three masters, and a replica to promote) and
 * {@link io.hostpace.redis.testing.RedisSentinel} (a master, a replica and a Sentinel).
 *
 * <p>Each runs the {@code redis-server} on {@code PATH}, else the Redis 6.2 binary for Linux or
 * macOS that {@code com.github.codemonstur:embedded-redis} ships. That jar is an optional
 * dependency of this module: add it where servers are started (the tests of fleets, the command
 * line's {@code hostpace demo --fleet}), or install {@code redis-server}. Not for production: the
 * servers keep nothing on disk and listen only on 127.0.0.1.
 */
@NullMarked
package io.hostpace.redis.testing;

import org.jspecify.annotations.NullMarked;

package io.hostpace.spring.boot;

import io.hostpace.internal.Redaction;
import io.hostpace.redis.RedisFleet;
import java.time.Duration;
import java.util.List;

/**
 * Joins the fleet {@code hostpace.fleet} names, on {@code hostpace.redis} or
 * {@code hostpace.redis-cluster}, with the lease of its places {@code hostpace.fleet-lease} gives,
 * as the command line's {@code --fleet} and {@code --fleet-lease} do; loaded only when
 * hostpace-redis is on the classpath. A lease out of bounds fails the context before Redis is
 * reached; a Redis that cannot be reached fails it, naming the property and the URI without its
 * user info.
 */
final class RedisFleets {

  /** The Redis a fleet uses when no property names one. */
  static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";

  private RedisFleets() {}

  static RedisFleet join(HostpaceProperties properties) {
    String name = properties.getFleet();
    if (name == null) {
      throw new IllegalStateException("no hostpace.fleet to join");
    }
    Duration lease = properties.getFleetLease();
    if (lease != null && (lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofDays(1)) > 0)) {
      throw new HostpacePropertyException("hostpace.fleet-lease", "hostpace.fleet-lease must be 1s to a day, got " + lease,
          "Set hostpace.fleet-lease to a second or more, a day at most, or remove it for the fleet's own (10s).", null);
    }
    List<String> cluster = properties.getRedisCluster();
    String redis = properties.getRedis();
    String where = !cluster.isEmpty() ? String.join(",", cluster) : redis != null ? redis : DEFAULT_REDIS;
    String key = !cluster.isEmpty() ? "hostpace.redis-cluster" : "hostpace.redis";
    try {
      RedisFleet fleet = !cluster.isEmpty() ? RedisFleet.connectCluster(cluster, name) : RedisFleet.connect(where, name);
      return lease != null ? fleet.placeLease(lease) : fleet;
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      throw HostpacePropertyException.refused(message != null && message.startsWith("fleet name") ? "hostpace.fleet" : key, e);
    } catch (RuntimeException e) { // Lettuce's RedisConnectionException, or a Cluster that cannot be read
      throw new HostpacePropertyException(key, key + " '" + Redaction.userInfo(where) + "' cannot be reached: "
          + e.getMessage(), "Start that Redis, or name one that runs in " + key + ".", e);
    }
  }
}

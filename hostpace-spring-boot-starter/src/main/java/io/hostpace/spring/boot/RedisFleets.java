package io.hostpace.spring.boot;

import io.hostpace.internal.Redaction;
import io.hostpace.redis.RedisFleet;
import java.util.List;

/**
 * Joins the fleet {@code hostpace.fleet} names, on {@code hostpace.redis} or
 * {@code hostpace.redis-cluster}, as the command line's {@code --fleet} does; loaded only when
 * hostpace-redis is on the classpath. A Redis that cannot be reached fails the context, naming
 * the property and the URI without its user info.
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
    List<String> cluster = properties.getRedisCluster();
    String redis = properties.getRedis();
    String where = !cluster.isEmpty() ? String.join(",", cluster) : redis != null ? redis : DEFAULT_REDIS;
    String key = !cluster.isEmpty() ? "hostpace.redis-cluster" : "hostpace.redis";
    try {
      return !cluster.isEmpty() ? RedisFleet.connectCluster(cluster, name) : RedisFleet.connect(where, name);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      throw HostpacePropertyException.refused(message != null && message.startsWith("fleet name") ? "hostpace.fleet" : key, e);
    } catch (RuntimeException e) { // Lettuce's RedisConnectionException, or a Cluster that cannot be read
      throw new HostpacePropertyException(key, key + " '" + Redaction.userInfo(where) + "' cannot be reached: "
          + e.getMessage(), "Start that Redis, or name one that runs in " + key + ".", e);
    }
  }
}

package io.hostpace.spring.boot;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.TimeoutPolicy;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Applies the {@code hostpace.*} properties to an engine's builder. The engine checks every
 * value itself; a value it refuses fails here, a {@link HostpacePropertyException} with the
 * property's key in front of the engine's message: {@code hostpace.hosts[qlever.dev]: host limit 'qlever.dev': inFlight 'x' is not a
 * whole number}. A host's SPEC is read by the engine's one parser, the command line's.
 */
final class EngineFromProperties {

  /** The most retries {@code hostpace.retries} takes: the command line's bound, for one file that serves both. */
  static final int MAX_RETRIES = 100;
  /** The shortest duration {@code hostpace.timeout} and {@code hostpace.retry-delay-limit} take, above zero: the command line's. */
  static final Duration SHORTEST = Duration.ofMillis(1);
  /** The longest duration they take: the command line's, a year. */
  static final Duration LONGEST = Duration.ofDays(365);
  /** The budget of an attempt where {@code hostpace.timeout-policy} is set and {@code hostpace.timeout} is not. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  private final HostpaceProperties properties;

  EngineFromProperties(HostpaceProperties properties) {
    this.properties = properties;
  }

  /** {@code builder} with every property that is set applied to it. */
  Hostpace.Builder apply(Hostpace.Builder builder) {
    Limits everyHost = Limits.NONE;
    Integer maxInFlight = properties.getMaxInFlight();
    if (maxInFlight != null) {
      everyHost = named("hostpace.max-in-flight", () -> Limits.inFlight(maxInFlight));
    }
    Double maxRate = properties.getMaxRate();
    if (maxRate != null) {
      Rate rate = named("hostpace.max-rate", () -> Rate.perSecond(maxRate));
      everyHost = everyHost.withRate(rate);
    }
    builder.limitsForEveryHost(everyHost);
    for (Map.Entry<String, String> host : properties.getHosts().entrySet()) {
      named("hostpace.hosts[" + host.getKey() + "]", () -> builder.addLimit(host.getKey(), host.getValue()));
    }
    Integer retries = properties.getRetries();
    if (retries != null) {
      named("hostpace.retries", () -> {
        if (retries > MAX_RETRIES) {
          // as the command line's --retries, so that one file serves both
          throw new IllegalArgumentException("retries must be 0 to " + MAX_RETRIES + ", got " + retries);
        }
        return builder.retries(retries);
      });
    }
    Duration retryDelayLimit = properties.getRetryDelayLimit();
    if (retryDelayLimit != null) {
      named("hostpace.retry-delay-limit",
          () -> builder.retryDelayLimit(withinBounds("retry delay limit", retryDelayLimit)));
    }
    Duration timeout = properties.getTimeout();
    HostpaceProperties.TimeoutPolicyName named = properties.getTimeoutPolicy();
    // A timeout given alone budgets every attempt, as the command line's --timeout does.
    HostpaceProperties.TimeoutPolicyName policy = named == null && timeout != null ? HostpaceProperties.TimeoutPolicyName.FIXED : named;
    if (policy != null) {
      builder.timeoutPolicy(named("hostpace.timeout",
          () -> timeoutPolicy(policy, timeout != null ? withinBounds("timeout", timeout) : DEFAULT_TIMEOUT)));
    }
    String userAgent = properties.getUserAgent();
    if (userAgent != null) {
      named("hostpace.user-agent", () -> builder.userAgent(userAgent));
    }
    checkFleet();
    return builder;
  }

  /**
   * The policy {@code hostpace.timeout-policy} names, with {@code timeout} as its budget. The
   * adaptive one gets the command line's floor, a tenth of the budget, and no probe: no adapter
   * here names one, so a held endpoint is tried with a real request after its cool-down.
   */
  private static TimeoutPolicy timeoutPolicy(HostpaceProperties.TimeoutPolicyName policy, Duration timeout) {
    return switch (policy) {
      case FIXED -> TimeoutPolicy.fixed(timeout);
      case ADAPTIVE -> TimeoutPolicy.adaptive(
          AdaptiveTimeouts.builder().defaultBudget(timeout).floor(timeout.dividedBy(10)).build());
    };
  }

  /**
   * {@code duration}, refused where the command line refuses it, so that one file serves both: a
   * duration above zero and under a millisecond (which rounds to nothing, or to a timeout no answer
   * can meet), or over a year. Zero and less are left to the engine, which says what it takes.
   */
  private static Duration withinBounds(String what, Duration duration) {
    if (duration.compareTo(Duration.ZERO) > 0 && duration.compareTo(SHORTEST) < 0) {
      throw new IllegalArgumentException(what + " must be at least 1ms, got " + duration);
    }
    if (duration.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(what + " must be at most a year (365d), got " + duration);
    }
    return duration;
  }

  /** The fleet's properties make sense together, as the command line's options must. */
  private void checkFleet() {
    boolean cluster = !properties.getRedisCluster().isEmpty();
    if (properties.getFleet() == null) {
      if (properties.getRedis() != null) {
        throw new HostpacePropertyException("hostpace.redis",
            "hostpace.redis needs hostpace.fleet: the name of the fleet whose processes share what hosts teach",
            "Name the fleet in hostpace.fleet, or remove hostpace.redis.", null);
      }
      if (cluster) {
        throw new HostpacePropertyException("hostpace.redis-cluster",
            "hostpace.redis-cluster needs hostpace.fleet: the name of the fleet whose processes share what hosts teach",
            "Name the fleet in hostpace.fleet, or remove hostpace.redis-cluster.", null);
      }
      if (properties.getFleetLease() != null) {
        throw new HostpacePropertyException("hostpace.fleet-lease",
            "hostpace.fleet-lease needs hostpace.fleet: the fleet whose places it leases",
            "Name the fleet in hostpace.fleet, or remove hostpace.fleet-lease.", null);
      }
    }
    if (cluster && properties.getRedis() != null) {
      throw new HostpacePropertyException("hostpace.redis",
          "hostpace.redis and hostpace.redis-cluster both name the fleet's Redis: give one",
          "Remove hostpace.redis or hostpace.redis-cluster.", null);
    }
  }

  private static <T> T named(String key, Supplier<T> make) {
    try {
      return make.get();
    } catch (IllegalArgumentException e) {
      throw HostpacePropertyException.refused(key, e);
    }
  }
}

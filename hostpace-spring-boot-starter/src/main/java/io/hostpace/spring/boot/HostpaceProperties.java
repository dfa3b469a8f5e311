package io.hostpace.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * The {@code hostpace.*} properties the auto-configured engine is built from. The names are the
 * command line's options ({@code --retry-delay-limit} is {@code hostpace.retry-delay-limit}), but
 * for {@code hostpace.hosts}, the map of what {@code --host KEY=SPEC} says once a host; what is
 * not set keeps the engine's default. A duration
 * without a unit is in seconds, as the command line reads it ({@code 60}, or {@code 500ms},
 * {@code 2m}).
 *
 * <pre>
 * hostpace.hosts[qlever.dev]=inFlight:1,perSecond:1
 * hostpace.hosts[*.wikidata.org]=inFlight:10
 * hostpace.retries=3
 * hostpace.retry-delay-limit=30s
 * hostpace.user-agent=my-app/1.0 (+https://example.org; ops@example.org)
 * </pre>
 */
@ConfigurationProperties("hostpace")
public class HostpaceProperties {

  /**
   * Limits by host key (example.org, example.org:8080) or *.domain group, each written as the
   * command line's --host KEY=SPEC writes SPEC: inFlight:N, perSecond:R or rate:N/PERIOD, comma
   * separated. A key with * or : in it goes in brackets: hostpace.hosts[*.example.org].
   */
  private Map<String, String> hosts = new LinkedHashMap<>();

  /** Requests in flight per host, for every host (32 unless set). */
  private @Nullable Integer maxInFlight;

  /** Starts per second per host, for every host, a positive decimal (none unless set). */
  private @Nullable Double maxRate;

  /** Retries of a refused request (5 unless set). */
  private @Nullable Integer retries;

  /** The longest pause a Retry-After may impose; seconds without a unit (60 s unless set). */
  @DurationUnit(ChronoUnit.SECONDS)
  private @Nullable Duration retryDelayLimit;

  /**
   * How the engine budgets each attempt's time: fixed (every attempt gets hostpace.timeout) or
   * adaptive (each endpoint's budget follows what its answers took, up to hostpace.timeout).
   * Unset: fixed when hostpace.timeout is set (as the command line's --timeout alone), else the
   * engine sets no budget, and the clients' own timeouts hold.
   */
  private @Nullable TimeoutPolicyName timeoutPolicy;

  /**
   * The budget of an attempt under timeout-policy, the most under adaptive (60 s when only the
   * policy is set); given alone, every attempt's under a fixed policy. Seconds without a unit.
   */
  @DurationUnit(ChronoUnit.SECONDS)
  private @Nullable Duration timeout;

  /** The User-Agent of requests that set none (hostpace's own unless set). */
  private @Nullable String userAgent;

  /**
   * A file that keeps what hosts taught (their pace, in-flight limit, quota, a pause not ended)
   * across runs: read when the engine is built if it exists, written when the context closes.
   */
  private @Nullable Path state;

  /**
   * The name of the fleet whose processes share what hosts teach through Redis; needs
   * hostpace-redis on the classpath.
   */
  private @Nullable String fleet;

  /** The Redis of the fleet (redis://127.0.0.1:6379 unless set; redis-sentinel:// for Sentinels). */
  private @Nullable String redis;

  /** The Redis Cluster of the fleet instead: one or more of its nodes' URIs. */
  private List<String> redisCluster = new ArrayList<>();

  /**
   * How long a place of the fleet stays held after this process dies: renewed while it lives,
   * every third of it; 1 s to a day; seconds without a unit (10 s unless set).
   */
  @DurationUnit(ChronoUnit.SECONDS)
  private @Nullable Duration fleetLease;

  /** The interceptor on every RestClient Boot builds. */
  private final Client restClient = new Client();

  /** The interceptor on every RestTemplate Boot builds. */
  private final Client restTemplate = new Client();

  /** The filter on every WebClient Boot builds. */
  private final Client webClient = new Client();

  /** The policies {@code hostpace.timeout-policy} names. */
  public enum TimeoutPolicyName {
    /** Every attempt gets {@code hostpace.timeout}. */
    FIXED,
    /** Each endpoint's budget follows what its answers took, up to {@code hostpace.timeout}. */
    ADAPTIVE
  }

  /** Whether the engine paces the clients of one kind that Boot builds. */
  public static class Client {

    /** Whether the clients of this kind that Boot builds go through the engine. */
    private boolean enabled = true;

    /** Whether the clients of this kind go through the engine. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Sets whether the clients of this kind go through the engine. */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** Limits by host key or group, as SPEC text. */
  public Map<String, String> getHosts() {
    return hosts;
  }

  /** Sets the limits by host key or group. */
  public void setHosts(Map<String, String> hosts) {
    this.hosts = hosts;
  }

  /** Requests in flight per host, or null. */
  public @Nullable Integer getMaxInFlight() {
    return maxInFlight;
  }

  /** Sets the requests in flight per host. */
  public void setMaxInFlight(@Nullable Integer maxInFlight) {
    this.maxInFlight = maxInFlight;
  }

  /** Starts per second per host, or null. */
  public @Nullable Double getMaxRate() {
    return maxRate;
  }

  /** Sets the starts per second per host. */
  public void setMaxRate(@Nullable Double maxRate) {
    this.maxRate = maxRate;
  }

  /** Retries of a refused request, or null. */
  public @Nullable Integer getRetries() {
    return retries;
  }

  /** Sets the retries of a refused request. */
  public void setRetries(@Nullable Integer retries) {
    this.retries = retries;
  }

  /** The longest pause a Retry-After may impose, or null. */
  public @Nullable Duration getRetryDelayLimit() {
    return retryDelayLimit;
  }

  /** Sets the longest pause a Retry-After may impose. */
  public void setRetryDelayLimit(@Nullable Duration retryDelayLimit) {
    this.retryDelayLimit = retryDelayLimit;
  }

  /** The timeout policy, or null for none. */
  public @Nullable TimeoutPolicyName getTimeoutPolicy() {
    return timeoutPolicy;
  }

  /** Sets the timeout policy. */
  public void setTimeoutPolicy(@Nullable TimeoutPolicyName timeoutPolicy) {
    this.timeoutPolicy = timeoutPolicy;
  }

  /** The budget of an attempt under the timeout policy, or null when not set. */
  public @Nullable Duration getTimeout() {
    return timeout;
  }

  /** Sets the budget of an attempt under the timeout policy. */
  public void setTimeout(@Nullable Duration timeout) {
    this.timeout = timeout;
  }

  /** The User-Agent of requests that set none, or null. */
  public @Nullable String getUserAgent() {
    return userAgent;
  }

  /** Sets the User-Agent of requests that set none. */
  public void setUserAgent(@Nullable String userAgent) {
    this.userAgent = userAgent;
  }

  /** The host state file, or null. */
  public @Nullable Path getState() {
    return state;
  }

  /** Sets the host state file. */
  public void setState(@Nullable Path state) {
    this.state = state;
  }

  /** The fleet's name, or null for none. */
  public @Nullable String getFleet() {
    return fleet;
  }

  /** Sets the fleet's name. */
  public void setFleet(@Nullable String fleet) {
    this.fleet = fleet;
  }

  /** The fleet's Redis URI, or null. */
  public @Nullable String getRedis() {
    return redis;
  }

  /** Sets the fleet's Redis URI. */
  public void setRedis(@Nullable String redis) {
    this.redis = redis;
  }

  /** The fleet's Redis Cluster nodes, empty for none. */
  public List<String> getRedisCluster() {
    return redisCluster;
  }

  /** Sets the fleet's Redis Cluster nodes. */
  public void setRedisCluster(List<String> redisCluster) {
    this.redisCluster = redisCluster;
  }

  /** The lease of the fleet's places, or null for the fleet's own. */
  public @Nullable Duration getFleetLease() {
    return fleetLease;
  }

  /** Sets the lease of the fleet's places. */
  public void setFleetLease(@Nullable Duration fleetLease) {
    this.fleetLease = fleetLease;
  }

  /** The switch of the RestClient interceptor. */
  public Client getRestClient() {
    return restClient;
  }

  /** The switch of the RestTemplate interceptor. */
  public Client getRestTemplate() {
    return restTemplate;
  }

  /** The switch of the WebClient filter. */
  public Client getWebClient() {
    return webClient;
  }
}

package io.hostpace.redis;

import io.hostpace.internal.Redaction;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link RedisFleet} needs of Redis: the commands, the pub/sub connection its lessons
 * travel on, Lettuce's computation threads (to run and to schedule on), and closing what it owns; opened on one of three
 * layouts, each command timed out after {@link #TIMEOUT}.
 *
 * <ul>
 *   <li>One server ({@code redis://10.0.0.1:6379}), on a client of its own ({@link #connect}):
 *       commands are rejected at once while it is disconnected, so lessons do not pile up while
 *       Redis is down, and it reconnects by itself from 1 ms, doubling, at most a second apart
 *       (Lettuce's own backoff grows to 30 s, which would keep a fleet apart long after Redis
 *       came back).
 *   <li>Sentinels ({@code redis-sentinel://10.0.0.1:26379,10.0.0.2:26379#mymaster}), on the same
 *       client: it connects to the master the Sentinels name, and to the one they name next
 *       whenever the connection is lost.
 *   <li>A Redis Cluster ({@link #connectCluster}, from seeds that are any of its nodes): a node's
 *       connection opens with its first command, so commands are held, not rejected, while a
 *       node is disconnected, up to their timeout; the client reads the slots again when a node
 *       answers {@code MOVED} or {@code ASK}, when a connection fails to come back, or every
 *       minute, at most every 5 s, so commands follow a promoted replica's slots. The Cluster's
 *       pub/sub is relayed by every node to all.
 * </ul>
 * Or on a client the caller made and shuts down ({@link #of(RedisClient)},
 * {@link #of(RedisClusterClient)}), with that client's options and the same timeout.
 *
 * <p>Both connections are open once a factory returns, which blocks until then; a factory that
 * fails closes what it opened, and shuts down the client it made. Thread-safe, as Lettuce's
 * connections are.
 */
final class FleetConnection implements AutoCloseable {

  /** How long each command may take before it fails. */
  static final Duration TIMEOUT = Duration.ofMillis(1000);
  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);
  /** How long a client {@link #connect} made waits before it tries to reconnect: from 1 ms, doubling, at most 1 s. */
  private static final Delay RECONNECT_DELAY = Delay.exponential(Duration.ofMillis(1), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);

  private final AbstractRedisClient client;
  private final boolean owned;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final StatefulRedisPubSubConnection<String, String> pubSub;

  private FleetConnection(AbstractRedisClient client, boolean owned, Connected connected,
      StatefulRedisPubSubConnection<String, String> pubSub) {
    this.client = client;
    this.owned = owned;
    this.connection = connected.connection();
    this.commands = connected.commands();
    this.pubSub = pubSub;
  }

  /** Connects to the server, or the Sentinels' master, at {@code redisUri}, on a client of its own. */
  static FleetConnection connect(String redisUri) {
    RedisURI uri = parseUri(redisUri);
    RedisClient client = RedisClient.create(resources(), uri);
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
        .build());
    return open(client, true);
  }

  /** Connects to the Redis Cluster that {@code seedUris} are nodes of, on a client of its own. */
  static FleetConnection connectCluster(List<String> seedUris) {
    List<RedisURI> seeds = parseSeeds(seedUris);
    RedisClusterClient client = RedisClusterClient.create(resources(), seeds);
    client.setOptions(ClusterClientOptions.builder() // a node's connection opens at its first command: not rejected
        .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(5))
            .refreshTriggersReconnectAttempts(3)
            .enablePeriodicRefresh(Duration.ofMinutes(1))
            .build())
        .build());
    return open(client, true);
  }

  /** Connects on {@code client}, which {@link #close()} leaves running. */
  static FleetConnection of(RedisClient client) {
    return open(client, false);
  }

  /** Connects on {@code client}, which {@link #close()} leaves running. */
  static FleetConnection of(RedisClusterClient client) {
    return open(client, false);
  }

  /** The resources of a client of its own: its threads, and how soon it tries to reconnect. */
  private static ClientResources resources() {
    return ClientResources.builder().reconnectDelay(RECONNECT_DELAY).build();
  }

  /** The connection for commands, and the commands both kinds of connection share. */
  private record Connected(StatefulConnection<String, String> connection, RedisClusterAsyncCommands<String, String> commands) {}

  private static FleetConnection open(RedisClient client, boolean owned) {
    return open(client, owned, () -> {
      var connection = client.connect();
      return new Connected(connection, connection.async());
    }, client::connectPubSub);
  }

  private static FleetConnection open(RedisClusterClient client, boolean owned) {
    return open(client, owned, () -> {
      var connection = client.connect();
      return new Connected(connection, connection.async());
    }, client::connectPubSub);
  }

  /** Opens both connections on {@code client}, or closes what it opened, shuts the client down if owned, and throws. */
  private static FleetConnection open(AbstractRedisClient client, boolean owned, Supplier<Connected> connect,
      Supplier<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub) {
    @Nullable Connected connected = null;
    @Nullable StatefulRedisPubSubConnection<String, String> pubSub = null;
    try {
      connected = connect.get();
      connected.connection().setTimeout(TIMEOUT);
      pubSub = connectPubSub.get();
      pubSub.setTimeout(TIMEOUT);
      return new FleetConnection(client, owned, connected, pubSub);
    } catch (RuntimeException e) {
      if (pubSub != null) {
        pubSub.close();
      }
      if (connected != null) {
        connected.connection().close();
      }
      if (owned) {
        shutdown(client);
      }
      throw e;
    }
  }

  /** The commands, for one server or for a Cluster, whose keys' slots Lettuce routes. */
  RedisClusterAsyncCommands<String, String> commands() {
    return commands;
  }

  /** Lettuce's computation threads (its event executor group), not the ones that read Redis. */
  Executor computations() {
    return client.getResources().eventExecutorGroup();
  }

  /**
   * Lettuce's computation threads, to schedule on: the fleet's heartbeat runs there, as it only
   * sends commands.
   */
  ScheduledExecutorService scheduler() {
    return client.getResources().eventExecutorGroup();
  }

  /** Hands every message of {@code channels} to {@code listener}, on the thread that reads Redis; blocks until subscribed. */
  void subscribe(RedisPubSubListener<String, String> listener, String... channels) {
    pubSub.addListener(listener);
    pubSub.sync().subscribe(channels);
  }

  /** Closes both connections, and shuts the client down if a factory made it. */
  @Override
  public void close() {
    try {
      pubSub.close();
      connection.close();
    } finally {
      if (owned) {
        shutdown(client);
      }
    }
  }

  /** Shuts down a client {@link #connect} or {@link #connectCluster} made, and its resources (its own, which the client does not shut down). */
  private static void shutdown(AbstractRedisClient client) {
    try {
      client.shutdown(Duration.ZERO, SHUTDOWN_TIMEOUT);
    } finally {
      client.getResources().shutdown(0, SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * {@code redisUri} as Lettuce reads it: a server's or its Sentinels' ({@code redis://},
   * {@code rediss://}, {@code redis-sentinel://} and their TLS forms), never a Unix socket's.
   *
   * @throws IllegalArgumentException if it is blank, not a Redis URI, or a Unix socket's, saying which
   */
  static RedisURI parseUri(String redisUri) {
    Objects.requireNonNull(redisUri, "redisUri");
    if (redisUri.isBlank()) {
      throw new IllegalArgumentException(
          Redaction.printable("redis URI '" + redisUri + "' is blank: expected one like redis://127.0.0.1:6379"));
    }
    RedisURI uri;
    try {
      uri = RedisURI.create(redisUri);
    } catch (RuntimeException e) { // Lettuce and java.net.URI say what is wrong; the password is not repeated
      throw new IllegalArgumentException(Redaction.printable("redis URI '" + Redaction.userInfo(redisUri)
          + "' is not a Redis URI: expected one like redis://127.0.0.1:6379 (" + Redaction.userInfo(String.valueOf(e.getMessage())) + ")"));
    }
    if (uri.getSocket() != null) { // parsed, but connecting needs Netty's epoll or kqueue, which the module does not ship
      throw new IllegalArgumentException(Redaction.printable("redis URI '" + Redaction.userInfo(redisUri)
          + "' is a Unix socket's: Unix sockets are not supported (they need a native transport this module does not"
          + " ship); use redis://HOST:PORT"));
    }
    return uri;
  }

  /** The seeds of a Cluster, each parsed as {@link #parseUri} does, none a Sentinel's. */
  static List<RedisURI> parseSeeds(List<String> seedUris) {
    Objects.requireNonNull(seedUris, "seedUris");
    if (seedUris.isEmpty()) {
      throw new IllegalArgumentException("no seed URIs for the Redis Cluster: expected one or more like redis://127.0.0.1:7000");
    }
    List<RedisURI> seeds = new ArrayList<>(seedUris.size());
    for (String seedUri : seedUris) {
      RedisURI seed = parseUri(Objects.requireNonNull(seedUri, "seed URI"));
      if (!seed.getSentinels().isEmpty()) {
        throw new IllegalArgumentException(Redaction.printable("redis URI '" + Redaction.userInfo(seedUri) + "' is a Sentinel's: a Cluster's"
            + " seeds are its nodes' URIs, like redis://127.0.0.1:7000; for Sentinel, use connect"));
      }
      seeds.add(seed);
    }
    return seeds;
  }
}

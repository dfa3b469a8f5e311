package io.hostpace.redis;

import io.hostpace.internal.Failures;
import io.hostpace.Hostpace;
import io.hostpace.internal.Redaction;
import io.hostpace.spi.FailureLog;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.Fleet.Kept;
import io.hostpace.spi.Fleet.Spent;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Fleet} over Redis (SPEC S2, S3), one server or a Redis Cluster (SPEC S5): the processes that connect to one Redis with one fleet
 * name share what hosts' answers taught, the spacing of paced hosts' starts, the places of
 * hosts with a learned in-flight limit, and the places of the windows of hosts with a learned quota;
 * and what each host taught is kept in Redis, so that a process that meets the host later (a
 * worker that joins late, or restarts) starts from it instead of from nothing.
 *
 * <pre>{@code
 * RedisFleet fleet = RedisFleet.connect("redis://redis.internal:6379", "crawlers");
 * Hostpace engine = Hostpace.builder().fleet(fleet).build();
 * ...
 * fleet.close();                                      // the engine does not close its fleet
 *
 * RedisFleet onCluster = RedisFleet.connectCluster(
 *     List.of("redis://10.0.0.1:7000", "redis://10.0.0.2:7000"), "crawlers");   // seeds: any of its nodes
 * }</pre>
 *
 * <h2>In Redis</h2>
 * For the fleet {@code crawlers} (names made by {@link RedisKeys}):
 * <pre>
 * hostpace:crawlers:lessons                channel  one PUBLISH per lesson told     (see Messages)
 * hostpace:crawlers:last:{tag}:{key}       string   the key's last granted start,   (see ClaimScript)
 *                                                   in microseconds of Redis's clock, expiring once
 *                                                   it can no longer hold a start back
 * hostpace:crawlers:shortest:{tag}:{key}   string   the shortest interval claimed   (see ClaimScript)
 *                                                   of the key lately, in microseconds, expiring
 *                                                   one and a half of it after it was last claimed
 * hostpace:crawlers:places:{tag}:{key}     zset     the key's places held: members  (see PlaceScript)
 *                                                   {origin}:{place}, scored by when their lease runs
 *                                                   out in microseconds of Redis's clock, expiring a
 *                                                   second after the last lease in it; the key is a
 *                                                   host's ({host}) or its learned quota's ({host}/quota)
 * hostpace:crawlers:waiters:{tag}:{key}    zset     the claims that wait for one of (see PlaceScript)
 *                                                   the key's places: members {origin}:{place}, scored
 *                                                   by when each began to wait, in microseconds of
 *                                                   Redis's clock
 * hostpace:crawlers:waiter-terms:{tag}:{key}  hash  each waiting claim's term:      (see PlaceScript)
 *                                                   when it ends unless renewed, its limit, its lease
 * hostpace:crawlers:granted:{origin}       channel  one PUBLISH per place granted   (see PlaceScript)
 *                                                   to a claim of the process {origin} that waited
 * hostpace:crawlers:announced:{tag}:{key}  hash     what the key's host announced   (see AnnouncedScripts)
 *                                                   and the fleet's spends of it, expiring an hour
 *                                                   after the announcement's reset
 * hostpace:crawlers:kept:{tag}:{key}       string   what the key's answers taught   (see KeptScripts)
 *                                                   the process that kept it last, versioned, expiring
 *                                                   the engine's forgetIdleAfter after it was kept
 * hostpace:crawlers:processes:{crawlers}   zset     the fleet's processes alive:    (see PlaceScript)
 *                                                   members v2:{origin}, scored by when each one's own
 *                                                   lease runs out after its last heartbeat, in
 *                                                   microseconds of Redis's clock ({@link #processes})
 * </pre>
 * where {@code {tag}} is, in braces as written, the key's hash tag: the last two labels of its
 * host or group ({@code hostpace:crawlers:last:{wikidata.org}:query.wikidata.org}), an IP
 * literal or one-label name whole. On a Redis Cluster a host's keys and its groups' share a slot,
 * so a script that claims a start of both touches one slot, and hosts of different domains spread
 * over the slots. A group of one label ({@code *.org}) would be in another slot than its hosts;
 * no engine writes one, and the fleet refuses it as any key no engine writes
 * ({@link Hostpace#checkKey}). A claim of keys in two slots (hosts of two domains, through the
 * {@code Fleet} interface) is refused by the Cluster ({@code CROSSSLOT}) and answered
 * {@link Fleet#UNCLAIMED} ({@link RedisKeys} says why the tag is so).
 *
 * A lesson costs one PUBLISH; a change of what a host taught a script call (kept again, if
 * unchanged, each quarter of the engine's forgetIdleAfter while the host answers); a host an
 * engine meets a script call before its first start; a paced start costs a script call per claim (EVALSHA, and EVAL once if Redis
 * does not know the script yet); a start of a host with a learned in-flight limit costs a script call
 * per claim of a place, and one when its answer comes (the release, which grants the place to the
 * claim that waited longest and tells its process, a PUBLISH): a claim that finds the places all held
 * waits in Redis for its grant, and is not asked again; and each third of the lease a script call
 * per key this process holds places of, however many it holds there; a start of a host with a learned quota a
 * script call per claim of one of its places, and a ZREM only when it is refused. A lesson carries durations only, and claims
 * are timed by Redis's {@code TIME} alone, so the processes need not share a clock.
 *
 * <h2>Places and their lease</h2>
 * A learned quota's place is held for the window the engine asks it for, unless released before;
 * none waits for one. A claim of any other place may wait when all are held
 * ({@link #claimPlace(String, long, int, LongConsumer, LongConsumer)}): it is granted in its turn,
 * and this process hears it on its own channel, which it subscribes with the fleet's lessons.
 * Any other place is held until it is {@linkplain #releasePlace released}, on a short lease that
 * this process renews while it lives: 10 seconds unless {@linkplain #placeLease changed}, renewed
 * every third of it (a heartbeat, one script call per key this process holds places of, on
 * Redis's clock). So a request that holds its place for minutes keeps counting while its process
 * lives, and the places of a process that dies (killed, its machine gone) or whose release was
 * lost are free again within a lease: the others may use the host's whole limit seconds later.
 * A renewal never brings back a place Redis no longer holds (released, run out, or lost with a
 * Redis that restarted empty).
 *
 * <p>While Redis is unreachable, renewals fail ({@linkplain #renewalsLost counted}) and claims are
 * unclaimed, so each process holds to its share of a host's places, the limit over the
 * {@linkplain #processes processes} last counted, rounded up (SPEC S4). A process cut off from a Redis the
 * others still reach for longer than the lease loses its places there: until its requests end, the
 * fleet may hold that many more of the host's requests than its limit. A lease a little longer
 * than the longest pause a process may make (a garbage collection, a machine under load) keeps
 * that from happening while it lives; a shorter one gives a dead process's places back sooner.
 *
 * <h2>Never blocking, always answering</h2>
 * The engine calls {@link #tell}, {@link #listen}, {@link #claimStart}, {@link #claimPlace},
 * {@link #releasePlace}, {@link #keep}, {@link #recall}, {@link #announce} and
 * {@link #spendAnnounced} under its lock, so none of them waits for Redis: each sends its command and
 * returns. Both connections are opened, and the channel subscribed, by {@link #connect},
 * {@link #connectCluster} and the {@code of} methods, which block until then; so no call of the
 * engine ever connects to Redis (on a Cluster, Lettuce opens a node's connection with the first
 * command for it, without blocking), and a fleet hears every lesson published after it was built.
 * Lettuce reconnects, and subscribes again, by itself after Redis restarts; on a Cluster it
 * follows a key's slot to the master that holds it now ({@code MOVED}), and reads the slots again.
 *
 * <p>Invariant: every claim, of a start or of a place, and every recall, is answered exactly once,
 * later, never from within {@code claimStart}, {@code claimPlace} or {@code recall}: by Redis's
 * answer, or by {@link Fleet#UNCLAIMED} (a recall: null, nothing known) when Redis failed, did not
 * answer within 1 s, or the fleet is closed. An answer that is ready
 * before the claim returns (Lettuce rejects commands at once while disconnected) hops to another
 * thread. A lesson, a release or a renewal is sent at most once and may be lost; those lost are counted
 * ({@link #lessonsLost}, {@link #releasesLost}, {@link #renewalsLost}). With Redis down for 10 s while a host is paced
 * at 2 a second: 20 claims answer {@code UNCLAIMED}
 * (each at once for a fleet that {@link #connect connected} itself, after 1 s for one
 * {@link #of given} a client with Lettuce's defaults), the engine paces those starts alone, and
 * {@link #claimsUnclaimed()} reads 20.
 *
 * <p>What Redis failed is also said at {@code WARNING} on the {@code System.Logger}
 * {@code io.hostpace.redis.RedisFleet}, with the exception: at most once a minute for each kind
 * (a lesson, a keep, a release, a renewal, a claim, a recall), the next line saying how many of that kind
 * failed so far, so the 10 s outage above logs one line for the claims, not 20.
 *
 * <p>Thread-safe: engines on several threads may share one fleet. Lettuce's connections are
 * thread-safe; the listeners are a copy-on-write list; {@code closed} is atomic; the lease is
 * volatile, and a claim or a renewal reads it once; the places held are concurrent sets in a
 * concurrent map, added to when a claim is answered (on Lettuce's threads) and removed from when
 * the engine releases (on its own), and the heartbeat, on Lettuce's threads, reads them as they are. Lessons and claims are answered on Lettuce's computation
 * threads (its event executor group), never on the thread that reads Redis: what an engine does
 * with them (learn, start requests, tell its listeners) cannot hold up the connection.
 */
public final class RedisFleet implements Fleet, AutoCloseable {

  /** How long a claim may take before it answers {@link Fleet#UNCLAIMED}, in milliseconds: a command's timeout. */
  static final long TIMEOUT_MILLIS = FleetConnection.TIMEOUT.toMillis();
  /**
   * How long a place is held unless released or renewed: renewed every third of it, it outlasts
   * two renewals lost in a row (each times out after 1 s), and a dead process's places come back
   * within seconds.
   */
  static final Duration DEFAULT_PLACE_LEASE = Duration.ofSeconds(10);
  /** The shortest lease: a heartbeat every third of it is a renewal every 333 ms, each a script call per key. */
  private static final Duration MIN_PLACE_LEASE = Duration.ofSeconds(1);
  private static final Duration MAX_PLACE_LEASE = Duration.ofDays(1);
  /** How many renewals a lease holds: the heartbeat beats every lease divided by it. */
  private static final int RENEWALS_PER_LEASE = 3;
  private static final int MAX_NAME_LENGTH = 64;
  /** What follows a host's key in the key of its learned quota's places, and of its window probe's one place. */
  private static final String QUOTA = "/quota";
  private static final String PROBE = "/probe";
  private static final SecureRandom IDS = new SecureRandom();

  private final String origin;
  private final String fleetName;
  private final RedisKeys names;
  private final String channel;
  /** This process's channel of the places granted to its claims that waited ({@link PlaceScript#GRANTED}). */
  private final String grantedChannel;
  /** Every process's channel of grants, but the process's id that ends it. */
  private final String grantedChannels;
  private final FleetConnection redis;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final Executor callbacks;
  private final String claimDigest;
  private final String placeDigest;
  private final String waitingPlaceDigest;
  private final String releaseDigest;
  private final String renewDigest;
  private final String keepDigest;
  private final String recallDigest;
  private final String announceDigest;
  private final String spendDigest;
  private final String processesDigest;
  private final String recallOrKeepDigest;
  /** The fleet's key of its processes alive ({@link PlaceScript#PROCESSES}). */
  private final String processesKey;
  /** How many processes the heartbeat last counted, this one included; kept while Redis cannot be reached. */
  private volatile int processes = 1;
  private final List<Registration> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Whether this fleet said that Redis keeps a host in a format this release does not read: once, not at each read. */
  private final AtomicBoolean toldUnread = new AtomicBoolean();
  private final LongAdder lessonsLost = new LongAdder();
  private final LongAdder claimsUnclaimed = new LongAdder();
  private final LongAdder releasesLost = new LongAdder();
  private final LongAdder renewalsLost = new LongAdder();
  private final LongAdder keepsLost = new LongAdder();
  private final LongAdder recallsUnanswered = new LongAdder();
  /** Warns of what Redis failed, at most once a minute per kind: an outage of seconds fails thousands of commands. */
  private final FailureLog failures = FailureLog.of(RedisFleet.class);
  private volatile long placeLeaseMicros = leaseMicros(DEFAULT_PLACE_LEASE); // set by placeLease, read once a claim
  /**
   * The places this process holds on the fleet's lease, by the engine's key: a member from a
   * claim's answer above 0, or its grant, until its release; what the heartbeat renews.
   */
  private final Map<String, Set<String>> held = new ConcurrentHashMap<>();
  /**
   * This process's claims of places that wait, or may (asked, not answered yet), by the engine's
   * key and then the member: what hears each one's grant, and what the heartbeat renews.
   */
  private final Map<String, Map<String, Waiting>> waiting = new ConcurrentHashMap<>();
  /** How many scripts this fleet sent (EVALSHA, or EVAL when Redis did not know it): for tests and measures. */
  final LongAdder scriptsSent = new LongAdder();
  /** Guards {@link #heartbeat}: {@link #placeLease} and {@link #close} replace or cancel it. */
  private final Object beating = new Object();
  private @Nullable ScheduledFuture<?> heartbeat;

  private RedisFleet(String fleetName, FleetConnection redis) {
    byte[] id = new byte[8];
    IDS.nextBytes(id);
    this.origin = HexFormat.of().formatHex(id);
    this.fleetName = fleetName;
    this.names = new RedisKeys(fleetName);
    this.channel = names.lessons();
    this.grantedChannel = names.granted(origin);
    this.grantedChannels = names.granted("");
    this.redis = redis;
    this.commands = redis.commands();
    Executor lettuce = redis.computations();
    this.callbacks = new SerialExecutor(task -> {
      try {
        lettuce.execute(task);
      } catch (RejectedExecutionException shutDown) { // the client was shut down: the claim is still answered
        ForkJoinPool.commonPool().execute(task);
      }
    });
    this.claimDigest = commands.digest(ClaimScript.SOURCE);
    this.placeDigest = commands.digest(PlaceScript.SOURCE);
    this.waitingPlaceDigest = commands.digest(PlaceScript.CLAIM);
    this.releaseDigest = commands.digest(PlaceScript.RELEASE);
    this.renewDigest = commands.digest(PlaceScript.RENEW);
    this.keepDigest = commands.digest(KeptScripts.KEEP);
    this.recallDigest = commands.digest(KeptScripts.RECALL);
    this.announceDigest = commands.digest(AnnouncedScripts.ANNOUNCE);
    this.spendDigest = commands.digest(AnnouncedScripts.SPEND);
    this.processesDigest = commands.digest(PlaceScript.PROCESSES);
    this.recallOrKeepDigest = commands.digest(KeptScripts.RECALL_OR_KEEP);
    this.processesKey = names.processes();
  }

  /**
   * A fleet named {@code fleetName} on the Redis at {@code redisUri}, on a client of its own that
   * {@link #close()} shuts down. Blocks until both its connections are open and it listens to the
   * fleet's channel.
   *
   * <p>Its client rejects commands at once while it is disconnected (so lessons do not pile up
   * while Redis is down), times each command out after 1 s, and reconnects by itself, trying at
   * least once a second (SPEC S4: Lettuce's own backoff grows to 30 s, so after a long outage the
   * fleet would rejoin seconds after Redis came back, its processes pacing alone meanwhile).
   *
   * <p>A Sentinel's URI ({@code redis-sentinel://10.0.0.1:26379,10.0.0.2:26379#mymaster}) connects
   * to the master the Sentinels name, and to the one they name next whenever the connection is
   * lost: when the master dies and a replica is promoted, claims are unclaimed until the
   * Sentinels have promoted it, then go to it.
   *
   * @param redisUri a Lettuce Redis URI: {@code redis://127.0.0.1:6379}, {@code rediss://:secret@host:6380/0},
   *     {@code redis-sentinel://127.0.0.1:26379#mymaster}; not a Unix socket's ({@code redis-socket://}),
   *     which needs a native transport this module does not ship
   * @param fleetName the fleet's name, shared by its processes: letters, digits, {@code .}, {@code _}
   *     or {@code -}, at most 64 characters
   * @throws IllegalArgumentException if {@code redisUri} is not a Redis URI or is a Unix socket's, or
   *     {@code fleetName} not a fleet name
   * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached
   * @throws io.lettuce.core.RedisCommandExecutionException if Redis answers the fleet's first script
   *     that it never runs them: a read-only replica ({@code READONLY}), a user without scripting
   *     ({@code NOPERM}), a command renamed or disabled; the message says which, and what to do. A
   *     Redis that does not answer it within 1 s is taken, its claims unclaimed until it answers
   */
  public static RedisFleet connect(String redisUri, String fleetName) {
    return open(fleetName, () -> FleetConnection.connect(redisUri));
  }

  /**
   * A fleet named {@code fleetName} on {@code client}'s Redis, which the fleet does not shut down.
   * Blocks until both its connections (the fleet's own, on {@code client}'s options) are open and
   * it listens to the fleet's channel. Each command is timed out after 1 s; with Lettuce's
   * default options, commands sent while disconnected wait for the reconnection until then.
   *
   * @param client a client created with a Redis URI ({@code RedisClient.create(uri)})
   * @param fleetName the fleet's name, shared by its processes: letters, digits, {@code .}, {@code _}
   *     or {@code -}, at most 64 characters
   * @throws IllegalArgumentException if {@code fleetName} is not a fleet name
   * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached
   * @throws io.lettuce.core.RedisCommandExecutionException if Redis answers the fleet's first script
   *     that it never runs them: a read-only replica ({@code READONLY}), a user without scripting
   *     ({@code NOPERM}), a command renamed or disabled; the message says which, and what to do. A
   *     Redis that does not answer it within 1 s is taken, its claims unclaimed until it answers
   */
  public static RedisFleet of(RedisClient client, String fleetName) {
    Objects.requireNonNull(client, "client");
    return open(fleetName, () -> FleetConnection.of(client));
  }

  /**
   * A fleet named {@code fleetName} on the Redis Cluster that {@code seedUris} are nodes of, on a
   * client of its own that {@link #close()} shuts down. Blocks until it has read the Cluster's
   * slots from a seed, both its connections are open and it listens to the fleet's channel; after
   * that, each claim goes to the master that holds its keys' slot.
   *
   * <p>Its client opens a connection to a node with the first command for it, and holds commands
   * while a node is disconnected, up to their timeout: each command is timed out after 1 s, so
   * while a master is unreachable its claims answer {@link Fleet#UNCLAIMED} after 1 s. It
   * reconnects by itself, trying at least once a second, and reads the Cluster's slots again when a node answers
   * {@code MOVED} or {@code ASK}, when a connection fails to come back, or every minute, at most
   * every 5 s: so when a replica is promoted, claims follow its slots to it. Lessons travel on
   * the Cluster's pub/sub, which every node relays to all.
   *
   * @param seedUris Lettuce Redis URIs of one or more of the Cluster's nodes: {@code redis://10.0.0.1:7000}
   * @param fleetName the fleet's name, shared by its processes: letters, digits, {@code .}, {@code _}
   *     or {@code -}, at most 64 characters
   * @throws IllegalArgumentException if there are no seeds, a seed is not a Redis URI or is a
   *     Sentinel's or a Unix socket's, or {@code fleetName} is not a fleet name
   * @throws io.lettuce.core.RedisException if no seed can be reached or answers as a Cluster's node
   * @throws io.lettuce.core.RedisCommandExecutionException if Redis answers the fleet's first script
   *     that it never runs them: a read-only replica ({@code READONLY}), a user without scripting
   *     ({@code NOPERM}), a command renamed or disabled; the message says which, and what to do. A
   *     Redis that does not answer it within 1 s is taken, its claims unclaimed until it answers
   */
  public static RedisFleet connectCluster(List<String> seedUris, String fleetName) {
    return open(fleetName, () -> FleetConnection.connectCluster(seedUris));
  }

  /**
   * A fleet named {@code fleetName} on {@code client}'s Redis Cluster, which the fleet does not
   * shut down. Blocks until both its connections (the fleet's own, on {@code client}'s options)
   * are open and it listens to the fleet's channel. Each command is timed out after 1 s. Claims
   * follow a failover only as far as {@code client}'s options refresh its view of the slots
   * (Lettuce's {@code ClusterTopologyRefreshOptions}; {@link #connectCluster} enables the
   * adaptive triggers).
   *
   * @param client a client created with the Cluster's seed URIs ({@code RedisClusterClient.create(seeds)})
   * @param fleetName the fleet's name, shared by its processes: letters, digits, {@code .}, {@code _}
   *     or {@code -}, at most 64 characters
   * @throws IllegalArgumentException if {@code fleetName} is not a fleet name
   * @throws io.lettuce.core.RedisException if no node can be reached or answers as a Cluster's node
   * @throws io.lettuce.core.RedisCommandExecutionException if Redis answers the fleet's first script
   *     that it never runs them: a read-only replica ({@code READONLY}), a user without scripting
   *     ({@code NOPERM}), a command renamed or disabled; the message says which, and what to do. A
   *     Redis that does not answer it within 1 s is taken, its claims unclaimed until it answers
   */
  public static RedisFleet of(RedisClusterClient client, String fleetName) {
    Objects.requireNonNull(client, "client");
    return open(fleetName, () -> FleetConnection.of(client));
  }

  /**
   * Checks {@code fleetName}, then connects, and returns the fleet once it listens to its channel;
   * or closes what {@code connect} opened and throws.
   */
  private static RedisFleet open(String fleetName, Supplier<FleetConnection> connect) {
    String name = checkName(fleetName);
    FleetConnection redis = connect.get();
    RedisFleet fleet;
    @Nullable RedisCommandExecutionException refused;
    try {
      fleet = new RedisFleet(name, redis);
      redis.subscribe(fleet.new Dispatcher(), fleet.channel, fleet.grantedChannel);
      fleet.beatEvery(fleet.placeLeaseMicros);
      refused = fleet.count(Long.toString(fleet.placeLeaseMicros), true, true).join(); // counted in before its engine claims
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
    if (refused != null) { // a replica, a user without scripting: no claim would ever be granted
      fleet.close();
      throw refused;
    }
    fleet.loadReleaseScript();
    return fleet;
  }

  /**
   * Loads the script of a release into Redis, so that a release, sent without waiting for its
   * answer, runs before what this process sends after it: one that Redis did not know would be
   * sent again as an {@code EVAL} after its {@code NOSCRIPT}, behind a claim sent meanwhile. A load
   * that fails (on a Cluster it reaches one node) leaves that to the first release.
   */
  private void loadReleaseScript() {
    try {
      commands.scriptLoad(PlaceScript.RELEASE).toCompletableFuture().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | TimeoutException | RuntimeException e) { // the first release loads it
    }
  }

  static String checkName(String fleetName) {
    Objects.requireNonNull(fleetName, "fleetName");
    if (fleetName.isBlank()) {
      throw new IllegalArgumentException(Redaction.printable(
          "fleet name '" + fleetName + "' is blank: expected a name like 'crawlers' of letters, digits, '.', '_' or '-'"));
    }
    if (fleetName.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(Redaction.printable("fleet name '" + fleetName + "' is " + fleetName.length()
          + " characters long: expected at most " + MAX_NAME_LENGTH));
    }
    for (int at = 0; at < fleetName.length(); at++) {
      char c = fleetName.charAt(at);
      if (!nameChar(c)) {
        String shown = c > ' ' && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
        throw new IllegalArgumentException(Redaction.printable("fleet name '" + fleetName + "' has " + shown + " at index " + at
            + ", which would break its Redis key names: expected letters, digits, '.', '_' or '-'"));
      }
    }
    return fleetName;
  }

  private static boolean nameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  }

  /**
   * Publishes {@code lesson} to the fleet's other processes, and returns at once. A lesson that
   * cannot be published (Redis down, the fleet closed) is lost and {@linkplain #lessonsLost counted}.
   *
   * @throws IllegalArgumentException if the lesson's key is not a host's or a group's key as the
   *     engine writes it ({@link Hostpace#checkKey}): no other process would hear it
   */
  @Override
  public void tell(Lesson lesson) {
    Objects.requireNonNull(lesson, "lesson");
    String message = Messages.encode(origin, lesson);
    send("lesson", lessonsLost, () -> commands.publish(channel, message));
  }

  /**
   * Sends {@code command} and returns at once; one that cannot be sent or fails (Redis down, the
   * fleet closed) is counted in {@code lost}, and one that Redis failed is {@linkplain #warn warned of}.
   */
  private void send(String kind, LongAdder lost, Supplier<? extends CompletionStage<?>> command) {
    if (closed.get()) {
      lost.increment();
      return;
    }
    try {
      command.get().whenComplete((done, error) -> {
        if (error != null) {
          lost.increment();
          warn(kind, lost, error);
        }
      });
    } catch (RuntimeException e) { // the connection closed under us
      lost.increment();
      warn(kind, lost, e);
    }
  }

  /**
   * Warns, on the logger {@code io.hostpace.redis.RedisFleet}, that a {@code kind} (a lesson, a
   * keep, a release, a renewal, a claim, a recall) failed for {@code error}: at most once a minute per kind,
   * saying how many were not ({@link FailureLog}), so a Redis down for 10 s while a host is paced
   * logs at most five lines, not one per command. Nothing is said once the fleet is closed: what
   * is lost then is the closer's doing, and counted.
   */
  private void warn(String kind, LongAdder counted, Throwable error) {
    if (closed.get()) {
      return;
    }
    Throwable cause = Failures.unwrap(error);
    failures.failed(kind, () -> "fleet '" + fleetName + "': a " + kind + " failed on Redis (" + counted.sum()
        + " so far): " + reason(cause), cause);
  }

  /** What went wrong, in words: the exception's message, or what a timeout means here. */
  private static String reason(Throwable cause) {
    if (cause instanceof TimeoutException) {
      return "no answer within " + TIMEOUT_MILLIS + " ms";
    }
    String message = cause.getMessage();
    return message == null || message.isBlank() ? cause.getClass().getSimpleName() : Redaction.userInfo(message);
  }

  /**
   * Runs the script {@code source} on {@code key} alone, with no arguments, and hands its list
   * answer, or why there is none, to {@code answer}, exactly once; the fleet closed, or the
   * connection closed under us, is such a why.
   */
  private void askList(String source, String digest, String key,
      BiConsumer<@Nullable List<Object>, @Nullable Throwable> answer) {
    if (closed.get()) {
      answer.accept(null, new IllegalStateException("the fleet is closed"));
      return;
    }
    try {
      this.<List<Object>>script(source, digest, ScriptOutputType.MULTI, new String[] {key}, new String[0])
          .whenComplete(answer);
    } catch (RuntimeException e) { // the connection closed under us
      answer.accept(null, e);
    }
  }

  /** Gives an answer ({@code delivery}) on another thread ({@link #callbacks}); what it throws is the engine's own. */
  private void answer(Runnable delivery) {
    callbacks.execute(() -> {
      try {
        delivery.run();
      } catch (RuntimeException e) { // the engine's to handle; Lettuce's thread goes on
      }
    });
  }

  /** True: what hosts taught is kept in Redis, for a process that meets the host later (SPEC S3). */
  @Override
  public boolean keeps() {
    return true;
  }

  /**
   * Keeps {@code kept} as what {@code key}'s answers taught, in one script call, and returns at
   * once: in Redis for {@code keepForNanos} (rounded up to a millisecond), its pause and full
   * window as instants of Redis's clock; {@link Kept#NOTHING} deletes it. One that cannot be sent
   * (Redis down, the fleet closed) is lost and {@linkplain #keepsLost counted}.
   *
   * @throws IllegalArgumentException if {@code key} is not a host's or a group's key as the engine
   *     writes it ({@link Hostpace#checkKey}), or {@code keepForNanos} negative
   */
  @Override
  public void keep(String key, Kept kept, long keepForNanos) {
    Hostpace.checkKey(key);
    Objects.requireNonNull(kept, "kept");
    if (keepForNanos < 0) {
      throw new IllegalArgumentException("keepForNanos must be at least 0, was " + keepForNanos);
    }
    String[] keys = {names.kept(key)};
    String[] args = KeptScripts.keepArgs(kept, keepForNanos);
    send("keep", keepsLost, () -> script(KeptScripts.KEEP, keepDigest, ScriptOutputType.INTEGER, keys, args));
  }

  /**
   * Reads what the fleet keeps of {@code key}, in one script call, and returns at once; {@code
   * then} hears, later and on another thread, exactly once, what is kept (its pause and full window
   * as what is left of them at Redis's look), or null: nothing kept, a later release's format, or
   * Redis failed, did not answer within 1 s, or the fleet is closed ({@linkplain
   * #recallsUnanswered counted}).
   *
   * @throws IllegalArgumentException if {@code key} is not a host's or a group's key as the
   *     engine writes it ({@link Hostpace#checkKey})
   */
  @Override
  public void recall(String key, Consumer<@Nullable Kept> then) {
    Hostpace.checkKey(key);
    Objects.requireNonNull(then, "then");
    askList(KeptScripts.RECALL, recallDigest, names.kept(key), (read, error) -> {
      if (error != null) {
        recallsUnanswered.increment();
        warn("recall", recallsUnanswered, error);
      }
      Kept kept = error == null ? KeptScripts.read(read) : null;
      if (error == null && read != null && kept == null) {
        unread(key, read);
      }
      answer(() -> then.accept(kept));
    });
  }

  /**
   * Reads what the fleet keeps of {@code key}, having kept {@code kept} first if nothing was, in
   * one script call, and returns at once: processes that rejoin together all read the first one's.
   * {@code then} hears, as {@link #recall}'s does, what is kept then, or null (Redis failed, did
   * not answer within 1 s, or the fleet is closed: {@linkplain #recallsUnanswered counted}). A text
   * this release does not read (a later release's format) is nothing kept, as {@link #recall} reads
   * it: {@code then} hears {@code kept}, what this process holds, as the first to rejoin would (the
   * text is left as it is, and said once at {@code INFO}), not null, which would have the engine
   * ask again as if Redis could not be asked.
   *
   * @throws IllegalArgumentException if {@code key} is not a host's or a group's key as the
   *     engine writes it ({@link Hostpace#checkKey}), or {@code keepForNanos} negative
   */
  @Override
  public void recallOrKeep(String key, Kept kept, long keepForNanos, Consumer<@Nullable Kept> then) {
    Hostpace.checkKey(key);
    Objects.requireNonNull(kept, "kept");
    Objects.requireNonNull(then, "then");
    if (keepForNanos < 0) {
      throw new IllegalArgumentException("keepForNanos must be at least 0, was " + keepForNanos);
    }
    String[] args = KeptScripts.recallOrKeepArgs(kept, keepForNanos);
    if (closed.get()) {
      recallsUnanswered.increment();
      answer(() -> then.accept(null));
      return;
    }
    CompletableFuture<List<Object>> read;
    try {
      read = this.<List<Object>>script(KeptScripts.RECALL_OR_KEEP, recallOrKeepDigest, ScriptOutputType.MULTI,
          new String[] {names.kept(key)}, args);
    } catch (RuntimeException e) { // the connection closed under us
      read = CompletableFuture.failedFuture(e);
    }
    read.whenComplete((answer, error) -> {
      if (error != null) {
        recallsUnanswered.increment();
        warn("recall", recallsUnanswered, error);
      }
      Kept understood = error == null ? KeptScripts.read(answer) : null;
      if (error == null && understood == null) { // answered, in a text this release does not read: nothing kept, and this one's stands
        unread(key, answer);
      }
      Kept now = error == null && understood == null ? kept : understood;
      answer(() -> then.accept(now));
    });
  }

  /**
   * Says once, at {@code INFO} on this class's logger, that Redis keeps {@code key} in a text this
   * release does not read ({@code answer}'s, a later release's format or a text cut short), which it
   * reads as nothing kept (SPEC S3); later reads of such texts are not said again. An answer
   * without a text (nothing kept) says nothing.
   */
  private void unread(String key, @Nullable List<?> answer) {
    Object text = answer == null || answer.isEmpty() ? null : answer.get(0);
    if (text != null && toldUnread.compareAndSet(false, true)) { // none: nothing is kept
      String version = String.valueOf(text).split("\t", 2)[0];
      System.getLogger(RedisFleet.class.getName()).log(System.Logger.Level.INFO, () -> "fleet '" + fleetName
          + "': what Redis keeps of '" + key + "' is a text this release (formats " + KeptScripts.VERSION + " and "
          + KeptScripts.ANNOUNCED_VERSION + ") does not read, of format '" + version + "' (a later release's?):"
          + " read as nothing kept; texts like it are not said again");
    }
  }

  /**
   * Tells the fleet what {@code key}'s host announced (SPEC R8, S3), in one script call, and returns
   * at once ({@link AnnouncedScripts}). One that cannot be sent is lost and {@linkplain #keepsLost
   * counted}.
   *
   * @throws IllegalArgumentException if {@code key} is not a host's key as the engine writes it
   *     ({@link Hostpace#checkKey}; a group announces nothing), or a number negative
   */
  @Override
  public void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {
    checkHostKey(key);
    if (remaining < 0 || resetNanos < 0 || spentBefore < 0 || limit < 0 || windowNanos < 0) {
      throw new IllegalArgumentException("an announcement's numbers are never negative: remaining " + remaining
          + ", reset in " + resetNanos + " ns, after spend " + spentBefore + ", " + limit + " a " + windowNanos
          + " ns window");
    }
    String[] keys = {names.announced(key)};
    String[] args = {Long.toString(remaining), Long.toString(ClaimScript.micros(resetNanos)), Long.toString(spentBefore),
        Long.toString(limit > 0 && windowNanos > 0 ? limit : 0), Long.toString(ClaimScript.micros(windowNanos))};
    send("keep", keepsLost, () -> script(AnnouncedScripts.ANNOUNCE, announceDigest, ScriptOutputType.INTEGER, keys, args));
  }

  /**
   * Spends one of the starts {@code key}'s host announced (SPEC R8, S3), in one script call, and
   * returns at once; {@code then} hears, later and on another thread, exactly once, what the spend
   * got, or {@link Spent#UNCLAIMED} when Redis failed, did not answer within 1 s, or the fleet is
   * closed ({@linkplain #claimsUnclaimed counted}).
   *
   * @throws IllegalArgumentException if {@code key} is not a host's key as the engine writes it
   *     ({@link Hostpace#checkKey}; a group announces nothing)
   */
  @Override
  public void spendAnnounced(String key, Consumer<Spent> then) {
    checkHostKey(key);
    Objects.requireNonNull(then, "then");
    askList(AnnouncedScripts.SPEND, spendDigest, names.announced(key), (read, error) -> {
      Spent spent = error == null ? AnnouncedScripts.read(read) : null;
      if (spent == null) {
        claimsUnclaimed.increment();
      }
      if (error != null) {
        warn("claim", claimsUnclaimed, error);
      }
      Spent given = spent == null ? Spent.UNCLAIMED : spent;
      answer(() -> then.accept(given));
    });
  }

  /**
   * Calls {@code listener} on one of Lettuce's computation threads, in the order Redis sent them,
   * with every lesson another process of the fleet tells, until the returned handle is closed or
   * this fleet is. A listener that throws still
   * hears later lessons, and the other listeners still hear this one. Returns at once.
   */
  @Override
  public Listening listen(Consumer<Lesson> listener) {
    Registration registration = new Registration(Objects.requireNonNull(listener, "listener"));
    if (!closed.get()) {
      listeners.add(registration);
    }
    return registration;
  }

  /**
   * Claims a start now of every one of {@code keys} from Redis, in one script call, and returns at
   * once; {@code then} hears, later and on another thread, 0 for granted (all recorded), or how
   * many nanoseconds from Redis's look a claim may be granted (the longest of the keys' waits;
   * nothing recorded), or {@link Fleet#UNCLAIMED}. Each interval is rounded up to a whole
   * microsecond.
   *
   * @throws IllegalArgumentException if there are no keys, a key is not a host's or a group's key
   *     as the engine writes it ({@link Hostpace#checkKey}), the intervals are not one per key, or
   *     one is negative
   */
  @Override
  public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(intervalNanos, "intervalNanos");
    Objects.requireNonNull(then, "then");
    if (keys.isEmpty() || keys.size() != intervalNanos.length) {
      throw new IllegalArgumentException("a claim needs keys, and an interval for each: "
          + keys.size() + " keys, " + intervalNanos.length + " intervals");
    }
    String[] redisKeys = new String[2 * keys.size()];
    String[] args = new String[keys.size()];
    for (int i = 0; i < args.length; i++) {
      String key = Hostpace.checkKey(Objects.requireNonNull(keys.get(i), "key"));
      if (intervalNanos[i] < 0) {
        throw new IllegalArgumentException("intervalNanos must be at least 0, was " + intervalNanos[i]);
      }
      redisKeys[i] = names.last(key);
      redisKeys[args.length + i] = names.shortest(key);
      args[i] = Long.toString(ClaimScript.micros(intervalNanos[i]));
    }
    claim(ClaimScript.SOURCE, claimDigest, redisKeys, args, ClaimScript::nanos, then);
  }

  /**
   * Claims from Redis one of the {@code limit} places of {@code key} the fleet's processes hold at
   * once, for this process's request numbered {@code place}, and returns at once; {@code then}
   * hears, later and on another thread, how many places are held with this one (1 to
   * {@code limit}; a place this request already holds is counted once, and its lease is not
   * renewed by the claim), or 0 when all were held and nothing was claimed, or {@link Fleet#UNCLAIMED}. The
   * place is held until {@linkplain #releasePlace released} or until its lease runs out:
   * {@code leaseNanos} after the grant (rounded up to a microsecond) when above 0, not renewed;
   * else the {@linkplain #placeLease fleet's lease}, which this process renews while it lives
   * and holds the place.
   *
   * @throws IllegalArgumentException if {@code key} is not a host's or a group's key as the engine
   *     writes it ({@link Hostpace#checkKey}), one followed by {@code /quota}, {@code place} or
   *     {@code leaseNanos} negative, or {@code limit} less than 1
   */
  @Override
  public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
    checkPlace(key, place);
    Objects.requireNonNull(then, "then");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    if (leaseNanos < 0) {
      throw new IllegalArgumentException("leaseNanos must be at least 0, was " + leaseNanos);
    }
    String member = member(place);
    if (leaseNanos > 0) { // a quota's place, which its lease ends: none waits for it
      String[] args = {member, Integer.toString(limit), Long.toString(ClaimScript.micros(leaseNanos))};
      claim(PlaceScript.SOURCE, placeDigest, new String[] {names.places(key)}, args, count -> count, then);
      return;
    }
    claimHeld(key, member, limit, false, count -> { // held from before the engine hears it, so before its release
      if (count > 0 && !closed.get()) {
        hold(key, member);
      }
      then.accept(count);
    });
  }

  /**
   * Claims from Redis, as {@link #claimPlace(String, long, int, long, LongConsumer)} does a place
   * on the fleet's lease, one of the {@code limit} places of {@code key} for this process's request
   * numbered {@code place}, in one script call, and returns at once; but when all are held, the
   * claim waits in Redis (SPEC S2): {@code then} hears {@link Fleet#WAITING}, and when a place is let
   * go and this claim's turn has come (those that waited before it were granted or passed over),
   * Redis grants it in the script that let it go, and tells this process on its own channel:
   * {@code granted} hears how many places are held with it, on another thread. The claim waits while
   * this process renews it with its places (each third of the {@linkplain #placeLease lease});
   * closing the fleet withdraws it. A grant that comes before {@code then} heard {@link Fleet#WAITING} is its answer.
   *
   * @throws IllegalArgumentException as {@link #claimPlace(String, long, int, long, LongConsumer)}
   */
  @Override
  public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
    checkPlace(key, place);
    Objects.requireNonNull(then, "then");
    Objects.requireNonNull(granted, "granted");
    if (leasedOnly(key)) {
      throw new IllegalArgumentException(Redaction.printable(
          "key '" + key + "' is a learned quota's" + (key.endsWith(PROBE) ? " probe's" : "")
              + ": its places end by their lease, and none waits for them"));
    }
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    String member = member(place);
    Waiting claim = new Waiting(key, member, then, granted);
    waiting.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).put(member, claim); // before a grant can come
    claimHeld(key, member, limit, true, claim::answer);
  }

  /** Runs {@link PlaceScript#CLAIM} for {@code member} of {@code key}'s places; {@code wait}: whether it waits when all are held. */
  private void claimHeld(String key, String member, int limit, boolean wait, LongConsumer answered) {
    String[] keys = {names.places(key), names.waiters(key), names.waiterTerms(key)};
    String[] args = {member, Integer.toString(limit), Long.toString(placeLeaseMicros), wait ? "1" : "0", key,
        grantedChannels};
    claim(PlaceScript.CLAIM, waitingPlaceDigest, keys, args, count -> count == 0 && wait ? WAITING : count, answered);
  }

  /**
   * Releases the place {@code place} of {@code key} that this process holds, if it does, and
   * returns at once; it is no longer renewed. A release that cannot be sent (Redis down, the fleet closed) is
   * {@linkplain #releasesLost counted}, and the place is held until its lease runs out.
   *
   * @throws IllegalArgumentException if {@code key} is not one {@link #claimPlace} takes, or
   *     {@code place} negative
   */
  @Override
  public void releasePlace(String key, long place) {
    checkPlace(key, place);
    String member = member(place);
    if (leasedOnly(key)) { // a quota's place: none waits for it
      String places = names.places(key);
      send("release", releasesLost, () -> commands.zrem(places, member));
      return;
    }
    letGo(key, member);
    unwait(key, member, null);
    release(key, member);
  }

  /** Lets {@code member}'s place of {@code key} go in Redis, or withdraws it if it waits, and grants what is free to the claims that wait. */
  private void release(String key, String member) {
    String[] keys = {names.places(key), names.waiters(key), names.waiterTerms(key)};
    String[] args = {member, key, grantedChannels};
    send("release", releasesLost, () -> script(PlaceScript.RELEASE, releaseDigest, ScriptOutputType.INTEGER, keys, args));
  }

  /** Remembers that this process holds {@code member} of {@code key}'s places, for the heartbeat to renew. */
  private void hold(String key, String member) {
    held.compute(key, (k, members) -> {
      Set<String> holding = members != null ? members : ConcurrentHashMap.newKeySet();
      holding.add(member);
      return holding;
    });
  }

  /** Forgets {@code member} of {@code key}'s places, and the key once it holds none: the heartbeat renews it no more. */
  private void letGo(String key, String member) {
    held.computeIfPresent(key, (k, members) -> {
      members.remove(member);
      return members.isEmpty() ? null : members;
    });
  }

  /** Forgets the claim of {@code member} of {@code key}'s places that waits ({@code claim}, or any when null). */
  private void unwait(String key, String member, @Nullable Waiting claim) {
    waiting.computeIfPresent(key, (k, members) -> {
      if (claim == null) {
        members.remove(member);
      } else {
        members.remove(member, claim);
      }
      return members.isEmpty() ? null : members;
    });
  }

  /**
   * Redis granted this process's claim of {@code place} of {@code key} that waited, with
   * {@code count} places held ({@link PlaceScript#GRANTED}): its claim hears it; a claim this
   * process no longer has (withdrawn meanwhile, or answered otherwise) lets the place go at once.
   */
  private void granted(String key, long place, long count) {
    String member = member(place);
    Map<String, Waiting> members = waiting.get(key);
    Waiting claim = members == null ? null : members.get(member);
    if (claim == null || closed.get()) {
      if (!closed.get()) {
        release(key, member);
      }
      return;
    }
    claim.granted(count);
  }

  /**
   * (Re)starts the heartbeat: every third of {@code leaseMicros}, {@link #renewNow}, on Lettuce's
   * computation threads, which it never holds up (it only sends). Not once the fleet is closed.
   */
  private void beatEvery(long leaseMicros) {
    long period = TimeUnit.MICROSECONDS.toNanos(leaseMicros) / RENEWALS_PER_LEASE;
    synchronized (beating) {
      ScheduledFuture<?> before = heartbeat;
      if (before != null) {
        before.cancel(false);
      }
      if (closed.get()) {
        return;
      }
      try {
        heartbeat = redis.scheduler().scheduleWithFixedDelay(this::beat, period, period, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException shutDown) { // the client was shut down: places run out at their lease
        heartbeat = null;
      }
    }
  }

  /** One beat of the heartbeat; what it throws would end the schedule, so nothing does. */
  private void beat() {
    try {
      var unused = renewNow();
    } catch (RuntimeException e) { // the connection closed under us: counted and warned of in renewNow
    }
  }

  /**
   * Renews, on Redis's clock, the lease of every place this process holds on the fleet's lease:
   * one script call per key ({@link PlaceScript#RENEW}; on a Cluster a key's places are in one
   * slot), each returning at once. A renewal that fails is {@linkplain #renewalsLost counted} and
   * warned of, and its places run out at their lease unless the next renews them. What it returns
   * completes, never exceptionally, once every renewal sent was answered or failed.
   */
  CompletableFuture<Void> renewNow() {
    if (closed.get()) {
      return CompletableFuture.completedFuture(null);
    }
    String lease = Long.toString(placeLeaseMicros);
    List<CompletableFuture<?>> renewals = new ArrayList<>();
    renewals.add(count(lease, true, false));
    Set<String> keysHeld = new java.util.HashSet<>(held.keySet());
    keysHeld.addAll(waiting.keySet());
    for (String key : keysHeld) {
      List<String> args = new ArrayList<>();
      args.add(lease);
      args.addAll(held.getOrDefault(key, Set.of()));
      args.addAll(waiting.getOrDefault(key, Map.of()).keySet());
      if (args.size() == 1) {
        continue; // let go since it was read
      }
      String[] keys = {names.places(key), names.waiters(key), names.waiterTerms(key)};
      try {
        renewals.add(this.<Long>script(PlaceScript.RENEW, renewDigest, ScriptOutputType.INTEGER, keys,
            args.toArray(String[]::new)).handle((count, error) -> {
              if (error != null) {
                renewalsLost.increment();
                warn("renewal", renewalsLost, error);
              }
              return error == null; // whether it was renewed: what completes renewNow's answer, never exceptionally
            }));
      } catch (RuntimeException e) { // the connection closed under us
        renewalsLost.increment();
        warn("renewal", renewalsLost, e);
      }
    }
    return CompletableFuture.allOf(renewals.toArray(CompletableFuture<?>[]::new));
  }

  /**
   * Counts this process in the fleet's processes alive ({@code in}), or out, on Redis's clock, and
   * reads how many are: one script call ({@link PlaceScript#PROCESSES}), whose answer
   * {@link #processes()} returns from then on. One that fails is {@linkplain #renewalsLost counted}
   * and leaves the last count as it was; but the {@code first}'s failure that says Redis never
   * runs the fleet's scripts ({@link ScriptsRefused}) is not counted or warned of: it completes
   * what is returned, for {@link #open} to throw. Completes, never exceptionally, once answered or
   * failed, with that refusal or null.
   */
  private CompletableFuture<@Nullable RedisCommandExecutionException> count(String leaseMicros, boolean in,
      boolean first) {
    String[] keys = {processesKey};
    String[] args = {PlaceScript.PROCESS + origin, leaseMicros, in ? "1" : "0"};
    try {
      return this.<Long>script(PlaceScript.PROCESSES, processesDigest, ScriptOutputType.INTEGER, keys, args)
          .handle((count, error) -> {
            if (error != null) {
              RedisCommandExecutionException refused = first ? ScriptsRefused.of(fleetName, error) : null;
              if (refused != null) {
                return refused;
              }
              renewalsLost.increment();
              warn("renewal", renewalsLost, error);
            } else if (count != null && in) {
              processes = (int) Math.max(1, Math.min(Integer.MAX_VALUE, count));
            }
            return null;
          });
    } catch (RuntimeException e) { // the connection closed under us
      renewalsLost.increment();
      warn("renewal", renewalsLost, e);
      return CompletableFuture.completedFuture(null);
    }
  }

  /**
   * How many processes of the fleet are alive, this one included, as its heartbeat last counted
   * them (every third of the {@linkplain #placeLease lease}, from when it was built): each process
   * scores itself in a sorted set at each beat with when its own lease runs out, by Redis's clock,
   * and one whose lease ran out since its last beat (killed, cut off from Redis) is no longer
   * counted, whatever the lease of the process that counts. While Redis cannot be reached, the last
   * count stands; never below 1. The engine paces its starts at its share of a paced host's rate,
   * and holds its share of a host's places in flight, while claims are unclaimed (SPEC S4).
   */
  @Override
  public int processes() {
    return processes;
  }

  /** Whether {@code key} is a learned quota's places' or its window probe's, whose places end by their lease. */
  private static boolean leasedOnly(String key) {
    return key.endsWith(QUOTA) || key.endsWith(PROBE);
  }

  private static void checkPlace(String key, long place) {
    Objects.requireNonNull(key, "key");
    Hostpace.checkKey(leasedOnly(key) ? key.substring(0, key.lastIndexOf('/')) : key);
    if (place < 0) {
      throw new IllegalArgumentException("place must be at least 0, was " + place);
    }
  }

  /** A host's key the engine writes ({@link Hostpace#checkKey}), not a group's: what announces starts. */
  private static void checkHostKey(String key) {
    if (Hostpace.checkKey(key).startsWith("*.")) {
      throw new IllegalArgumentException(Redaction.printable(
          "key '" + key + "' is a group's: expected a host's key, such as 'example.org' (a group announces nothing)"));
    }
  }

  /** The sorted set's member for this process's request {@code place}. */
  private String member(long place) {
    return origin + ":" + place;
  }

  /**
   * Sets the lease of the places this process claims on the fleet's lease (not a learned quota's,
   * whose lease is its window): 10 seconds unless set. This process renews it every third of it
   * while it holds the place, so a request holds its place however long it takes while its process
   * lives; when the process dies, or its release is lost, the place is free again within a lease.
   * A longer lease rides out longer pauses of this process or of its way to Redis (one longer
   * than the lease, two thirds of it without a renewal, loses its places, and the fleet may hold
   * more than a host's limit until its requests end); a shorter one gives a dead process's places
   * back sooner. Places already held take it at their next renewal.
   *
   * @return this fleet
   * @throws IllegalArgumentException if {@code lease} is shorter than a second or longer than a day
   */
  public RedisFleet placeLease(Duration lease) {
    long micros = leaseMicros(lease);
    placeLeaseMicros = micros;
    beatEvery(micros);
    return this;
  }

  /** {@code lease} in whole microseconds, rounded up, once checked. */
  static long leaseMicros(Duration lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.compareTo(MIN_PLACE_LEASE) < 0) {
      throw new IllegalArgumentException("place lease must be at least a second (" + MIN_PLACE_LEASE + "), was " + lease);
    }
    if (lease.compareTo(MAX_PLACE_LEASE) > 0) {
      throw new IllegalArgumentException("place lease must be at most a day (" + MAX_PLACE_LEASE + "), was " + lease);
    }
    return ClaimScript.micros(lease.toNanos());
  }

  /**
   * Runs the script {@code source} (EVALSHA, and EVAL if Redis does not know it) on {@code keys}
   * with {@code args}, and answers {@code then} with what {@code answerOf} makes of its integer
   * answer, exactly once, on another thread; or {@link Fleet#UNCLAIMED}, counted.
   */
  private void claim(String source, String digest, String[] keys, String[] args, LongUnaryOperator answerOf,
      LongConsumer then) {
    Claim claim = new Claim(answerOf, then);
    if (closed.get()) {
      claim.accept(null, new IllegalStateException("the fleet is closed"));
    } else {
      try {
        this.<Long>script(source, digest, ScriptOutputType.INTEGER, keys, args).whenComplete(claim);
      } catch (RuntimeException e) { // the connection closed under us
        claim.accept(null, e);
      }
    }
  }

  /**
   * Runs the script {@code source} (EVALSHA, and EVAL if Redis does not know it) on {@code keys}
   * with {@code args}: its answer, failed after 1 s at most.
   */
  private <T> CompletableFuture<T> script(String source, String digest, ScriptOutputType type, String[] keys,
      String[] args) {
    scriptsSent.increment();
    return commands.<T>evalsha(digest, type, keys, args).toCompletableFuture()
        .exceptionallyCompose(e -> unknownScript(e)
            ? commands.<T>eval(source, type, keys, args)
            : CompletableFuture.failedStage(e))
        .orTimeout(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
  }

  private static boolean unknownScript(Throwable error) {
    return Failures.unwrap(error) instanceof RedisNoScriptException;
  }

  /** How many lessons this fleet could not publish: Redis failed or was down, or the fleet was closed. */
  public long lessonsLost() {
    return lessonsLost.sum();
  }

  /** How many claims, of starts, of places and of announced starts, this fleet answered unclaimed. */
  public long claimsUnclaimed() {
    return claimsUnclaimed.sum();
  }

  /**
   * How many of what hosts taught, or announced, this fleet could not keep: Redis failed or was
   * down, or the fleet was closed.
   */
  public long keepsLost() {
    return keepsLost.sum();
  }

  /** How many reads of what the fleet keeps answered null because Redis failed, did not answer, or the fleet was closed. */
  public long recallsUnanswered() {
    return recallsUnanswered.sum();
  }

  /**
   * How many releases of places this fleet could not send: Redis failed or was down, or the fleet
   * was closed. Each such place is held until its lease runs out.
   */
  public long releasesLost() {
    return releasesLost.sum();
  }

  /**
   * How many renewals of the lease of places this process holds could not be sent or failed:
   * Redis failed or was down. Each renewal is of the places of one key; they run out at their
   * lease unless a later one renews them.
   */
  public long renewalsLost() {
    return renewalsLost.sum();
  }

  /**
   * Stops every listener and the heartbeat, counts this process out of the fleet's processes
   * alive (waiting a second at most), closes both connections, and shuts the client down if this fleet
   * {@link #connect connected} it. A claim still waiting answers {@link Fleet#UNCLAIMED}; later
   * lessons and releases are lost, and later claims answer {@code UNCLAIMED}; the places this
   * process holds are no longer renewed, and are held until their lease runs out. Closing again does nothing.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    listeners.clear();
    synchronized (beating) {
      ScheduledFuture<?> beats = heartbeat;
      if (beats != null) {
        beats.cancel(false);
      }
      heartbeat = null;
    }
    held.clear();
    List<CompletableFuture<?>> leaving = new ArrayList<>();
    for (Map.Entry<String, Map<String, Waiting>> claims : waiting.entrySet()) { // the claims that wait are withdrawn
      String[] members = claims.getValue().keySet().toArray(String[]::new);
      if (members.length > 0) {
        try {
          leaving.add(commands.zrem(names.waiters(claims.getKey()), members).toCompletableFuture());
          leaving.add(commands.hdel(names.waiterTerms(claims.getKey()), members).toCompletableFuture());
        } catch (RuntimeException e) { // the connection closed under us: they wait until their term ends
        }
      }
    }
    waiting.clear(); // a claim still asked answers UNCLAIMED as its connection closes
    leaving.add(count(Long.toString(placeLeaseMicros), false, false));
    try { // counted out at once, not a lease later; a second at most
      CompletableFuture.allOf(leaving.toArray(CompletableFuture<?>[]::new)).get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) { // counted as lost renewals
    }
    redis.close();
  }

  @Override
  public String toString() {
    return "RedisFleet{" + fleetName + ", process " + origin + (closed.get() ? ", closed}" : "}");
  }

  /**
   * Reads each message of the fleet's channel, on the thread that reads Redis, and hands it to the
   * listeners on another ({@link #callbacks}): what an engine does with a lesson (learn, start the
   * requests it lets go, tell its own listeners) never holds up the connection.
   */
  private final class Dispatcher extends RedisPubSubAdapter<String, String> {
    @Override
    public void message(String from, String message) {
      if (grantedChannel.equals(from)) {
        grant(message);
        return;
      }
      if (!channel.equals(from)) {
        return;
      }
      Messages.Heard heard = Messages.decode(message);
      if (heard == null || heard.origin().equals(origin)) { // not a lesson (a key no engine writes too), or this process's own
        return;
      }
      callbacks.execute(() -> {
        for (Registration registration : listeners) {
          registration.hear(heard.lesson());
        }
      });
    }
  }

  /** Reads a grant told on this process's channel ({@link PlaceScript#GRANTED}); what does not read as one is ignored. */
  private void grant(String message) {
    String[] fields = message.split("\t", -1);
    if (fields.length != 4 || !fields[0].equals(PlaceScript.GRANTED)) {
      return; // a later version's: the claim asks again later
    }
    try {
      String key = Hostpace.checkKey(fields[1]);
      long place = Long.parseLong(fields[2]);
      long count = Long.parseLong(fields[3]);
      if (place >= 0 && count > 0) {
        callbacks.execute(() -> granted(key, place, count));
      }
    } catch (IllegalArgumentException notAGrant) { // a number that does not parse, a key no engine writes
    }
  }

  /**
   * One claim of a place that may wait ({@link #claimPlace(String, long, int, LongConsumer, LongConsumer)}):
   * its answer and then its grant, each told once, in that order, on {@link #callbacks}. A grant
   * that comes before the answer (Redis granted it in another script before its answer was read)
   * is told as the answer, with its count.
   */
  private final class Waiting {
    private final String key;
    private final String member;
    private final LongConsumer then;
    private final LongConsumer granted;
    private boolean answered; // guarded by this
    private boolean told; // guarded by this
    private long grantedWith; // guarded by this

    Waiting(String key, String member, LongConsumer then, LongConsumer granted) {
      this.key = key;
      this.member = member;
      this.then = then;
      this.granted = granted;
    }

    /** The script's answer, on {@link #callbacks}: a count, {@link Fleet#WAITING} or {@link Fleet#UNCLAIMED}. */
    void answer(long count) {
      long told;
      synchronized (this) {
        if (answered) {
          return;
        }
        answered = true;
        told = count == WAITING && grantedWith > 0 ? grantedWith : count;
        this.told = told != WAITING;
      }
      if (told > 0 && !closed.get()) {
        hold(key, member);
      }
      if (told != WAITING) {
        unwait(key, member, this);
      }
      then.accept(told);
    }

    /** Redis granted it, with {@code count} held: told now if its answer was, else as its answer. */
    void granted(long count) {
      synchronized (this) {
        if (told) {
          return;
        }
        if (!answered) {
          grantedWith = count;
          return;
        }
        told = true;
      }
      hold(key, member);
      unwait(key, member, this);
      try {
        granted.accept(count);
      } catch (RuntimeException e) { // the engine's to handle; Lettuce's thread goes on
      }
    }
  }

  /** One call of {@link #listen}; closing it removes just that one. */
  private final class Registration implements Listening {
    private final Consumer<Lesson> listener;

    Registration(Consumer<Lesson> listener) {
      this.listener = listener;
    }

    void hear(Lesson lesson) {
      try {
        listener.accept(lesson);
      } catch (RuntimeException e) { // a listener's failure is its own: Lettuce's thread and the others go on
      }
    }

    @Override
    public void close() {
      listeners.remove(this);
    }
  }

  /**
   * One claim's answer, of a start or of a place: given once (a {@link CompletionStage} completes
   * once), always on another thread ({@link #callbacks}): never inside the claim, nor on the
   * thread that reads Redis.
   */
  private final class Claim implements BiConsumer<@Nullable Long, @Nullable Throwable> {
    private final LongUnaryOperator answerOf;
    private final LongConsumer then;

    Claim(LongUnaryOperator answerOf, LongConsumer then) {
      this.answerOf = answerOf;
      this.then = then;
    }

    @Override
    public void accept(@Nullable Long scriptAnswer, @Nullable Throwable error) {
      long answer = error == null && scriptAnswer != null ? answerOf.applyAsLong(scriptAnswer) : UNCLAIMED;
      if (answer == UNCLAIMED) {
        claimsUnclaimed.increment();
      }
      if (error != null) {
        warn("claim", claimsUnclaimed, error);
      }
      answer(() -> then.accept(answer)); // never on the thread that reads Redis, nor inside the claim
    }
  }
}

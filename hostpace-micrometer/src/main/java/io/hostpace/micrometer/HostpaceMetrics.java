package io.hostpace.micrometer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.HostpaceListener;
import io.hostpace.HostSnapshot;
import io.hostpace.Rate;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Publishes what a {@link Hostpace} engine knows and decides to Micrometer, per host and per
 * {@code *.domain} group, with a bounded number of host tags.
 *
 * <pre>{@code
 * HostpaceMetrics metrics = HostpaceMetrics.create();                  // 100 host tags, then "other"
 * Hostpace engine = Hostpace.builder().listener(metrics.listener()).build();
 * metrics.watch(engine).bindTo(registry);                              // or let Spring Boot bind it
 * }</pre>
 *
 * <p>The metrics hear the engine's decisions through {@link #listener()}, given to it when it is
 * built, and read what it knows from {@link Hostpace#snapshot()} once it is
 * {@linkplain #watch watched}. The engine's builder takes several listeners
 * ({@code .listener(metrics.listener()).listener(yours)}); {@link #combine} makes one of several
 * where a single listener is wanted.
 *
 * <h2>Meters</h2>
 * Every meter has the tags {@code host} (the host key, {@code example.org:8080}, the group key,
 * {@code *.example.org}, or {@code other}) and {@code scope} ({@code host} or {@code group}),
 * and those given to {@link Builder#tags}. A group's meters count its hosts' requests together,
 * so a sum over all series counts each request once per scope: filter on {@code scope}.
 * A call is what a program asked for ({@code execute}, {@code send}, one request of a client);
 * an attempt is one sending of it to the server, so a call refused twice and then answered is
 * one call and three attempts. Meters are named for which of the two they count:
 * <pre>
 * name                              type        counts or shows                            from        Prometheus
 * hostpace.calls.started            counter     calls made (the engine's probes included)  Queued #1   hostpace_calls_started_total
 * hostpace.calls.gave.up            counter     calls that ended with their last refusal   GaveUp      hostpace_calls_gave_up_total
 * hostpace.attempts.started         counter     attempts sent                              Started     hostpace_attempts_started_total
 * hostpace.attempts.refused         counter     attempts refused                           Refused     hostpace_attempts_refused_total
 * hostpace.attempts.retried         counter     attempts sent back to their queue          Retried     hostpace_attempts_retried_total
 * hostpace.attempts.wait            timer       how long each attempt waited to start      Started     hostpace_attempts_wait_seconds (_count, _sum, _max)
 * hostpace.attempts.in.flight       gauge       attempts sent and not yet answered         snapshot    hostpace_attempts_in_flight
 * hostpace.attempts.waiting         gauge       attempts waiting in the queues             snapshot    hostpace_attempts_waiting
 * hostpace.learned.interval         time gauge  the learned interval between starts        snapshot    hostpace_learned_interval_seconds
 * hostpace.pause.remaining          time gauge  how long the host still starts nothing     snapshot    hostpace_pause_remaining_seconds
 * hostpace.learned.in.flight.limit  gauge       the learned attempts at once, 0 if none    snapshot    hostpace_learned_in_flight_limit
 * hostpace.learned.quota.permits    gauge       the learned quota's starts a window, or 0  snapshot    hostpace_learned_quota_permits
 * hostpace.learned.quota.window     time gauge  the learned quota's window, or 0           snapshot    hostpace_learned_quota_window_seconds
 * </pre>
 * Names follow Micrometer's conventions (dotted, lower case; times in the registry's base unit).
 * No meter has a base unit but the times: the name says what is counted, so Prometheus adds no
 * second word for it ({@code hostpace_attempts_started_total}, not
 * {@code hostpace_attempts_started_attempts_total}).
 *
 * <h2>Bounded tags</h2>
 * The first {@linkplain Builder#maxHosts 100} hosts the metrics see get a {@code host} tag of
 * their own, for as long as the metrics live; every later host is counted under
 * {@code host=other}. Groups have a cap of their own (100 unless set). So a crawler that meets a
 * million hosts makes at most 101 series per meter and scope, and the metrics hold no more
 * than that: a host past the cap is not remembered at all. For {@code other}, the in-flight and
 * waiting gauges are sums, the interval and pause gauges the longest, the in-flight limit the
 * smallest that is not 0 (the most restrictive; 0 when none of them has one), and the two quota
 * gauges show one quota, that of the host whose quota allows the fewest starts a second (of
 * those that tie, the first in the snapshot): 20 per 30 s rather than 100 per minute.
 *
 * <h2>Hosts the engine lets go</h2>
 * The engine forgets a host when nothing uses it (SPEC P10). Its counters and timer stay, as
 * counters must only grow; its gauges read 0 from then on, as the host is not in the snapshot.
 *
 * <h2>How current</h2>
 * Counters and the timer move with each event. Gauges read one snapshot of the engine, taken
 * when a gauge is read and the last one is older than {@linkplain Builder#snapshotMaxAge 1 s}
 * by the engine's clock, so one scrape of many gauges costs one snapshot.
 *
 * <p>Events name the host only, so a group's counters and timer count the events of the hosts
 * under it (as core decides membership) once the metrics know of the group: from a snapshot,
 * taken at once when a tagged host is first seen, and otherwise when an event arrives and the
 * last snapshot is a second old. A group whose hosts are all past the host cap may so miss up to
 * its first second of events.
 *
 * <p>Invariant: a key has meters of its own exactly when it is in {@code byKey}, which holds at
 * most {@code maxHosts} hosts and {@code maxGroups} groups, first come, and never lets one go,
 * so a series never restarts from zero and memory stays bounded whatever the engine meets. With
 * the defaults and 10,000 hosts: {@code byKey} holds 100 of them, the registry 101 × 13 meters,
 * and {@code host=other} counts the 9,900 others' starts.
 *
 * <p>Thread-safe: the listener may be called on any of the engine's threads, and gauges read on
 * the registry's. Tags are assigned and meters registered under {@code this}; a snapshot is
 * taken and shown under {@code refreshLock}, which may take {@code this} but never the reverse.
 */
public final class HostpaceMetrics implements MeterBinder {

  /** The {@code host} tag of the hosts, and of the groups, past their cap. */
  public static final String OTHER = "other";

  private static final String HOST = "host";
  private static final String GROUP = "group";
  /** A guard: engines are configured with a handful of groups, not thousands. */
  private static final int MAX_KNOWN_GROUPS = 1000;
  /** How old a snapshot may be when an event looks for new groups in it: so each event costs no snapshot. */
  private static final long DISCOVERY_MAX_AGE_NANOS = 1_000_000_000L;

  private final int maxHosts;
  private final int maxGroups;
  private final Tags tags;
  private final long snapshotMaxAgeNanos;
  private final HostpaceListener listener = this::onEvent;

  private volatile @Nullable Hostpace engine;

  /** The tagged hosts and groups; at most {@code maxHosts + maxGroups} entries. Written under {@code this}. */
  private final ConcurrentHashMap<String, KeyMeters> byKey = new ConcurrentHashMap<>();
  private final KeyMeters otherHosts = new KeyMeters(OTHER, HOST);
  private final KeyMeters otherGroups = new KeyMeters(OTHER, GROUP);
  @GuardedBy("this")
  private final List<MeterRegistry> registries = new ArrayList<>();
  @GuardedBy("this")
  private int hostCount;
  @GuardedBy("this")
  private int groupCount;
  /** Whether the caps are reached, so that hosts past them cost no lock. Written under {@code this}. */
  private volatile boolean hostsFull;
  private volatile boolean groupsFull;
  /** The groups known to the engine, for counting their hosts' events; replaced whole, under {@code this}. */
  private volatile String[] knownGroups = new String[0];

  private final Object refreshLock = new Object();
  @GuardedBy("refreshLock")
  private boolean refreshed;
  @GuardedBy("refreshLock")
  private long refreshedAt;

  private HostpaceMetrics(Builder builder) {
    this.maxHosts = builder.maxHosts;
    this.maxGroups = builder.maxGroups;
    this.tags = builder.tags;
    this.snapshotMaxAgeNanos = builder.snapshotMaxAge.toNanos();
    this.hostsFull = maxHosts == 0;
    this.groupsFull = maxGroups == 0;
  }

  /** Metrics with the defaults: 100 host tags, 100 group tags, snapshots at most 1 s old. */
  public static HostpaceMetrics create() {
    return builder().build();
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The listener to build the engine with: {@code Hostpace.builder().listener(metrics.listener())}. */
  public HostpaceListener listener() {
    return listener;
  }

  /**
   * One listener that tells each of {@code listeners} in turn, so an engine can have the metrics'
   * and others; one that throws does not keep the others from hearing.
   */
  public static HostpaceListener combine(HostpaceListener... listeners) {
    HostpaceListener[] all = listeners.clone();
    return event -> {
      for (HostpaceListener each : all) {
        try {
          each.onEvent(event);
        } catch (RuntimeException e) {
          // as the engine does: a listener that throws cannot break the others
        }
      }
    };
  }

  /**
   * The engine whose snapshot the gauges read: the one built with {@link #listener()}. Until it
   * is set, the gauges read 0.
   *
   * @throws IllegalStateException when another engine is watched already
   */
  public HostpaceMetrics watch(Hostpace engine) {
    synchronized (this) {
      Hostpace watched = this.engine;
      if (watched != null && watched != engine) {
        throw new IllegalStateException("these metrics watch an engine already (" + watched
            + "); make one HostpaceMetrics per engine, with its own tags to tell them apart");
      }
      this.engine = engine;
    }
    refresh(0);
    return this;
  }

  /**
   * Registers the meters of every host and group seen so far, and of those seen later, with
   * {@code registry}. Counters include the events before; the timer records from now on.
   * Binding a registry twice binds it once.
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    synchronized (this) {
      for (MeterRegistry bound : registries) {
        if (bound == registry) {
          return;
        }
      }
      registries.add(registry);
      for (KeyMeters meters : byKey.values()) {
        register(meters, registry);
      }
      for (KeyMeters other : List.of(otherHosts, otherGroups)) {
        if (other.registered) {
          register(other, registry);
        }
      }
    }
  }

  // ---------------------------------------------------------------- events

  private void onEvent(HostpaceEvent event) {
    if (event instanceof HostpaceEvent.Queued queued) {
      boolean unseen = !byKey.containsKey(queued.key());
      meters(queued.key(), false);
      if (unseen && byKey.containsKey(queued.key())) {
        refresh(0); // a host tagged just now: learn at once which groups it is in, while it is held
      } else {
        refresh(Math.max(snapshotMaxAgeNanos, DISCOVERY_MAX_AGE_NANOS));
      }
      if (queued.attempt() == 1) { // a call's first attempt is queued once: the call was made
        forHostAndGroups(queued.key(), meters -> meters.callsStarted.increment());
      }
    } else if (event instanceof HostpaceEvent.Started started) {
      Duration waited = started.waited();
      forHostAndGroups(started.key(), meters -> {
        meters.started.increment();
        for (Timer timer : meters.timers) {
          timer.record(waited);
        }
      });
    } else if (event instanceof HostpaceEvent.Refused refused) {
      forHostAndGroups(refused.key(), meters -> meters.refused.increment());
    } else if (event instanceof HostpaceEvent.Retried retried) {
      forHostAndGroups(retried.key(), meters -> meters.retried.increment());
    } else if (event instanceof HostpaceEvent.GaveUp gaveUp) {
      forHostAndGroups(gaveUp.key(), meters -> meters.gaveUp.increment());
    } else if (isGroup(event.key())) {
      learnGroup(event.key()); // Paused, IntervalChanged, QuotaChanged: they come for groups too
    }
  }

  private void forHostAndGroups(String hostKey, Consumer<KeyMeters> action) {
    action.accept(meters(hostKey, false));
    for (String group : knownGroups) {
      if (inGroup(hostKey, group)) {
        action.accept(meters(group, true));
      }
    }
  }

  // ---------------------------------------------------------------- tags

  /** The meters of a key: its own while the cap allows, else {@code other}'s. */
  private KeyMeters meters(String key, boolean group) {
    KeyMeters meters = byKey.get(key);
    if (meters != null) {
      return meters;
    }
    if (group ? groupsFull : hostsFull) {
      return other(group);
    }
    synchronized (this) {
      meters = byKey.get(key);
      if (meters != null) {
        return meters;
      }
      if (group ? groupCount >= maxGroups : hostCount >= maxHosts) {
        return other(group);
      }
      meters = new KeyMeters(key, group ? GROUP : HOST);
      for (MeterRegistry registry : registries) {
        register(meters, registry);
      }
      meters.registered = true;
      byKey.put(key, meters);
      if (group) {
        groupsFull = ++groupCount >= maxGroups;
      } else {
        hostsFull = ++hostCount >= maxHosts;
      }
      return meters;
    }
  }

  private KeyMeters other(boolean group) {
    KeyMeters other = group ? otherGroups : otherHosts;
    if (!other.registered) {
      synchronized (this) {
        if (!other.registered) {
          for (MeterRegistry registry : registries) {
            register(other, registry);
          }
          other.registered = true;
        }
      }
    }
    return other;
  }

  private void learnGroup(String group) {
    String[] groups = knownGroups;
    if (Arrays.asList(groups).contains(group)) {
      return;
    }
    synchronized (this) {
      groups = knownGroups;
      if (groups.length < MAX_KNOWN_GROUPS && !Arrays.asList(groups).contains(group)) {
        String[] more = Arrays.copyOf(groups, groups.length + 1);
        more[groups.length] = group;
        knownGroups = more;
      }
    }
  }

  /** Whether {@code hostKey} ({@code a.example.org:8080}) is under {@code groupKey} ({@code *.example.org}), as core decides. */
  static boolean inGroup(String hostKey, String groupKey) {
    int end = hostKey.startsWith("[") ? hostKey.indexOf(']') + 1 : hostKey.indexOf(':');
    if (end <= 0) {
      end = hostKey.length();
    }
    int suffix = groupKey.length() - 1; // ".example.org"
    return end > suffix && hostKey.regionMatches(end - suffix, groupKey, 1, suffix);
  }

  private static boolean isGroup(String key) {
    return key.startsWith("*.");
  }

  // ---------------------------------------------------------------- the snapshot

  /** Takes a snapshot unless the last is younger than {@code maxAgeNanos} by the engine's clock. */
  private void refresh(long maxAgeNanos) {
    Hostpace watched = engine;
    if (watched == null) {
      return;
    }
    synchronized (refreshLock) {
      long now = watched.clock().nanoTime();
      if (refreshed && now - refreshedAt < maxAgeNanos) {
        return;
      }
      refreshed = true;
      refreshedAt = now;
      Map<KeyMeters, long[]> shown = new IdentityHashMap<>();
      for (HostSnapshot host : watched.snapshot()) {
        if (host.group()) {
          learnGroup(host.key());
        }
        long[] values = shown.computeIfAbsent(meters(host.key(), host.group()), meters -> new long[7]);
        values[0] += host.inFlight();
        values[1] += host.waiting();
        values[2] = Math.max(values[2], host.pausedFor().toNanos());
        values[3] = Math.max(values[3], host.interval().toNanos());
        int limit = host.inFlightLimit();
        if (limit > 0 && (values[4] == 0 || limit < values[4])) {
          values[4] = limit; // the most restrictive
        }
        Rate quota = host.quota();
        if (quota != null && (values[5] == 0 || fewerPerSecond(quota, values[5], values[6]))) {
          values[5] = quota.permits();
          values[6] = quota.per().toNanos();
        }
      }
      for (KeyMeters meters : byKey.values()) {
        meters.show(shown.get(meters));
      }
      otherHosts.show(shown.get(otherHosts));
      otherGroups.show(shown.get(otherGroups));
    }
  }

  /** Whether {@code quota} allows fewer starts a second than {@code permits} per {@code windowNanos}. */
  private static boolean fewerPerSecond(Rate quota, long permits, long windowNanos) {
    // a/b < c/d, as a·d < c·b; in doubles, as the windows' nanoseconds can be large
    return (double) quota.permits() * windowNanos < (double) permits * quota.per().toNanos();
  }

  // ---------------------------------------------------------------- registering

  private void register(KeyMeters meters, MeterRegistry registry) {
    Tags tagged = tags.and(Tag.of("host", meters.tag), Tag.of("scope", meters.scope));
    Gauge.builder("hostpace.attempts.in.flight", meters, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.inFlight;
        })
        .tags(tagged).strongReference(true)
        .description("Attempts sent and not yet answered").register(registry);
    Gauge.builder("hostpace.attempts.waiting", meters, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.waiting;
        })
        .tags(tagged).strongReference(true)
        .description("Attempts waiting in the queues to start").register(registry);
    TimeGauge.builder("hostpace.learned.interval", meters, TimeUnit.NANOSECONDS, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.intervalNanos;
        })
        .tags(tagged).strongReference(true)
        .description("The interval between starts learned from refusals without Retry-After").register(registry);
    TimeGauge.builder("hostpace.pause.remaining", meters, TimeUnit.NANOSECONDS, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.pauseNanos;
        })
        .tags(tagged).strongReference(true)
        .description("How long the host still starts nothing, as Retry-After asked").register(registry);
    Gauge.builder("hostpace.learned.in.flight.limit", meters, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.inFlightLimit;
        })
        .tags(tagged).strongReference(true)
        .description("How many attempts at once the host was learned to hold, from refusals with Retry-After; "
            + "0 when none was learned")
        .register(registry);
    Gauge.builder("hostpace.learned.quota.permits", meters, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.quotaPermits;
        })
        .tags(tagged).strongReference(true)
        .description("How many starts a window the quota learned for the host allows; 0 when none was learned")
        .register(registry);
    TimeGauge.builder("hostpace.learned.quota.window", meters, TimeUnit.NANOSECONDS, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.quotaWindowNanos;
        })
        .tags(tagged).strongReference(true)
        .description("The fixed window the quota learned for the host is counted in; 0 when none was learned")
        .register(registry);
    FunctionCounter.builder("hostpace.calls.started", meters.callsStarted, LongAdder::doubleValue)
        .tags(tagged).description("Calls made: each call's first attempt queued, however many it takes")
        .register(registry);
    FunctionCounter.builder("hostpace.calls.gave.up", meters.gaveUp, LongAdder::doubleValue)
        .tags(tagged).description("Calls that ended with their last refusal").register(registry);
    FunctionCounter.builder("hostpace.attempts.started", meters.started, LongAdder::doubleValue)
        .tags(tagged).description("Attempts sent: each call's first, and each retry").register(registry);
    FunctionCounter.builder("hostpace.attempts.refused", meters.refused, LongAdder::doubleValue)
        .tags(tagged).description("Attempts refused (429, 503, 405 with Retry-After)").register(registry);
    FunctionCounter.builder("hostpace.attempts.retried", meters.retried, LongAdder::doubleValue)
        .tags(tagged).description("Attempts sent back to their queue to be tried again").register(registry);
    meters.timers.add(Timer.builder("hostpace.attempts.wait")
        .tags(tagged).description("How long each attempt waited in its queue before it started")
        .register(registry));
  }

  @Override
  public String toString() {
    return "HostpaceMetrics{maxHosts=" + maxHosts + ", maxGroups=" + maxGroups + ", tags=" + tags
        + ", snapshotMaxAge=" + Duration.ofNanos(snapshotMaxAgeNanos) + "}";
  }

  /** The meters of one tag: a host, a group, or {@code other}. */
  private static final class KeyMeters {
    final String tag;
    final String scope;
    final LongAdder callsStarted = new LongAdder();
    final LongAdder started = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder gaveUp = new LongAdder();
    /** One per registry bound. */
    final List<Timer> timers = new CopyOnWriteArrayList<>();
    /** Whether its meters are in every registry bound; written under the metrics' lock. */
    volatile boolean registered;
    // written under refreshLock
    volatile long inFlight;
    volatile long waiting;
    volatile long pauseNanos;
    volatile long intervalNanos;
    volatile long inFlightLimit;
    volatile long quotaPermits;
    volatile long quotaWindowNanos;

    KeyMeters(String tag, String scope) {
      this.tag = tag;
      this.scope = scope;
    }

    /**
     * Shows a snapshot's values: in flight, waiting, pause, interval, in-flight limit, quota permits,
     * quota window; all 0 when absent from it.
     */
    void show(long @Nullable [] values) {
      inFlight = values == null ? 0 : values[0];
      waiting = values == null ? 0 : values[1];
      pauseNanos = values == null ? 0 : values[2];
      intervalNanos = values == null ? 0 : values[3];
      inFlightLimit = values == null ? 0 : values[4];
      quotaPermits = values == null ? 0 : values[5];
      quotaWindowNanos = values == null ? 0 : values[6];
    }
  }

  /** Builds {@link HostpaceMetrics}; {@link #build()} copies, so a builder can be reused. */
  public static final class Builder {
    private int maxHosts = 100;
    private int maxGroups = 100;
    private Tags tags = Tags.empty();
    private Duration snapshotMaxAge = Duration.ofSeconds(1);

    private Builder() {}

    /**
     * How many hosts get a {@code host} tag of their own; the rest are {@code other}. 100 unless
     * set. Each of them costs one snapshot of the engine when it is first seen (to learn its
     * groups), so a cap of thousands costs thousands of snapshots while the engine warms up.
     */
    public Builder maxHosts(int maxHosts) {
      if (maxHosts < 0) {
        throw new IllegalArgumentException("maxHosts must be zero or more, got " + maxHosts);
      }
      this.maxHosts = maxHosts;
      return this;
    }

    /** How many groups get a {@code host} tag of their own; the rest are {@code other}. 100 unless set. */
    public Builder maxGroups(int maxGroups) {
      if (maxGroups < 0) {
        throw new IllegalArgumentException("maxGroups must be zero or more, got " + maxGroups);
      }
      this.maxGroups = maxGroups;
      return this;
    }

    /** Tags for every meter, such as the engine's name when an application has more than one. */
    public Builder tags(Iterable<Tag> tags) {
      for (Tag tag : tags) {
        if (tag.getKey().equals("host") || tag.getKey().equals("scope")) {
          throw new IllegalArgumentException("tag '" + tag.getKey() + "' is the metrics' own; choose another name");
        }
      }
      this.tags = Tags.of(tags);
      return this;
    }

    /**
     * How old, by the engine's clock, a snapshot may be when a gauge is read; 1 s unless set.
     * {@link Duration#ZERO} takes one for every gauge read.
     */
    public Builder snapshotMaxAge(Duration maxAge) {
      if (maxAge.isNegative()) {
        throw new IllegalArgumentException("snapshot max age must not be negative, got " + maxAge);
      }
      this.snapshotMaxAge = maxAge;
      return this;
    }

    /** The metrics. */
    public HostpaceMetrics build() {
      return new HostpaceMetrics(this);
    }
  }
}

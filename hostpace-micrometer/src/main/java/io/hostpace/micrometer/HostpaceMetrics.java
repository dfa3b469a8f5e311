package io.hostpace.micrometer;

import io.hostpace.Hostpace;
import io.hostpace.HostpaceListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;

/**
 * Publishes what a {@link Hostpace} engine knows and decides to Micrometer, per host and per
 * {@code *.domain} group, with a bounded number of host tags.
 *
 * <pre>{@code
 * HostpaceMetrics metrics = HostpaceMetrics.create();                  // 100 host tags, then "other"
 * Hostpace engine = Hostpace.builder().addListener(metrics.listener()).build();
 * metrics.watch(engine).bindTo(registry);                              // or let Spring Boot bind it
 * }</pre>
 *
 * <p>The metrics hear the engine's decisions through {@link #listener()}, given to it when it is
 * built, and read what it knows from {@link Hostpace#snapshot()} once it is
 * {@linkplain #watch watched}. The engine's builder takes several listeners
 * ({@code .addListener(metrics.listener()).addListener(yours)}); {@link #combine} makes one of several
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
 * <p>Thread-safe: the listener may be called on any of the engine's threads, and gauges read on
 * the registry's.
 */
public final class HostpaceMetrics implements MeterBinder {

  /** The {@code host} tag of the hosts, and of the groups, past their cap. */
  public static final String OTHER = "other";

  private final int maxHosts;
  private final int maxGroups;
  private final Tags tags;
  private final long snapshotMaxAgeNanos;
  // which keys have meters of their own; the counters and the timer the listener moves; the gauges of the snapshot
  private final KeyTags keys;
  private final SnapshotGauges gauges;
  private final EventCounters counters;
  private final HostpaceListener listener;

  private HostpaceMetrics(Builder builder) {
    this.maxHosts = builder.maxHosts;
    this.maxGroups = builder.maxGroups;
    this.tags = builder.tags;
    this.snapshotMaxAgeNanos = builder.snapshotMaxAge.toNanos();
    this.keys = new KeyTags(maxHosts, maxGroups, this::register); // registers only once a registry is bound
    this.gauges = new SnapshotGauges(keys, snapshotMaxAgeNanos);
    this.counters = new EventCounters(keys, gauges);
    this.listener = counters::onEvent;
  }

  /** Metrics with the defaults: 100 host tags, 100 group tags, snapshots at most 1 s old. */
  public static HostpaceMetrics create() {
    return builder().build();
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The listener to build the engine with: {@code Hostpace.builder().addListener(metrics.listener())}. */
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
    gauges.watch(engine);
    return this;
  }

  /**
   * Registers the meters of every host and group seen so far, and of those seen later, with
   * {@code registry}. Counters include the events before; the timer records from now on.
   * Binding a registry twice binds it once.
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    keys.bind(registry);
  }

  /** Registers the gauges, the counters and the timer of one key with {@code registry}. */
  private void register(KeyTags.KeyMeters meters, MeterRegistry registry) {
    Tags tagged = tags.and(Tag.of("host", meters.tag), Tag.of("scope", meters.scope));
    gauges.register(meters.shown, tagged, registry);
    EventCounters.register(meters.counts, tagged, registry);
  }

  @Override
  public String toString() {
    return "HostpaceMetrics{maxHosts=" + maxHosts + ", maxGroups=" + maxGroups + ", tags=" + tags
        + ", snapshotMaxAge=" + Duration.ofNanos(snapshotMaxAgeNanos) + "}";
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

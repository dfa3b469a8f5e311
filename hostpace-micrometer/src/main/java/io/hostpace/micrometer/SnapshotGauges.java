package io.hostpace.micrometer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.Hostpace;
import io.hostpace.HostSnapshot;
import io.hostpace.Rate;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The gauges of what the watched engine knows, read from one {@link Hostpace#snapshot()}: per
 * tag, the attempts in flight and waiting, the learned interval, the pause left, the learned
 * in-flight limit and quota. A gauge read takes a snapshot when the last one is older than
 * {@code snapshotMaxAgeNanos} by the engine's clock, so one scrape of many gauges costs one
 * snapshot; a snapshot also tells the {@link KeyTags} which groups the engine has.
 *
 * <p>{@code other} shows the hosts (or groups) past the cap together: the sums of in flight and
 * waiting, the longest interval and pause, the smallest in-flight limit that is not 0, and the
 * quota that allows the fewest starts a second. With two hosts past the cap, one limited to 4 at
 * once and quota 100 per minute, the other to 2 and 20 per 30 s: {@code other} shows 2, and
 * 20 per 30 s.
 *
 * <p>Thread-safe: a snapshot is taken and shown under {@code refreshLock}, which may take the
 * tags' lock but never the reverse; the values shown are volatile, read by the registry's threads.
 */
final class SnapshotGauges {

  /** How old a snapshot may be when an event looks for new groups in it: so each event costs no snapshot. */
  private static final long DISCOVERY_MAX_AGE_NANOS = 1_000_000_000L;

  private final KeyTags keys;
  private final long snapshotMaxAgeNanos;

  private volatile @Nullable Hostpace engine; // set once, under this

  private final Object refreshLock = new Object();
  @GuardedBy("refreshLock")
  private boolean refreshed;
  @GuardedBy("refreshLock")
  private long refreshedAt;

  SnapshotGauges(KeyTags keys, long snapshotMaxAgeNanos) {
    this.keys = keys;
    this.snapshotMaxAgeNanos = snapshotMaxAgeNanos;
  }

  /**
   * Reads {@code engine}'s snapshots from now on, and takes one at once.
   *
   * @throws IllegalStateException when another engine is watched already
   */
  void watch(Hostpace engine) {
    synchronized (this) {
      Hostpace watched = this.engine;
      if (watched != null && watched != engine) {
        throw new IllegalStateException("these metrics watch an engine already (" + watched
            + "); make one HostpaceMetrics per engine, with its own tags to tell them apart");
      }
      this.engine = engine;
    }
    refresh(0);
  }

  /**
   * Takes a snapshot for the groups the engine has: {@code now}, or unless the last is younger
   * than a second (or than a gauge's snapshot may be, if longer).
   */
  void discoverGroups(boolean now) {
    refresh(now ? 0 : Math.max(snapshotMaxAgeNanos, DISCOVERY_MAX_AGE_NANOS));
  }

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
      Map<Shown, long[]> shown = new IdentityHashMap<>();
      for (HostSnapshot host : watched.snapshot()) {
        if (host.group()) {
          keys.learnGroup(host.key());
        }
        long[] values = shown.computeIfAbsent(keys.meters(host.key(), host.group()).shown, meters -> new long[7]);
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
      keys.forEach(meters -> meters.shown.show(shown.get(meters.shown)));
    }
  }

  /** Whether {@code quota} allows fewer starts a second than {@code permits} per {@code windowNanos}. */
  private static boolean fewerPerSecond(Rate quota, long permits, long windowNanos) {
    // a/b < c/d, as a·d < c·b; in doubles, as the windows' nanoseconds can be large
    return (double) quota.permits() * windowNanos < (double) permits * quota.per().toNanos();
  }

  /** Registers the gauges of {@code shown}, tagged {@code tagged}, with {@code registry}; each read refreshes first. */
  void register(Shown shown, Tags tagged, MeterRegistry registry) {
    Gauge.builder("hostpace.attempts.in.flight", shown, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.inFlight;
        })
        .tags(tagged).strongReference(true)
        .description("Attempts sent and not yet answered").register(registry);
    Gauge.builder("hostpace.attempts.waiting", shown, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.waiting;
        })
        .tags(tagged).strongReference(true)
        .description("Attempts waiting in the queues to start").register(registry);
    TimeGauge.builder("hostpace.learned.interval", shown, TimeUnit.NANOSECONDS, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.intervalNanos;
        })
        .tags(tagged).strongReference(true)
        .description("The interval between starts learned from refusals without Retry-After").register(registry);
    TimeGauge.builder("hostpace.pause.remaining", shown, TimeUnit.NANOSECONDS, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.pauseNanos;
        })
        .tags(tagged).strongReference(true)
        .description("How long the host still starts nothing, as Retry-After asked").register(registry);
    Gauge.builder("hostpace.learned.in.flight.limit", shown, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.inFlightLimit;
        })
        .tags(tagged).strongReference(true)
        .description("How many attempts at once the host was learned to hold, from refusals with Retry-After; "
            + "0 when none was learned")
        .register(registry);
    Gauge.builder("hostpace.learned.quota.permits", shown, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.quotaPermits;
        })
        .tags(tagged).strongReference(true)
        .description("How many starts a window the quota learned for the host allows; 0 when none was learned")
        .register(registry);
    TimeGauge.builder("hostpace.learned.quota.window", shown, TimeUnit.NANOSECONDS, m -> {
          refresh(snapshotMaxAgeNanos);
          return (double) m.quotaWindowNanos;
        })
        .tags(tagged).strongReference(true)
        .description("The fixed window the quota learned for the host is counted in; 0 when none was learned")
        .register(registry);
  }

  /** What the last snapshot showed of one tag: a host, a group, or {@code other}; written under {@code refreshLock}. */
  static final class Shown {
    volatile long inFlight;
    volatile long waiting;
    volatile long pauseNanos;
    volatile long intervalNanos;
    volatile long inFlightLimit;
    volatile long quotaPermits;
    volatile long quotaWindowNanos;

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
}

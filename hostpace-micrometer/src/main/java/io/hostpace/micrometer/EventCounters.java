package io.hostpace.micrometer;

import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The counters and the timer of the engine's decisions, which move with each event its listener
 * hears: calls made and given up, attempts started, refused and retried, and how long each
 * attempt waited; for the host the event names, and for each known group the host is in.
 *
 * <p>Events name the host only, so a group's counters and timer count the events of the hosts
 * under it (as core decides membership, {@link Hostpace#inGroup}) once the group is known: from
 * a snapshot, taken at once when a tagged host is first seen, and otherwise when an event
 * arrives and the last snapshot is a second old. A group whose hosts are all past the host cap
 * may so miss up to its first second of events.
 *
 * <p>Thread-safe: events may come on any of the engine's threads; the counts are adders, the
 * timers a copy-on-write list.
 */
final class EventCounters {

  private final KeyTags keys;
  /** Where events look for the groups the engine has. */
  private final SnapshotGauges snapshots;

  EventCounters(KeyTags keys, SnapshotGauges snapshots) {
    this.keys = keys;
    this.snapshots = snapshots;
  }

  /** Counts {@code event} for its host and the host's known groups, or learns the group it names. */
  void onEvent(HostpaceEvent event) {
    if (event instanceof HostpaceEvent.Queued queued) {
      boolean unseen = !keys.tagged(queued.key());
      keys.meters(queued.key(), false);
      // at once for a host tagged just now, to learn which groups it is in while it is held
      snapshots.discoverGroups(unseen && keys.tagged(queued.key()));
      if (queued.attempt() == 1) { // a call's first attempt is queued once: the call was made
        forHostAndGroups(queued.key(), counts -> counts.callsStarted.increment());
      }
    } else if (event instanceof HostpaceEvent.Started started) {
      Duration waited = started.waited();
      forHostAndGroups(started.key(), counts -> {
        counts.started.increment();
        for (Timer timer : counts.timers) {
          timer.record(waited);
        }
      });
    } else if (event instanceof HostpaceEvent.Refused refused) {
      forHostAndGroups(refused.key(), counts -> counts.refused.increment());
    } else if (event instanceof HostpaceEvent.Retried retried) {
      forHostAndGroups(retried.key(), counts -> counts.retried.increment());
    } else if (event instanceof HostpaceEvent.GaveUp gaveUp) {
      forHostAndGroups(gaveUp.key(), counts -> counts.gaveUp.increment());
    } else if (isGroup(event.key())) {
      keys.learnGroup(event.key()); // Paused, IntervalChanged, QuotaChanged: they come for groups too
    }
  }

  private void forHostAndGroups(String hostKey, Consumer<Counts> action) {
    action.accept(keys.meters(hostKey, false).counts);
    for (String group : keys.knownGroups()) {
      if (Hostpace.inGroup(hostKey, group)) {
        action.accept(keys.meters(group, true).counts);
      }
    }
  }

  private static boolean isGroup(String key) {
    return key.startsWith("*.");
  }

  /** Registers the counters and the timer of {@code counts}, tagged {@code tagged}, with {@code registry}. */
  static void register(Counts counts, Tags tagged, MeterRegistry registry) {
    FunctionCounter.builder("hostpace.calls.started", counts.callsStarted, LongAdder::doubleValue)
        .tags(tagged).description("Calls made: each call's first attempt queued, however many it takes")
        .register(registry);
    FunctionCounter.builder("hostpace.calls.gave.up", counts.gaveUp, LongAdder::doubleValue)
        .tags(tagged).description("Calls that ended with their last refusal").register(registry);
    FunctionCounter.builder("hostpace.attempts.started", counts.started, LongAdder::doubleValue)
        .tags(tagged).description("Attempts sent: each call's first, and each retry").register(registry);
    FunctionCounter.builder("hostpace.attempts.refused", counts.refused, LongAdder::doubleValue)
        .tags(tagged).description("Attempts refused (429, 503, 405 with Retry-After)").register(registry);
    FunctionCounter.builder("hostpace.attempts.retried", counts.retried, LongAdder::doubleValue)
        .tags(tagged).description("Attempts sent back to their queue to be tried again").register(registry);
    counts.timers.add(Timer.builder("hostpace.attempts.wait")
        .tags(tagged).description("How long each attempt waited in its queue before it started")
        .register(registry));
  }

  /** The counts of one tag: a host, a group, or {@code other}. */
  static final class Counts {
    final LongAdder callsStarted = new LongAdder();
    final LongAdder started = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder gaveUp = new LongAdder();
    /** One per registry bound. */
    final List<Timer> timers = new CopyOnWriteArrayList<>();
  }
}

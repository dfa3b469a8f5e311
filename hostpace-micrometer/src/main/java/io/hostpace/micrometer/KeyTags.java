package io.hostpace.micrometer;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The hosts and groups the metrics know: which of them have meters of their own, in every
 * registry bound, and which groups the engine has. The first {@code maxHosts} hosts and
 * {@code maxGroups} groups seen get a {@code host} tag of their own for as long as the metrics
 * live; every later one shares the meters of {@link HostpaceMetrics#OTHER}.
 *
 * <p>Invariant: a key has meters of its own exactly when it is in {@code byKey}, which holds at
 * most {@code maxHosts} hosts and {@code maxGroups} groups, first come, and never lets one go,
 * so a series never restarts from zero and memory stays bounded whatever the engine meets. With
 * the defaults and 10,000 hosts: {@code byKey} holds 100 of them, the registry 101 × 13 meters,
 * and {@code host=other} counts the 9,900 others' starts.
 *
 * <p>Thread-safe: tags are assigned, groups learned and meters registered under {@code this}; a
 * key already tagged, a key past a full cap and a group already known cost no lock.
 */
final class KeyTags {

  /** The {@code scope} tag of a host's meters. */
  static final String HOST = "host";
  /** The {@code scope} tag of a group's meters. */
  static final String GROUP = "group";
  /** A guard: engines are configured with a handful of groups, not thousands. */
  private static final int MAX_KNOWN_GROUPS = 1000;

  private final int maxHosts;
  private final int maxGroups;
  /** Registers a key's meters with a registry. */
  private final BiConsumer<KeyMeters, MeterRegistry> register;

  /** The tagged hosts and groups; at most {@code maxHosts + maxGroups} entries. Written under {@code this}. */
  private final ConcurrentHashMap<String, KeyMeters> byKey = new ConcurrentHashMap<>();
  private final KeyMeters otherHosts = new KeyMeters(HostpaceMetrics.OTHER, HOST);
  private final KeyMeters otherGroups = new KeyMeters(HostpaceMetrics.OTHER, GROUP);
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

  KeyTags(int maxHosts, int maxGroups, BiConsumer<KeyMeters, MeterRegistry> register) {
    this.maxHosts = maxHosts;
    this.maxGroups = maxGroups;
    this.register = register;
    this.hostsFull = maxHosts == 0;
    this.groupsFull = maxGroups == 0;
  }

  /**
   * Registers the meters of every key tagged so far, and of those tagged later, with
   * {@code registry}; binding a registry twice binds it once.
   */
  void bind(MeterRegistry registry) {
    synchronized (this) {
      for (MeterRegistry bound : registries) {
        if (bound == registry) {
          return;
        }
      }
      registries.add(registry);
      for (KeyMeters meters : byKey.values()) {
        register.accept(meters, registry);
      }
      for (KeyMeters other : List.of(otherHosts, otherGroups)) {
        if (other.registered) {
          register.accept(other, registry);
        }
      }
    }
  }

  /** Whether {@code key} has meters of its own. */
  boolean tagged(String key) {
    return byKey.containsKey(key);
  }

  /** The meters of a key: its own while the cap allows, else {@code other}'s. */
  KeyMeters meters(String key, boolean group) {
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
        register.accept(meters, registry);
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
            register.accept(other, registry);
          }
          other.registered = true;
        }
      }
    }
    return other;
  }

  /** Calls {@code action} with the meters of every tagged key, then with {@code other}'s of hosts and of groups. */
  void forEach(Consumer<KeyMeters> action) {
    for (KeyMeters meters : byKey.values()) {
      action.accept(meters);
    }
    action.accept(otherHosts);
    action.accept(otherGroups);
  }

  /** Remembers that the engine has the group {@code group}, up to {@value #MAX_KNOWN_GROUPS} groups. */
  void learnGroup(String group) {
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

  /** The groups the engine is known to have, first learned first; the caller does not change the array. */
  String[] knownGroups() {
    return knownGroups;
  }

  /** The meters of one tag: a host, a group, or {@code other}. */
  static final class KeyMeters {
    final String tag;
    final String scope;
    final EventCounters.Counts counts = new EventCounters.Counts();
    final SnapshotGauges.Shown shown = new SnapshotGauges.Shown();
    /** Whether its meters are in every registry bound; written under the tags' lock. */
    volatile boolean registered;

    KeyMeters(String tag, String scope) {
      this.tag = tag;
      this.scope = scope;
    }
  }
}

package io.hostpace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One level of limits (the context's, the engine's or the built-in defaults): limits for every
 * host, and limits by normalised key. Immutable.
 *
 * <p>Example: {@code default {inFlight: 8}}, {@code qlever.dev {rate: 1/s}}, {@code *.wikidata.org
 * {inFlight: 5}}. A request to {@code query.wikidata.org} takes inFlight 8 from the default for
 * its own queue, and passes the group gate of {@code *.wikidata.org} with its 5 places.
 */
final class LimitTable {

  static final LimitTable EMPTY = new LimitTable(Limits.NONE, Map.of());

  private final Limits everyHost;
  private final Map<String, Limits> byHost;
  private final List<String> groups;

  private LimitTable(Limits everyHost, Map<String, Limits> byKey) {
    this.everyHost = everyHost;
    this.byHost = byKey;
    List<String> groupKeys = new ArrayList<>();
    for (String key : byKey.keySet()) {
      if (HostKey.isGroup(key)) {
        groupKeys.add(key);
      }
    }
    Collections.sort(groupKeys);
    this.groups = List.copyOf(groupKeys);
  }

  /** A table of {@code everyHost} and limits by key, each key validated and normalised. */
  static LimitTable of(Limits everyHost, Map<String, Limits> byKey) {
    if (byKey.isEmpty() && everyHost.equals(Limits.NONE)) {
      return EMPTY;
    }
    Map<String, Limits> normalised = new HashMap<>();
    for (Map.Entry<String, Limits> entry : byKey.entrySet()) {
      String key = HostKey.normaliseLimitKey(entry.getKey());
      Limits previous = normalised.put(key, entry.getValue());
      if (previous != null) {
        throw new IllegalArgumentException(
            "host limit '" + entry.getKey() + "' is given twice (as '" + key + "')");
      }
    }
    return new LimitTable(everyHost, Map.copyOf(normalised));
  }

  Limits everyHost() {
    return everyHost;
  }

  Map<String, Limits> byKey() {
    return byHost;
  }

  /** The group keys of this table, sorted. */
  List<String> groups() {
    return groups;
  }

  /**
   * The limits this table gives the host of {@code hostKey}: its key with port, else its host
   * name, each field falling through to the limits for every host.
   */
  Limits forHost(String hostKey) {
    if (byHost.isEmpty()) {
      return everyHost;
    }
    Limits exact = byHost.get(hostKey);
    Limits result = exact != null ? exact : Limits.NONE;
    if (!result.isComplete()) {
      String name = HostKey.hostName(hostKey);
      if (!name.equals(hostKey)) {
        Limits byName = byHost.get(name);
        if (byName != null) {
          result = result.orElse(byName);
        }
      }
    }
    return result.orElse(everyHost);
  }

  /** The limits this table gives the host of {@code hostKey} by key alone: its key with port, else its host name. */
  Limits forKey(String hostKey) {
    if (byHost.isEmpty()) {
      return Limits.NONE;
    }
    Limits exact = byHost.get(hostKey);
    Limits result = exact != null ? exact : Limits.NONE;
    String name = HostKey.hostName(hostKey);
    Limits byName = name.equals(hostKey) ? null : byHost.get(name);
    return byName != null ? result.orElse(byName) : result;
  }

  /** The limits this table gives the group {@code groupKey}; groups take nothing from {@link #everyHost()}. */
  Limits forGroup(String groupKey) {
    Limits limits = byHost.get(groupKey);
    return limits != null ? limits : Limits.NONE;
  }
}

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
 *
 * <p>A host's limits are looked up by the engine's key of its request ({@link HostKey#of}):
 * first a key given with that port ({@code example.org:8080}; {@code example.org:80} for the key
 * {@code example.org}), then, field by field, one given for the host on every port
 * ({@code example.org}), then the limits for every host.
 */
final class LimitTable {

  static final LimitTable EMPTY = new LimitTable(Limits.NONE, new LimitsByKey());

  private final Limits everyHost;
  private final LimitsByKey given;
  /** Keys given with a port, by the engine's key: "example.org:8080", and "example.org" for port 80 or 443. */
  private final Map<String, Limits> atPort;
  /** Keys given without port, by host name, and groups by "*.domain". */
  private final Map<String, Limits> everyPort;
  private final List<String> groups;

  private LimitTable(Limits everyHost, LimitsByKey given) {
    this.everyHost = everyHost;
    this.given = new LimitsByKey(given);
    Map<String, Limits> withPort = new HashMap<>();
    Map<String, Limits> withoutPort = new HashMap<>();
    List<String> groupKeys = new ArrayList<>();
    for (LimitsByKey.Given entry : given.given()) {
      String key = entry.key().key();
      (entry.key().everyPort() ? withoutPort : withPort).put(key, entry.limits());
      if (HostKey.isGroup(key)) {
        groupKeys.add(key);
      }
    }
    Collections.sort(groupKeys);
    this.atPort = Map.copyOf(withPort);
    this.everyPort = Map.copyOf(withoutPort);
    this.groups = List.copyOf(groupKeys);
  }

  /** A table of {@code everyHost} and the limits given by key. */
  static LimitTable of(Limits everyHost, LimitsByKey byKey) {
    if (byKey.isEmpty() && everyHost.equals(Limits.NONE)) {
      return EMPTY;
    }
    return new LimitTable(everyHost, byKey);
  }

  /** A table of {@code everyHost} and limits by literal keys, each validated and normalised. */
  static LimitTable of(Limits everyHost, Map<String, Limits> byKey) {
    return of(everyHost, LimitsByKey.of(byKey));
  }

  Limits everyHost() {
    return everyHost;
  }

  /** The limits by key as they were given, for a builder to start from. */
  LimitsByKey byKey() {
    return given;
  }

  /** The group keys of this table, sorted. */
  List<String> groups() {
    return groups;
  }

  /**
   * The limits this table gives the host of {@code hostKey}: by key with its port, else by its
   * host name, each field falling through to the limits for every host.
   */
  Limits forHost(String hostKey) {
    if (atPort.isEmpty() && everyPort.isEmpty()) {
      return everyHost;
    }
    return forKey(hostKey).orElse(everyHost);
  }

  /** The limits this table gives the host of {@code hostKey} by key alone: with its port, else by its host name. */
  Limits forKey(String hostKey) {
    if (atPort.isEmpty() && everyPort.isEmpty()) {
      return Limits.NONE;
    }
    Limits exact = atPort.get(hostKey);
    Limits result = exact != null ? exact : Limits.NONE;
    if (result.isComplete()) {
      return result;
    }
    Limits byName = everyPort.get(HostKey.hostName(hostKey));
    return byName != null ? result.orElse(byName) : result;
  }

  /** The limits this table gives the group {@code groupKey}; groups take nothing from {@link #everyHost()}. */
  Limits forGroup(String groupKey) {
    Limits limits = everyPort.get(groupKey);
    return limits != null ? limits : Limits.NONE;
  }
}

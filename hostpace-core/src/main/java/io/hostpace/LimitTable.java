package io.hostpace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

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
  /**
   * The group keys again, placed for looking up a host name's suffixes (see {@link #groupsOf}):
   * an open-addressing hash table whose slots hold a group key or null, a key placed by the
   * {@link #suffixHash} of its domain with the dot before it ({@code ".example.org"} for
   * {@code *.example.org}). Empty when the table has no groups.
   */
  private final @Nullable String[] groupSlots;
  /** The length of the longest group's domain with its dot: no longer suffix of a host name can be one. */
  private final int longestSuffix;

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
    this.groupSlots = groupSlots(groupKeys);
    int longest = 0;
    for (String group : groupKeys) {
      longest = Math.max(longest, group.length() - 1);
    }
    this.longestSuffix = longest;
  }

  /** The hash table of {@link #groupSlots}: a power of two at least twice the groups, filled by linear probing. */
  private static @Nullable String[] groupSlots(List<String> groupKeys) {
    if (groupKeys.isEmpty()) {
      return new String[0];
    }
    @Nullable String[] slots = new String[Integer.highestOneBit(groupKeys.size()) * 4];
    for (String group : groupKeys) {
      int slot = slot(suffixHash(group, 1, group.length()), slots.length);
      while (slots[slot] != null) {
        slot = (slot + 1) & (slots.length - 1);
      }
      slots[slot] = group;
    }
    return slots;
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
   * The groups of this table that {@code hostKey} is in, sorted: those {@link HostKey#inGroup}
   * says it is in, found without looking at the others. A host name can only be in the groups of
   * its suffixes that start at a dot after its first character: {@code a.b.example.org:8080} in
   * {@code *.b.example.org}, {@code *.example.org} and {@code *.org}, never in
   * {@code *.a.b.example.org} (its own name, the apex) nor by its port. So the name is read from
   * its end, its hash taken on the way, and at each dot the suffix from there is looked up in
   * {@link #groupSlots}: the cost follows the length of the name, not the number of groups, and
   * a host in no group makes nothing. An IP address is looked up like a name: its dots give
   * suffixes such as {@code .0.1}, and no group's domain is an address.
   */
  List<String> groupsOf(String hostKey) {
    if (groupSlots.length == 0) {
      return List.of();
    }
    int end = HostKey.hostNameEnd(hostKey);
    int stop = Math.max(1, end - longestSuffix);
    List<String> found = List.of();
    int hash = 0;
    for (int i = end - 1; i >= stop; i--) {
      char c = hostKey.charAt(i);
      hash = 31 * hash + c;
      if (c == '.') {
        String group = groupAt(hostKey, i, end, hash);
        if (group != null) {
          if (found.isEmpty()) {
            found = new ArrayList<>(2);
          }
          found.add(group);
        }
      }
    }
    if (found.size() > 1) {
      Collections.sort(found);
    }
    return found;
  }

  /**
   * What {@link #groupOrSeveral} answers for a host in more than one group of this table: compared
   * by identity, never a group's key.
   */
  static final String SEVERAL = new String("several groups");

  /**
   * The one group of this table's that {@code hostKey} is in, {@link #SEVERAL} when it is in more
   * than one, null when in none: both questions of a call's limits in one walk of its name, by the
   * suffixes of its name from the shortest, as {@link #groupsOf} reads them.
   */
  @Nullable String groupOrSeveral(String hostKey) {
    if (groupSlots.length == 0) {
      return null;
    }
    int end = HostKey.hostNameEnd(hostKey);
    int stop = Math.max(1, end - longestSuffix);
    int hash = 0;
    @Nullable String found = null;
    for (int i = end - 1; i >= stop; i--) {
      char c = hostKey.charAt(i);
      hash = 31 * hash + c;
      if (c == '.') {
        String group = groupAt(hostKey, i, end, hash);
        if (group != null) {
          if (found != null) {
            return SEVERAL;
          }
          found = group;
        }
      }
    }
    return found;
  }

  /**
   * The group key whose domain with its dot is {@code hostKey} from {@code dot} to {@code end},
   * whose {@link #suffixHash} is {@code hash}, or null.
   */
  private @Nullable String groupAt(String hostKey, int dot, int end, int hash) {
    int length = end - dot;
    for (int slot = slot(hash, groupSlots.length); ; slot = (slot + 1) & (groupSlots.length - 1)) {
      @Nullable String group = groupSlots[slot];
      if (group == null) {
        return null;
      }
      if (group.length() - 1 == length && hostKey.regionMatches(dot, group, 1, length)) {
        return group;
      }
    }
  }

  /**
   * A hash of {@code text} from {@code start} to {@code end} read from its end, the last
   * character first ({@code h = 31 * h + c}), so that a name's hash grows one suffix at a time as
   * {@link #groupsOf} reads it backwards.
   */
  private static int suffixHash(String text, int start, int end) {
    int hash = 0;
    for (int i = end - 1; i >= start; i--) {
      hash = 31 * hash + text.charAt(i);
    }
    return hash;
  }

  /** The slot of {@code hash} in a table of {@code length} slots, a power of two: its high bits after a multiplicative mix. */
  private static int slot(int hash, int length) {
    return (hash * 0x9E3779B9) >>> (32 - Integer.numberOfTrailingZeros(length));
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

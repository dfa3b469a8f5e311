package io.hostpace.redis;

/**
 * The names of one fleet's keys and channel in Redis, one method per kind, so that every key the
 * fleet writes is laid out alike: {@code hostpace:<fleet>:<kind>:{<tag>}:<key>}, the engine's key
 * last, readable as it is, and before it, in braces, its hash tag ({@link #tag}).
 *
 * <pre>
 * hostpace:crawlers:lessons                                    the channel
 * hostpace:crawlers:last:{wikidata.org}:query.wikidata.org     a host's last granted start
 * hostpace:crawlers:last:{wikidata.org}:*.wikidata.org         its group's
 * hostpace:crawlers:shortest:{wikidata.org}:query.wikidata.org the shortest interval claimed of it lately
 * hostpace:crawlers:places:{wikidata.org}:query.wikidata.org   a host's places
 * hostpace:crawlers:places:{example.org}:example.org/quota     a learned quota's places
 * hostpace:crawlers:waiters:{wikidata.org}:query.wikidata.org  the claims that wait for its places
 * hostpace:crawlers:waiter-terms:{wikidata.org}:query.wikidata.org   and each one's lease and limit
 * hostpace:crawlers:granted:3f9a0c17d2e4b855                   one process's channel of grants
 * hostpace:crawlers:last:{127.0.0.1}:127.0.0.1:8080            an IP literal's, tagged by itself
 * hostpace:crawlers:processes:{crawlers}                       the fleet's processes alive
 * </pre>
 *
 * <p>Redis Cluster puts a key in the slot of its hash tag, the text between its first {@code {}
 * and the next {@code }}: keys with one tag share a slot, so one script may touch them all, and
 * keys with different tags spread over the Cluster's slots. A claim of a start touches a host's
 * key and its paced groups' keys in one script, so the tag is what a host has in common with its
 * groups: the last two labels of the name ({@code a.blog.example.org} and {@code *.example.org}
 * are both {@code example.org}), whatever port or {@code /quota} follows. So the keys of every
 * host below one domain of two labels share a slot, and distinct domains spread over the slots.
 * An IP literal ({@code 127.0.0.1}, {@code [::1]}) or a one-label name ({@code localhost}) is
 * its own tag, without its port. A group of one label ({@code *.org}) would be tagged
 * {@code org}, in another slot than its hosts; no engine writes one (it refuses a limit on it),
 * and {@link RedisFleet} refuses it as any key no engine writes. A claim of keys in two slots
 * (hosts of two domains, through the {@code Fleet} interface) is refused by Redis Cluster
 * ({@code CROSSSLOT}), so it is answered {@code UNCLAIMED} and its start paced by the engine
 * alone. On one server, slots do not matter and every claim is granted as before.
 *
 * <p>Why not the whole host as its tag: a host and its groups would then be in different slots,
 * and no claim of both could be one script. Why not a public-suffix list: it would be a
 * dependency and change with each release of it; with two labels, the hosts below
 * {@code co.uk} share one slot, which holds a few small keys each and so spreads less, nothing
 * worse.
 */
final class RedisKeys {

  private final String prefix;
  private final String fleetName;

  /** The keys of the fleet {@code fleetName}, a name {@link RedisFleet#checkName} took (no braces, no colon). */
  RedisKeys(String fleetName) {
    this.prefix = "hostpace:" + fleetName + ":";
    this.fleetName = fleetName;
  }

  /** The channel lessons travel on: {@code hostpace:<fleet>:lessons} (a channel has no slot). */
  String lessons() {
    return prefix + "lessons";
  }

  /** The string of {@code key}'s last granted start ({@link ClaimScript}). */
  String last(String key) {
    return named("last", key);
  }

  /** The string of the shortest interval claimed of {@code key} lately ({@link ClaimScript}). */
  String shortest(String key) {
    return named("shortest", key);
  }

  /** The sorted set of {@code key}'s places held ({@link PlaceScript}); {@code key} may end in {@code /quota}. */
  String places(String key) {
    return named("places", key);
  }

  /** The sorted set of the claims that wait for one of {@code key}'s places, in their order ({@link PlaceScript#CLAIM}). */
  String waiters(String key) {
    return named("waiters", key);
  }

  /** The hash of each claim that waits for one of {@code key}'s places: its lease's end, its limit, its lease ({@link PlaceScript#CLAIM}). */
  String waiterTerms(String key) {
    return named("waiter-terms", key);
  }

  /**
   * The channel on which the process {@code origin} hears the places granted to its claims that
   * waited: {@code hostpace:<fleet>:granted:<origin>} (a channel has no slot).
   */
  String granted(String origin) {
    return prefix + "granted:" + origin;
  }

  /** The string of what {@code key}'s answers taught ({@link KeptScripts}). */
  String kept(String key) {
    return named("kept", key);
  }

  /** The hash of what {@code key}'s host announced and the fleet's spends of it ({@link AnnouncedScripts}). */
  String announced(String key) {
    return named("announced", key);
  }

  /**
   * The sorted set of the fleet's processes alive ({@link PlaceScript#PROCESSES}):
   * {@code hostpace:<fleet>:processes:{<fleet>}}, tagged by the fleet's name, as it has no host:
   * one key, in one slot.
   */
  String processes() {
    return prefix + "processes:{" + fleetName + "}";
  }

  private String named(String kind, String key) {
    return prefix + kind + ":{" + tag(key) + "}:" + key;
  }

  /**
   * The hash tag of the engine's {@code key}: the host's name or group's domain without port
   * or {@code /suffix}, cut to its last two labels; an IP literal or a one-label name whole.
   */
  static String tag(String key) {
    String host = key;
    int slash = host.indexOf('/');
    if (slash >= 0) { // a key of a kind of its own, such as a learned quota's: example.org/quota
      host = host.substring(0, slash);
    }
    if (host.startsWith("*.")) { // a group: its domain
      host = host.substring(2);
    }
    if (host.startsWith("[")) { // an IPv6 literal, with or without its port
      int close = host.indexOf(']');
      return close > 0 ? host.substring(0, close + 1) : host;
    }
    int colon = host.lastIndexOf(':');
    if (colon >= 0) {
      host = host.substring(0, colon);
    }
    if (host.isEmpty()) {
      return key;
    }
    if (ipv4(host)) {
      return host;
    }
    int last = host.lastIndexOf('.');
    if (last < 0) {
      return host;
    }
    int secondLast = host.lastIndexOf('.', last - 1);
    return secondLast < 0 ? host : host.substring(secondLast + 1);
  }

  /** Whether {@code host} is digits and dots alone, as a host key writes an IPv4 address. */
  private static boolean ipv4(String host) {
    for (int at = 0; at < host.length(); at++) {
      char c = host.charAt(at);
      if (c != '.' && (c < '0' || c > '9')) {
        return false;
      }
    }
    return true;
  }
}

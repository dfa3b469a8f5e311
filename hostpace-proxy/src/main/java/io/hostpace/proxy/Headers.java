package io.hostpace.proxy;

import java.util.Locale;
import java.util.Set;

/**
 * Which headers the proxy passes on, each way: all but the hop-by-hop ones (RFC 9110, 7.6.1),
 * those the {@code Connection} header names, and, towards the upstream, those the JDK's client
 * sets itself ({@code Host}, {@code Content-Length}, {@code Expect}).
 */
final class Headers {

  private static final Set<String> HOP_BY_HOP = Set.of(
      "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
      "transfer-encoding", "upgrade");

  /** Set by the JDK's client from the request itself; it refuses them given. */
  private static final Set<String> SET_BY_CLIENT = Set.of("host", "content-length", "expect");

  private Headers() {}

  /** Whether {@code name} goes from the client to the upstream; {@code connection} is the request's Connection header, or null. */
  static boolean toUpstream(String name, String connection) {
    String lower = name.toLowerCase(Locale.ROOT);
    return !HOP_BY_HOP.contains(lower) && !SET_BY_CLIENT.contains(lower) && !named(lower, connection);
  }

  /** Whether {@code name} goes from the upstream's answer to the client; {@code connection} is the answer's Connection header, or null. */
  static boolean toClient(String name, String connection) {
    String lower = name.toLowerCase(Locale.ROOT);
    return !HOP_BY_HOP.contains(lower) && !lower.startsWith(":") && !named(lower, connection);
  }

  /** Whether the Connection header's value names {@code lower} (a header that is then hop-by-hop too). */
  private static boolean named(String lower, String connection) {
    if (connection.isEmpty()) {
      return false;
    }
    for (String token : connection.split(",")) {
      if (token.trim().toLowerCase(Locale.ROOT).equals(lower)) {
        return true;
      }
    }
    return false;
  }
}

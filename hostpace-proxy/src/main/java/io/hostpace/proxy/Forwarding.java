package io.hostpace.proxy;

import io.hostpace.Hostpace;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The proxy as a forward proxy of plain {@code http://} URLs ({@code http_proxy}): a request whose
 * authority is not the proxy's own goes to that authority, when its host is one of the keys the
 * proxy was given to forward ({@code example.org}, {@code example.org:8080}, or a group
 * {@code *.example.org}); any other is refused, so that the proxy is no open relay.
 *
 * <p>A request is the proxy's own (its routes and {@code /hostpace/...}) when the proxy forwards
 * no host at all, whatever name and port its {@code Host} gives (a port mapped by Docker or
 * {@code ssh -L}, a reverse proxy's {@code Host}); else when it names the proxy's port and a host
 * that is not to be forwarded: a client that was told the proxy's address sends there; a client
 * that uses it as {@code http_proxy} names the host it wants. (Jetty fills a request's URI from
 * its {@code Host} before a handler sees it, so whether the client sent a whole URL or a path
 * cannot be told by public means.)
 */
final class Forwarding {

  private final List<String> keys;

  Forwarding(List<String> keys) {
    this.keys = List.copyOf(keys);
  }

  /** A key to forward, checked: a host's or a group's, written as the engine writes keys. */
  static String check(String key) {
    try {
      return Hostpace.checkKey(key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot forward '" + key + "': " + e.getMessage(), e);
    }
  }

  boolean any() {
    return !keys.isEmpty();
  }

  List<String> keys() {
    return keys;
  }

  /** The key of {@code host} and {@code port} (-1 when none was given), as the engine writes it; null when it names no host. */
  static @Nullable String keyOf(@Nullable String host, int port) {
    if (host == null || host.isEmpty()) {
      return null;
    }
    String lower = host.toLowerCase(Locale.ROOT);
    if (lower.indexOf(':') >= 0 && !lower.startsWith("[")) {
      lower = "[" + lower + "]"; // an IPv6 literal
    }
    return port > 0 && port != 80 ? lower + ":" + port : lower;
  }

  /** Whether a request naming {@code host} and {@code port} is the proxy's own, the proxy listening on {@code localPort} and forwarding some host. */
  boolean own(@Nullable String host, int port, int localPort) {
    String key = keyOf(host, port);
    return (port > 0 ? port : 80) == localPort && (key == null || !forwards(key));
  }

  /** Whether the host of {@code key} is one to forward. */
  boolean forwards(String key) {
    for (String given : keys) {
      if (given.equals(key) || given.startsWith("*.") && Hostpace.inGroup(key, given)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Where a forwarded request for {@code key} with {@code rawPath} and {@code rawQuery} (as sent)
   * goes; what {@link URI} refuses in either is escaped first ({@link UriEscapes}).
   *
   * @throws IllegalArgumentException saying what in the request cannot be sent
   */
  static URI upstream(String key, String rawPath, @Nullable String rawQuery) {
    String path = UriEscapes.path(rawPath.startsWith("/") ? rawPath : "/" + rawPath);
    return UriEscapes.upstream("http://" + key + path + (rawQuery == null ? "" : "?" + UriEscapes.query(rawQuery)));
  }
}

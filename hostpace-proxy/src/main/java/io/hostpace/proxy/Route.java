package io.hostpace.proxy;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One of the proxy's routes: the requests whose path is {@code prefix} or starts with
 * {@code prefix/} go to {@code target}, the rest of their path appended to the target's, their
 * query kept.
 *
 * <p>Example: the route {@code /wikidata=https://query.wikidata.org} sends
 * {@code /wikidata/sparql?query=ASK%7B%7D} to {@code https://query.wikidata.org/sparql?query=ASK%7B%7D};
 * {@code /qlever=https://qlever.dev/api} sends {@code /qlever/wikidata} to
 * {@code https://qlever.dev/api/wikidata}. {@code /wikidatax} is not the route's.
 */
record Route(String prefix, URI target) {

  /** The path the proxy answers itself under, never forwarded. */
  static final String OWN = "/hostpace";

  Route {
    prefix = checkPrefix(prefix);
    target = checkTarget(prefix, target);
  }

  /** A route as the command line writes it: {@code /prefix=http(s)://host[:port][/path]}. */
  static Route parse(String spec) {
    int equals = spec.indexOf('=');
    if (equals < 0) {
      throw new IllegalArgumentException("route '" + spec + "' has no '=': expected /PREFIX=URL, as /wikidata=https://query.wikidata.org");
    }
    String target = spec.substring(equals + 1).trim();
    try {
      return new Route(spec.substring(0, equals).trim(), new URI(target));
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("route '" + spec + "': '" + target + "' is not a URL: " + e.getMessage(), e);
    }
  }

  private static String checkPrefix(String prefix) {
    if (!prefix.startsWith("/") || prefix.length() < 2) {
      throw new IllegalArgumentException("a route's prefix starts with '/' and names something, as /wikidata: was '" + prefix + "'");
    }
    String trimmed = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    for (int i = 0; i < trimmed.length(); i++) {
      char c = trimmed.charAt(i);
      if (c <= ' ' || c == '?' || c == '#' || c == '%' || c >= 0x7f) {
        throw new IllegalArgumentException("a route's prefix is a plain path, without spaces, '?', '#' or '%': was '" + prefix + "'");
      }
    }
    if (trimmed.equals(OWN) || trimmed.startsWith(OWN + "/")) {
      throw new IllegalArgumentException("the prefix " + prefix + " is the proxy's own (" + OWN + "/hosts): choose another");
    }
    return trimmed;
  }

  /** {@code target}, the target of the route of {@code prefix}, checked to be one a request can be sent to. */
  private static URI checkTarget(String prefix, URI target) {
    String scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("a route's target is an http or https URL, as https://query.wikidata.org: was '" + target + "'");
    }
    if (target.getHost() == null) {
      // java.net.URI reads an authority it cannot parse as host[:port] (a name with '_', say) as
      // one of no host, and the JDK's client refuses to send to it.
      throw new IllegalArgumentException(target.getRawAuthority() == null || target.getRawAuthority().isEmpty()
          ? "a route's target names a host: was '" + target + "'"
          : "the route " + prefix + ": the host of '" + target + "' is not one java.net.URI can read, and so not one a"
              + " request can be sent to (a name of letters, digits, '-' and '.', without '_')");
    }
    if (target.getPort() == 0 || target.getPort() > 65535) {
      throw new IllegalArgumentException("the route " + prefix + ": the port " + target.getPort() + " of '" + target
          + "' is not one of 1 to 65535");
    }
    if (target.getRawQuery() != null || target.getRawFragment() != null || target.getRawUserInfo() != null) {
      throw new IllegalArgumentException("a route's target is a base URL, without query, fragment or user: was '" + target + "'");
    }
    String path = target.getRawPath() == null ? "" : target.getRawPath();
    if (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return URI.create(scheme + "://" + target.getRawAuthority() + path);
  }

  /**
   * Where a request with {@code rawPath} (as sent, percent-encoded) and {@code rawQuery} goes, or
   * null when its path is not this route's. What {@link URI} refuses in either is escaped first
   * ({@link UriEscapes}).
   *
   * @throws IllegalArgumentException saying what in the request cannot be sent, never the target:
   *     a path with a dot segment is never sent ({@link #checkNoDotSegment})
   */
  @Nullable URI upstream(String rawPath, @Nullable String rawQuery) {
    if (!rawPath.equals(prefix) && !rawPath.startsWith(prefix + "/")) {
      return null;
    }
    String rest = rawPath.substring(prefix.length());
    checkNoDotSegment(rawPath, rest);
    rest = UriEscapes.path(rest);
    return UriEscapes.upstream(target + rest + (rawQuery == null ? "" : "?" + UriEscapes.query(rawQuery)));
  }

  /**
   * Refuses a path whose {@code rest} (after the prefix) has a dot segment: {@code .} or
   * {@code ..}, escaped or not ({@code %2e}), or followed by parameters ({@code ..;x}, which some
   * servers read as {@code ..}). The upstream would resolve it against the target's path, so that
   * {@code /qlever/../x} with the route {@code /qlever=https://qlever.dev/api} would reach
   * {@code https://qlever.dev/x}, outside the route's base.
   */
  private static void checkNoDotSegment(String rawPath, String rest) {
    for (String segment : rest.split("/", -1)) {
      int parameters = segment.indexOf(';');
      String name = (parameters < 0 ? segment : segment.substring(0, parameters)).replace("%2e", ".").replace("%2E", ".");
      if (name.equals(".") || name.equals("..")) {
        throw new IllegalArgumentException("the path " + rawPath + " has the dot segment '" + segment + "', which could"
            + " leave the route's base path: a path with one is never sent upstream");
      }
    }
  }

  @Override
  public String toString() {
    return prefix + "=" + target;
  }
}

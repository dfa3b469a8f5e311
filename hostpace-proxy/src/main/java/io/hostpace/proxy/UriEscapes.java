package io.hostpace.proxy;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;

/**
 * A request's path and query as {@link URI} takes them: each character it refuses there is
 * percent-encoded (its UTF-8 bytes), the escapes already there kept as they are. Clients send some
 * such characters raw: curl and browsers send {@code ?query=ASK{}} with its braces, and a
 * {@code "} as it is. A {@code %} that starts no escape is sent as {@code %25}, a non-ASCII
 * character as its escaped UTF-8 bytes (a request line is ASCII).
 */
final class UriEscapes {

  /** What {@link URI} takes in a path besides letters, digits and escapes: its unreserved marks, {@code ;:@&=+$,} and {@code /}. */
  private static final String PATH = "-_.!~*'();:@&=+$,/";
  /** What {@link URI} takes in a query besides letters, digits and escapes: its unreserved marks and reserved characters. */
  private static final String QUERY = "-_.!~*'();/?:@&=+$,[]";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private UriEscapes() {}

  /** {@code raw}, a path as the client sent it, with what {@link URI} refuses in a path escaped. */
  static String path(String raw) {
    return escape(raw, PATH);
  }

  /** {@code raw}, a query as the client sent it, with what {@link URI} refuses in a query escaped. */
  static String query(String raw) {
    return escape(raw, QUERY);
  }

  /**
   * {@code text} as a URI to send to.
   *
   * @throws IllegalArgumentException naming the character or the host {@link URI} cannot read,
   *     never {@code text}: it is the upstream's URL, not the client's to see
   */
  static URI upstream(String text) {
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      int at = e.getIndex();
      throw new IllegalArgumentException(at >= 0 && at < text.length()
          ? "its character '" + text.charAt(at) + "' (" + String.format("U+%04X", (int) text.charAt(at)) + ") cannot be sent upstream"
          : "it cannot be sent upstream: " + e.getReason(), e);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("its host " + uri.getRawAuthority() + " is not one java.net.URI can read,"
          + " and so cannot be sent to");
    }
    return uri;
  }

  private static String escape(String raw, String marks) {
    StringBuilder out = null;
    for (int i = 0; i < raw.length(); ) {
      int c = raw.codePointAt(i);
      int next = i + Character.charCount(c);
      if (kept(raw, i, c, marks)) {
        if (out != null) {
          out.appendCodePoint(c);
        }
      } else {
        if (out == null) {
          out = new StringBuilder(raw.length() + 16).append(raw, 0, i);
        }
        for (byte b : raw.substring(i, next).getBytes(StandardCharsets.UTF_8)) {
          out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
        }
      }
      i = next;
    }
    return out == null ? raw : out.toString();
  }

  /** Whether {@code c}, at {@code i} of {@code raw}, is one {@link URI} takes as it is: a letter or digit, a mark, or an escape's {@code %}. */
  private static boolean kept(String raw, int i, int c, String marks) {
    if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c < 0x80 && marks.indexOf(c) >= 0) {
      return true;
    }
    return c == '%' && i + 2 < raw.length() && hex(raw.charAt(i + 1)) && hex(raw.charAt(i + 2));
  }

  private static boolean hex(char c) {
    return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
  }
}

package io.hostpace;

import org.jspecify.annotations.Nullable;

/**
 * The IP addresses a URL's host can spell, read as the JDK's resolver reads them and written in
 * one canonical form, so that two spellings of one address are one host (SPEC: host). Only text is
 * read: nothing here looks a name up.
 *
 * <p>IPv4 in every form {@code InetAddress} takes for an address rather than a name: four parts
 * ({@code 127.0.0.1}), and the short forms whose last part fills the bytes left ({@code 127.1},
 * {@code 127.0.1}, {@code 2130706433}), each part decimal: leading zeros are not octal
 * ({@code 0177.0.0.1} is {@code 177.0.0.1}), as the JDK reads it. Hexadecimal parts
 * ({@code 0x7f.1}) are not an address to the JDK, which looks them up as a name; so they stay
 * names here.
 *
 * <p>IPv6 in the canonical text of RFC 5952: lower case, no leading zeros in a group, the longest
 * run of two or more zero groups (the first of equal runs) written {@code ::}, in brackets:
 * {@code [0:0:0:0:0:0:0:1]} and {@code [::0001]} are {@code [::1]}. An IPv4-mapped address
 * ({@code [::ffff:127.0.0.1]}, {@code [::ffff:7f00:1]}) is the IPv4 address {@code 127.0.0.1}: the
 * JDK connects to that address over IPv4. A zone ({@code [fe80::1%25eth0]}) is kept as written,
 * after {@code %25}: another zone is another link.
 */
final class IpLiteral {

  private static final int IPV4_MAX_LENGTH = 15; // the JDK reads longer text as a name

  private IpLiteral() {}

  /**
   * The dotted quad of {@code host} when the JDK reads it as an IPv4 address ({@code 127.1} →
   * {@code 127.0.0.1}), else {@code null}.
   */
  static @Nullable String ipv4(String host) {
    long address = ipv4Address(host);
    return address < 0 ? null : dotted(address);
  }

  /**
   * The canonical key of an IPv6 literal in brackets ({@code [0:0::1]} → {@code [::1]}), the dotted
   * quad of an IPv4-mapped one, or {@code null} when {@code bracketed} is not an IPv6 literal.
   */
  static @Nullable String ipv6(String bracketed) {
    if (bracketed.length() < 4 || bracketed.charAt(0) != '[' || bracketed.charAt(bracketed.length() - 1) != ']') {
      return null;
    }
    String inner = bracketed.substring(1, bracketed.length() - 1);
    String zone = "";
    int percent = inner.indexOf('%');
    if (percent >= 0) {
      zone = zone(inner.substring(percent + 1));
      if (zone == null) {
        return null;
      }
      inner = inner.substring(0, percent);
    }
    int[] groups = groups(inner);
    if (groups == null) {
      return null;
    }
    if (zone.isEmpty() && isIpv4Mapped(groups)) {
      return dotted(((long) groups[6] << 16) | groups[7]);
    }
    return "[" + compressed(groups) + zone + "]";
  }

  // ---------------------------------------------------------------------------------------

  /**
   * The address the JDK's {@code IPAddressUtil.textToNumericFormatV4} reads, or -1: one to four
   * decimal parts, the last one filling the bytes the others leave.
   */
  private static long ipv4Address(String s) {
    int length = s.length();
    if (length == 0 || length > IPV4_MAX_LENGTH) {
      return -1;
    }
    long address = 0;
    long part = 0;
    int parts = 0;
    boolean empty = true;
    for (int i = 0; i < length; i++) {
      char c = s.charAt(i);
      if (c == '.') {
        if (empty || part > 0xff || parts == 3) {
          return -1;
        }
        address = (address << 8) | part;
        parts++;
        part = 0;
        empty = true;
      } else if (c >= '0' && c <= '9') {
        part = part * 10 + (c - '0');
        empty = false;
      } else {
        return -1;
      }
    }
    int lastBits = (4 - parts) * 8;
    if (empty || part >= (1L << lastBits)) {
      return -1;
    }
    return (address << lastBits) | part;
  }

  private static String dotted(long address) {
    return ((address >> 24) & 0xff) + "." + ((address >> 16) & 0xff) + "." + ((address >> 8) & 0xff) + "."
        + (address & 0xff);
  }

  /** The zone after '%' written as "%25zone" (a URI's escape of '%' dropped), or null if it is not one. */
  private static @Nullable String zone(String afterPercent) {
    String zone = afterPercent.startsWith("25") ? afterPercent.substring(2) : afterPercent;
    if (zone.isEmpty()) {
      return null;
    }
    for (int i = 0; i < zone.length(); i++) {
      char c = zone.charAt(i);
      boolean unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~';
      if (!unreserved) {
        return null;
      }
    }
    return "%25" + zone;
  }

  /**
   * The eight 16-bit groups of an IPv6 address's text (RFC 4291 section 2.2: hex groups, one
   * {@code ::} for one or more zero groups, an IPv4 dotted quad for the last two), or null.
   */
  private static int @Nullable [] groups(String text) {
    int doubleColon = text.indexOf("::");
    if (doubleColon >= 0 && text.indexOf("::", doubleColon + 1) >= 0) {
      return null;
    }
    int[] head = doubleColon < 0 ? groupList(text, true) : groupList(text.substring(0, doubleColon), false);
    int[] tail = doubleColon < 0 ? new int[0] : groupList(text.substring(doubleColon + 2), true);
    if (head == null || tail == null) {
      return null;
    }
    int given = head.length + tail.length;
    if (doubleColon < 0 ? given != 8 : given > 7) {
      return null;
    }
    int[] groups = new int[8];
    System.arraycopy(head, 0, groups, 0, head.length);
    System.arraycopy(tail, 0, groups, 8 - tail.length, tail.length);
    return groups;
  }

  /**
   * The groups of colon-separated text ("" is none); a dotted quad may end it when
   * {@code mayEndInIpv4}, counting as two groups.
   */
  private static int @Nullable [] groupList(String text, boolean mayEndInIpv4) {
    if (text.isEmpty()) {
      return new int[0];
    }
    String[] parts = text.split(":", -1);
    int last = parts.length - 1;
    boolean endsInIpv4 = mayEndInIpv4 && parts[last].indexOf('.') >= 0;
    int[] groups = new int[parts.length + (endsInIpv4 ? 1 : 0)];
    for (int i = 0; i < parts.length; i++) {
      if (i == last && endsInIpv4) {
        long quad = strictDottedQuad(parts[i]);
        if (quad < 0) {
          return null;
        }
        groups[i] = (int) (quad >> 16);
        groups[i + 1] = (int) (quad & 0xffff);
      } else {
        int group = hexGroup(parts[i]);
        if (group < 0) {
          return null;
        }
        groups[i] = group;
      }
    }
    return groups;
  }

  /** One to four hex digits, or -1. */
  private static int hexGroup(String s) {
    if (s.isEmpty() || s.length() > 4) {
      return -1;
    }
    int value = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) {
        return -1;
      }
      value = value * 16 + digit;
    }
    return value;
  }

  /** The four decimal parts of 0 to 255 that end an IPv6 address, or -1. */
  private static long strictDottedQuad(String s) {
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) {
      return -1;
    }
    long address = 0;
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 3) {
        return -1;
      }
      int value = 0;
      for (int i = 0; i < part.length(); i++) {
        char c = part.charAt(i);
        if (c < '0' || c > '9') {
          return -1;
        }
        value = value * 10 + (c - '0');
      }
      if (value > 255) {
        return -1;
      }
      address = (address << 8) | value;
    }
    return address;
  }

  private static boolean isIpv4Mapped(int[] groups) {
    for (int i = 0; i < 5; i++) {
      if (groups[i] != 0) {
        return false;
      }
    }
    return groups[5] == 0xffff;
  }

  /** RFC 5952 section 4: lower-case groups without leading zeros, the longest zero run of two or more as "::". */
  private static String compressed(int[] groups) {
    int bestStart = -1;
    int bestLength = 1; // a single zero group is not compressed
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int start = i;
      while (i < 8 && groups[i] == 0) {
        i++;
      }
      if (i - start > bestLength) {
        bestStart = start;
        bestLength = i - start;
      }
    }
    StringBuilder text = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (i > 0 && i != bestStart + bestLength) {
        text.append(':');
      }
      text.append(Integer.toHexString(groups[i]));
    }
    return text.toString();
  }
}

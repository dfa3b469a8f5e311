package io.hostpace.internal;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What may be shown of a URI or a header value that can hold a secret, and of any text a caller or
 * a server gave: every message, record and summary that repeats one goes through here first. A URI's user info (a user and password, or a
 * token, before the host) becomes {@code ***}, wherever in a text the URI stands:
 * {@code redis://user:secret@cache:6379} is shown {@code redis://***@cache:6379}. The value of a
 * header that carries credentials ({@code Authorization}, {@code Proxy-Authorization},
 * {@code Cookie}, {@code Set-Cookie}, and names that speak of a token, a key, a secret, a
 * password or a session) is shown as {@code ***} whole.
 *
 * <p>The user info of a URI is taken to run from its {@code //} to the last {@code @} before the
 * next {@code /}, {@code ?} or {@code #}, the delimiters that end an authority, so a password
 * that holds an {@code @} or a space (as one typed in error does) is hidden whole; a text with
 * an {@code @} after a {@code //} and no delimiter between hides a little more than it must.
 *
 * <p>A text is shown on one line as {@link #printable} writes it: every control, format and
 * line-separating character escaped, so that a host name decoded from {@code %0d%0a}, a key with a
 * newline or an escape sequence, or a bidi override cannot break a message into two or rewrite
 * what a terminal shows: <code>"a\nb&#92;u0001"</code> is shown {@code a\nb\x01}.
 */
public final class Redaction {

  /** What a secret is shown as. */
  public static final String MASK = "***";

  private static final Pattern USER_INFO = Pattern.compile("(?<=//)[^/?#]*@");

  /** Header names whose values are credentials whatever they contain. */
  private static final String[] SECRET_NAME_PARTS = {
      "auth", "cookie", "token", "secret", "password", "passwd", "key", "session", "credential", "signature"};

  private Redaction() {}

  /** {@code text} with the user info of every URI in it replaced by {@code ***}. */
  public static String userInfo(String text) {
    Objects.requireNonNull(text, "text");
    return text.indexOf('@') < 0 ? text : USER_INFO.matcher(text).replaceAll(MASK + "@");
  }

  /**
   * Whether a header of this name carries credentials: {@code Authorization},
   * {@code Proxy-Authorization}, {@code Cookie}, {@code Set-Cookie}, {@code X-Api-Key},
   * {@code X-Auth-Token} and their like, in any case.
   */
  public static boolean secretHeader(String name) {
    String lower = Objects.requireNonNull(name, "name").toLowerCase(Locale.ROOT);
    for (String part : SECRET_NAME_PARTS) {
      if (lower.contains(part)) {
        return true;
      }
    }
    return false;
  }

  /** What may be shown of a header's value: {@code ***} for credentials, else the value with URIs redacted. */
  public static String header(String name, String value) {
    Objects.requireNonNull(value, "value");
    return secretHeader(name) ? MASK : userInfo(value);
  }

  /**
   * {@code text} on one line: its control, format and line or paragraph separating characters
   * escaped, nothing else changed. A newline, a carriage return and a tab are {@code \n},
   * {@code \r} and {@code \t}; another character up to U+00FF is {@code \x} and two hex digits
   * ({@code \x01}, {@code \x1b}, {@code \x85}), one up to U+FFFF <code>&#92;u</code> and four
   * (<code>&#92;u202e</code>, <code>&#92;u2028</code>), one beyond {@code \U} and eight ({@code \U000e0001}).
   * Letters, marks and symbols of every script are kept, and so is a backslash, so a text with
   * nothing to escape is returned as it is, and escaping twice changes nothing more.
   */
  public static String printable(String text) {
    Objects.requireNonNull(text, "text");
    @Nullable StringBuilder shown = null;
    for (int at = 0; at < text.length(); ) {
      int c = text.codePointAt(at);
      String escape = escape(c);
      if (escape != null && shown == null) {
        shown = new StringBuilder(text.length() + 8).append(text, 0, at);
      }
      if (shown != null) {
        if (escape != null) {
          shown.append(escape);
        } else {
          shown.appendCodePoint(c);
        }
      }
      at += Character.charCount(c);
    }
    return shown == null ? text : shown.toString();
  }

  /** How {@code c} is shown when it cannot be shown as itself; null when it can. */
  private static @Nullable String escape(int c) {
    String named = switch (c) {
      case '\n' -> "\\n";
      case '\r' -> "\\r";
      case '\t' -> "\\t";
      default -> null;
    };
    if (named != null) {
      return named;
    }
    int type = Character.getType(c);
    if (type != Character.CONTROL && type != Character.FORMAT
        && type != Character.LINE_SEPARATOR && type != Character.PARAGRAPH_SEPARATOR) {
      return null;
    }
    if (c <= 0xff) {
      return String.format(Locale.ROOT, "\\x%02x", c);
    }
    return c <= 0xffff ? String.format(Locale.ROOT, "\\u%04x", c) : String.format(Locale.ROOT, "\\U%08x", c);
  }
}

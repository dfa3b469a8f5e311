package io.hostpace;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What may be shown of a URI or a header value that can hold a secret: every message, record and
 * summary that repeats one goes through here first. A URI's user info (a user and password, or a
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
}

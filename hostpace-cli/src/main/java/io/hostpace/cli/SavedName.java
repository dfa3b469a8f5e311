package io.hostpace.cli;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of the file {@code fetch --save DIR} keeps a URL's body in: readable, safe on every
 * common file system, and the URL's own. The host, port, path and query are kept, percent-escapes
 * decoded, and every character but ASCII letters, digits and {@code . _ - = + , ~} becomes
 * {@code _}, which takes in the dots beside it (so {@code /../} is one {@code _}); the user info
 * and the fragment are dropped. So the name holds no
 * separator ({@code /}, {@code \}), no NUL or control character, and cannot be {@code .} or
 * {@code ..}; it does not start with a dot (a hidden file, and the temporary files of
 * {@link SaveFolder} start with one), does not end with a dot or a space, and is not a name
 * Windows reserves ({@code CON}, {@code NUL.txt}, {@code com1}...). The readable part is cut at
 * {@value #READABLE} characters; then come {@code _} and the first 12 hex digits of the SHA-256
 * of the whole URL as given, so that two URLs whose readable parts are equal get two names (of a
 * URL with user info, the hash of the URL after a secret drawn when the process starts: the name
 * of a URL with a password must not let anyone check guesses at it; {@code --resume} finds such a
 * file by its record, which names it); a
 * last path segment's extension of up to 8 letters or digits (after a stem: {@code /.hidden}
 * has none) is kept at the end when the URL has no query. For example
 * {@code https://example.org/a/b?x=1} is {@code example.org_a_b_x=1_} and 12 hex digits;
 * {@code https://example.org/data/r%C3%A9sum%C3%A9.pdf} is {@code example.org_data_r_sum_} and
 * 12 hex digits, then {@code .pdf}.
 */
final class SavedName {

  /** The most characters of the readable part; a whole name is at most 131, all ASCII. */
  static final int READABLE = 100;

  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://");
  private static final Pattern EXTENSION = Pattern.compile("[^./](\\.[A-Za-z0-9]{1,8})$");
  private static final Set<String> RESERVED = Set.of("CON", "PRN", "AUX", "NUL",
      "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
      "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9");

  /** What a URL with user info is hashed after: drawn once a process, never shown. */
  private static final String SECRET = secret();

  private SavedName() {}

  /** The file name for {@code url}, as the user gave it. */
  static String of(String url) {
    String rest = SCHEME.matcher(url).replaceFirst("");
    int fragment = rest.indexOf('#');
    if (fragment >= 0) {
      rest = rest.substring(0, fragment);
    }
    int pathStart = firstOf(rest, "/?");
    int at = rest.lastIndexOf('@', pathStart < 0 ? rest.length() - 1 : pathStart);
    if (at >= 0) {
      rest = rest.substring(at + 1); // the user info: never in a name
      pathStart = firstOf(rest, "/?");
    }
    String extension = "";
    if (pathStart >= 0 && rest.indexOf('?') < 0) {
      Matcher last = EXTENSION.matcher(decoded(rest.substring(pathStart)));
      if (last.find() && !rest.substring(pathStart).endsWith("/")) {
        extension = last.group(1);
      }
    }
    String readable = safe(decoded(rest));
    if (!extension.isEmpty() && readable.endsWith(extension)) {
      readable = trim(readable.substring(0, readable.length() - extension.length()));
    }
    // Dots next to a separator (the ".." of "/../", the "." of "/.hidden") say nothing in a name.
    readable = trim(readable.replaceAll("[._]*_[._]*", "_"));
    if (readable.length() > READABLE) {
      readable = trim(readable.substring(0, READABLE));
    }
    if (readable.isEmpty()) {
      readable = "url";
    }
    int dot = readable.indexOf('.');
    if (RESERVED.contains((dot < 0 ? readable : readable.substring(0, dot)).toUpperCase(Locale.ROOT))) {
      readable = "_" + readable;
    }
    return readable + "_" + hash(at >= 0 ? SECRET + url : url) + extension;
  }

  private static String secret() {
    byte[] bytes = new byte[16];
    new java.security.SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** The first 12 hex digits of the SHA-256 of {@code url}'s UTF-8. */
  static String hash(String url) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(url.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  /** {@code text} with each percent-escape decoded as UTF-8, an unreadable byte as U+FFFD. */
  private static String decoded(String text) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
      int low = i + 2 < text.length() ? Character.digit(text.charAt(i + 2), 16) : -1;
      if (c == '%' && high >= 0 && low >= 0) {
        bytes.write(high * 16 + low);
        i += 2;
      } else {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(encoded, 0, encoded.length);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** Each character a name may not hold as {@code _}, runs of it as one, trimmed. */
  private static String safe(String text) {
    StringBuilder name = new StringBuilder(Math.min(text.length(), 4 * READABLE));
    for (int i = 0; i < text.length() && name.length() < 4 * READABLE; i++) {
      char c = text.charAt(i);
      boolean kept = c < 0x80 && (Character.isLetterOrDigit(c) || "._-=+,~".indexOf(c) >= 0);
      char shown = kept ? c : '_';
      if (shown != '_' || name.length() == 0 || name.charAt(name.length() - 1) != '_') {
        name.append(shown);
      }
    }
    return trim(name.toString());
  }

  /** {@code name} without the dots, underscores and dashes it starts or ends with. */
  private static String trim(String name) {
    int start = 0;
    int end = name.length();
    while (start < end && "._-".indexOf(name.charAt(start)) >= 0) {
      start++;
    }
    while (end > start && "._-".indexOf(name.charAt(end - 1)) >= 0) {
      end--;
    }
    return name.substring(start, end);
  }

  private static int firstOf(String text, String characters) {
    int first = -1;
    for (int i = 0; i < characters.length(); i++) {
      int at = text.indexOf(characters.charAt(i));
      if (at >= 0 && (first < 0 || at < first)) {
        first = at;
      }
    }
    return first;
  }
}

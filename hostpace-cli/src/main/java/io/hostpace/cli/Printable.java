package io.hostpace.cli;

import io.hostpace.Redaction;
import org.jspecify.annotations.Nullable;

/**
 * A text as the command line may print it, on one line of a terminal: the user info of every URI
 * in it hidden ({@link Redaction#userInfo}), and every control, format or line-separating
 * character escaped, so that an option's value with a newline, an escape sequence or a bidi
 * override cannot break a message into two or rewrite what the terminal shows:
 * {@code "a\nb\u0001"} prints as {@code a\nb\x01}. Every message the command line prints of what
 * it was given, or of what a server or a library said, goes through {@link #line}.
 */
final class Printable {

  private Printable() {}

  /** {@code text} with its URIs' user info hidden and its control characters escaped. */
  static String line(String text) {
    return escaped(Redaction.userInfo(text));
  }

  /** {@code text} with its control, format and separator characters escaped, nothing else changed. */
  static String escaped(String text) {
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

  /** How {@code c} is printed when it cannot be printed as itself; null when it can. */
  static @Nullable String escape(int c) {
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
      return String.format("\\x%02x", c);
    }
    return c <= 0xffff ? String.format("\\u%04x", c) : String.format("\\U%08x", c);
  }
}

package io.hostpace.cli;

import io.hostpace.internal.Redaction;
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

  /** {@code text} with its control, format and separator characters escaped, nothing else changed ({@link Redaction#printable}). */
  static String escaped(String text) {
    return Redaction.printable(text);
  }

  /** How {@code c} is printed when it cannot be printed as itself; null when it can. */
  static @Nullable String escape(int c) {
    String one = Character.toString(c);
    String shown = Redaction.printable(one);
    return shown.equals(one) ? null : shown;
  }
}

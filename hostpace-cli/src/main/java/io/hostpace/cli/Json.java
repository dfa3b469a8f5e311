package io.hostpace.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes the little JSON the command line prints: one object a line, fields in order; and reads
 * such a line back ({@link #object}), for {@code fetch --resume}.
 */
final class Json {

  private final StringBuilder text = new StringBuilder("{");

  Json field(String name, String value) {
    key(name);
    quote(value);
    return this;
  }

  Json field(String name, long value) {
    key(name);
    text.append(value);
    return this;
  }

  @Override
  public String toString() {
    return text + "}";
  }

  private void key(String name) {
    if (text.length() > 1) {
      text.append(',');
    }
    quote(name);
    text.append(':');
  }

  private void quote(String value) {
    text.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> text.append("\\\"");
        case '\\' -> text.append("\\\\");
        case '\n' -> text.append("\\n");
        case '\r' -> text.append("\\r");
        case '\t' -> text.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            text.append(String.format("\\u%04x", (int) c));
          } else {
            text.append(c);
          }
        }
      }
    }
    text.append('"');
  }

  /**
   * The fields of {@code line} when it is one JSON object whose values are strings, numbers,
   * {@code true}, {@code false} or {@code null} (what {@link #toString} writes): each string
   * unescaped, every other value as written. Null when it is not such an object: a line cut
   * short, or one some other program wrote.
   */
  static @Nullable Map<String, String> object(String line) {
    Reader reader = new Reader(line);
    try {
      return reader.object();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Reads one flat object; throws {@link IllegalArgumentException} at the first thing it does not take. */
  private static final class Reader {
    private final String text;
    private int at;

    Reader(String text) {
      this.text = text;
    }

    Map<String, String> object() {
      Map<String, String> fields = new LinkedHashMap<>();
      skipSpace();
      expect('{');
      skipSpace();
      if (peek() == '}') {
        at++;
      } else {
        while (true) {
          skipSpace();
          String name = string();
          skipSpace();
          expect(':');
          skipSpace();
          fields.put(name, peek() == '"' ? string() : literal());
          skipSpace();
          char next = next();
          if (next == '}') {
            break;
          }
          if (next != ',') {
            throw new IllegalArgumentException("expected ',' or '}'");
          }
        }
      }
      skipSpace();
      if (at != text.length()) {
        throw new IllegalArgumentException("text after the object");
      }
      return fields;
    }

    private String string() {
      expect('"');
      StringBuilder value = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') {
          return value.toString();
        }
        if (c < 0x20) {
          throw new IllegalArgumentException("a control character in a string");
        }
        if (c != '\\') {
          value.append(c);
          continue;
        }
        char escaped = next();
        switch (escaped) {
          case '"', '\\', '/' -> value.append(escaped);
          case 'b' -> value.append('\b');
          case 'f' -> value.append('\f');
          case 'n' -> value.append('\n');
          case 'r' -> value.append('\r');
          case 't' -> value.append('\t');
          case 'u' -> {
            if (at + 4 > text.length()) {
              throw new IllegalArgumentException("a cut escape");
            }
            try {
              value.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("a bad escape", e);
            }
            at += 4;
          }
          default -> throw new IllegalArgumentException("a bad escape");
        }
      }
    }

    /** A number, {@code true}, {@code false} or {@code null}, as written. */
    private String literal() {
      int start = at;
      while (at < text.length() && "+-.0123456789eEtrufalsn".indexOf(text.charAt(at)) >= 0) {
        at++;
      }
      String value = text.substring(start, at);
      if (!value.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?|true|false|null")) {
        throw new IllegalArgumentException("not a value: '" + value + "'");
      }
      return value;
    }

    private void skipSpace() {
      while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
        at++;
      }
    }

    private char peek() {
      if (at >= text.length()) {
        throw new IllegalArgumentException("the end came first");
      }
      return text.charAt(at);
    }

    private char next() {
      char c = peek();
      at++;
      return c;
    }

    private void expect(char c) {
      if (next() != c) {
        throw new IllegalArgumentException("expected '" + c + "'");
      }
    }
  }
}

package io.hostpace.cli;

/** Writes the little JSON the command line prints: one object a line, fields in order. */
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
}

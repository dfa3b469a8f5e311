package io.hostpace.cli;

import io.hostpace.internal.Redaction;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.function.Function;
import picocli.CommandLine.ParameterException;

/**
 * A request header given on the command line ({@code --header 'Name: value'}, or the value of
 * {@code --user-agent}), checked as {@code java.net.http} will send it, before anything is sent.
 * A message about a header shows it as {@link #shown}: the value of a header that carries
 * credentials is {@code ***}, and a bad character is named by its escape and index, never
 * echoed: {@code --header 'Authorization: ***': the value has a control character \x01 at index 8}.
 */
record HeaderOption(String name, String value) {

  private static final URI CHECKED = URI.create("http://check.invalid/");

  /** {@code text}, given to {@code option} as {@code 'Name: value'}. */
  static HeaderOption parse(String option, String text, Function<String, ParameterException> usage) {
    int colon = text.indexOf(':');
    if (colon <= 0 || text.substring(0, colon).isBlank()) {
      // Nothing says which part is the name, so nothing past the first word is shown.
      String first = text.strip().split("[\\s:=]", 2)[0];
      throw usage.apply(option + (first.isEmpty() ? " '" + text.strip() + "'" : " starting '" + first + "'")
          + " is not 'Name: value'");
    }
    HeaderOption header = new HeaderOption(text.substring(0, colon).strip(), text.substring(colon + 1).strip());
    return header.checked(option + " '" + header.shown() + "'", usage);
  }

  /** The header {@code name: value}, whose value {@code option} gives, as it will be sent. */
  static HeaderOption value(String option, String name, String value, Function<String, ParameterException> usage) {
    HeaderOption header = new HeaderOption(name, value);
    return header.checked(option + " '" + Redaction.header(name, value) + "'", usage);
  }

  /** This header, if {@code java.net.http} can send it; else a usage error that starts with {@code shown}. */
  private HeaderOption checked(String shown, Function<String, ParameterException> usage) {
    int badName = firstBadNameCharacter(name);
    if (badName >= 0) {
      char c = name.charAt(badName);
      String which = Printable.escape(c) != null || c == ' ' || c > 0x7e ? String.format("U+%04X", (int) c) : "'" + c + "'";
      throw usage.apply(shown + ": the name has " + which + " at index " + badName
          + ": expected letters, digits and !#$%&'*+-.^_`|~");
    }
    int bad = firstBadCharacter(value);
    if (bad >= 0) {
      char c = value.charAt(bad);
      throw usage.apply(shown + ": the value has "
          + (c > 0xff ? "a character outside ISO-8859-1" : "a control character " + Printable.escape(c)) + " at index " + bad);
    }
    try {
      HttpRequest.newBuilder(CHECKED).header(name, value);
    } catch (IllegalArgumentException e) {
      String why = String.valueOf(e.getMessage());
      // The client's message can repeat the value; it is said only when it does not.
      throw usage.apply(shown + ": " + (value.isEmpty() || !why.contains(value) ? why : "not a header the HTTP client can send"));
    }
    return this;
  }

  /** {@code Name: value} as a message may show it: credentials hidden. */
  String shown() {
    return name + ": " + Redaction.header(name, value);
  }

  /** Where {@code name} has a character an HTTP header name (a token of RFC 9110) may not hold, or -1. */
  private static int firstBadNameCharacter(String name) {
    for (int at = 0; at < name.length(); at++) {
      char c = name.charAt(at);
      boolean token = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!token) {
        return at;
      }
    }
    return -1;
  }

  /** Where {@code value} has a character no HTTP header value may hold, or -1. */
  private static int firstBadCharacter(String value) {
    for (int at = 0; at < value.length(); at++) {
      char c = value.charAt(at);
      if ((c < 0x20 && c != '\t') || c == 0x7f || c > 0xff) {
        return at;
      }
    }
    return -1;
  }
}

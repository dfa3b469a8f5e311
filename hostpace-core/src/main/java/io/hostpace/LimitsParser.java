package io.hostpace;

import io.hostpace.internal.NumberText;
import io.hostpace.internal.Redaction;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code inFlight:1,perSecond:0.5} or {@code rate:100/m}; see {@link Limits#parse(String)}.
 * A message repeats what it was given on one line, its control characters escaped. Numbers are
 * ASCII digits, with a decimal point where a fraction may be: no sign but a minus (refused as out
 * of range, naming the value), no exponent, no other script's digits, which the JDK's parsers
 * would all take.
 */
final class LimitsParser {


  private final String spec;

  LimitsParser(String spec) {
    this.spec = spec;
  }

  /**
   * Limits given as text for {@code key}: a bad key or value is reported with the key. A null is
   * refused naming the builders' parameter, {@code key} or {@code limits}.
   */
  static Limits forKey(String key, String spec) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(spec, "limits");
    HostKey.normaliseLimitKey(key);
    try {
      return new LimitsParser(spec).parse();
    } catch (IllegalArgumentException e) {
      throw bad("host limit '" + key + "': " + e.getMessage(), e);
    }
  }

  Limits parse() {
    if (spec.isBlank()) {
      throw bad("limits '" + spec + "' are empty: expected inFlight:N, perSecond:R or rate:N/PERIOD");
    }
    @Nullable Integer inFlight = null;
    @Nullable Rate rate = null;
    for (String part : spec.split(",", -1)) {
      String field = part.strip();
      int colon = field.indexOf(':');
      if (colon < 0) {
        throw bad(
            "limit '" + field + "' has no value: expected inFlight:N, perSecond:R or rate:N/PERIOD");
      }
      String name = field.substring(0, colon).strip();
      String value = field.substring(colon + 1).strip();
      switch (name) {
        case "inFlight" -> {
          if (inFlight != null) {
            throw twice(name);
          }
          inFlight = inFlight(value);
        }
        case "perSecond" -> {
          if (rate != null) {
            throw twice("rate");
          }
          rate = perSecond(value);
        }
        case "rate" -> {
          if (rate != null) {
            throw twice("rate");
          }
          rate = rate(value);
        }
        default -> throw bad(
            "limit '" + name + "' is unknown: expected inFlight, perSecond or rate");
      }
    }
    return new Limits(inFlight, rate);
  }

  /** A message of what was given, on one line ({@link Redaction#printable}). */
  private static IllegalArgumentException bad(String message) {
    return new IllegalArgumentException(Redaction.printable(message));
  }

  private static IllegalArgumentException bad(String message, Exception cause) {
    return new IllegalArgumentException(Redaction.printable(message), cause);
  }

  private static IllegalArgumentException twice(String name) {
    return bad("limit " + name + " is given twice");
  }

  private static int inFlight(String value) {
    if (!NumberText.WHOLE.matcher(value).matches()) {
      throw bad("inFlight '" + value + "' is not a whole number");
    }
    int parsed;
    try {
      parsed = Integer.parseInt(value);
    } catch (NumberFormatException e) { // digits an int cannot hold
      if (value.startsWith("-")) {
        throw bad("inFlight must be at least 1, got " + value, e);
      }
      throw bad("inFlight " + value + " is too large: at most " + Integer.MAX_VALUE, e);
    }
    if (parsed < 1) {
      throw bad("inFlight must be at least 1, got " + value);
    }
    return parsed;
  }

  private static Rate perSecond(String value) {
    return Rate.perSecond(decimal("perSecond", value));
  }

  private static double decimal(String name, String value) {
    if (!NumberText.DECIMAL.matcher(value).matches()) {
      throw bad(name + " '" + value + "' is not a decimal number");
    }
    return new BigDecimal(value).doubleValue();
  }

  private static Rate rate(String value) {
    int slash = value.indexOf('/');
    if (slash < 0) {
      throw bad("rate '" + value + "' is not N/PERIOD, such as 100/m or 2/s");
    }
    String permits = value.substring(0, slash).strip();
    if (!NumberText.WHOLE.matcher(permits).matches()) {
      throw bad("rate '" + value + "' does not start with a whole number");
    }
    int count;
    try {
      count = Integer.parseInt(permits);
    } catch (NumberFormatException e) { // digits an int cannot hold
      if (permits.startsWith("-")) {
        throw bad("rate '" + value + "' must allow at least 1 start", e);
      }
      throw bad("rate '" + value + "' allows too many starts: at most " + Integer.MAX_VALUE, e);
    }
    if (count < 1) {
      throw bad("rate '" + value + "' must allow at least 1 start");
    }
    return Rate.of(count, period(value, value.substring(slash + 1).strip().toLowerCase(Locale.ROOT)));
  }

  private static Duration period(String rate, String period) {
    int unitAt = 0;
    while (unitAt < period.length() && (isAsciiDigit(period.charAt(unitAt)) || period.charAt(unitAt) == '.')) {
      unitAt++;
    }
    String number = period.substring(0, unitAt);
    String unit = period.substring(unitAt);
    long unitNanos = switch (unit) {
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m", "min" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      default -> throw bad(
          "rate '" + rate + "' has an unknown period unit '" + unit + "': expected ms, s, m or h");
    };
    double amount = number.isEmpty() ? 1 : decimal("rate period", number);
    double nanos = amount * unitNanos;
    if (!(nanos >= 1) || nanos > Long.MAX_VALUE / 4.0) {
      throw bad("rate '" + rate + "' has a period out of range");
    }
    return Duration.ofNanos(Math.round(nanos));
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }
}

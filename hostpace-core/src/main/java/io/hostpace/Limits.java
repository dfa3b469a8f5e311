package io.hostpace;

import org.jspecify.annotations.Nullable;

/**
 * Limits for a host or a {@code *.domain} group: how many requests may be in flight, and how
 * often they may start. Each field is optional; an unset field falls through to the next
 * level: the call's context, then the engine, then the built-in defaults (SPEC P4).
 *
 * <pre>{@code
 * Limits.inFlight(1).withPerSecond(1)        // one at a time, one a second
 * Limits.rate(Rate.of(100, Duration.ofMinutes(1)))
 * }</pre>
 *
 * @param inFlight requests in flight at once, at least 1; {@code null} when unset
 * @param rate how often requests may start; {@code null} when unset
 */
public record Limits(@Nullable Integer inFlight, @Nullable Rate rate) {

  /** Limits that set nothing. */
  public static final Limits NONE = new Limits(null, null);

  /** Validates the fields. */
  public Limits {
    if (inFlight != null && inFlight < 1) {
      throw new IllegalArgumentException("inFlight must be at least 1, got " + inFlight);
    }
  }

  /** Limits that set only {@code inFlight}. */
  public static Limits inFlight(int inFlight) {
    return new Limits(inFlight, null);
  }

  /** Limits that set only a rate of {@code perSecond} starts a second. */
  public static Limits perSecond(double perSecond) {
    return new Limits(null, Rate.perSecond(perSecond));
  }

  /** Limits that set only a rate. */
  public static Limits rate(Rate rate) {
    return new Limits(null, rate);
  }

  /** These limits with {@code inFlight} set. */
  public Limits withInFlight(int inFlight) {
    return new Limits(inFlight, rate);
  }

  /** These limits with a rate of {@code perSecond} starts a second. */
  public Limits withPerSecond(double perSecond) {
    return new Limits(inFlight, Rate.perSecond(perSecond));
  }

  /** These limits with {@code rate} set. */
  public Limits withRate(Rate rate) {
    return new Limits(inFlight, rate);
  }

  /**
   * Parses limits written as comma-separated fields, as a command line or a configuration file
   * gives them: {@code inFlight:N} (a whole number, at least 1), {@code perSecond:R} (a positive
   * decimal), {@code rate:N/PERIOD} (N starts per period, allowing that burst; the period a
   * number and a unit of {@code ms}, {@code s}, {@code m} or {@code h}, the number optional:
   * {@code rate:100/m}, {@code rate:2/s}, {@code rate:10/500ms}). Numbers are ASCII digits and,
   * in a decimal, a point ({@code 0.5}); a sign, an exponent or another script's digits are
   * refused.
   *
   * <pre>{@code Limits.parse("inFlight:1,perSecond:1")   // one at a time, one a second}</pre>
   *
   * @throws IllegalArgumentException naming the field and the value that is wrong
   */
  public static Limits parse(String spec) {
    LimitsParser parser = new LimitsParser(spec);
    return parser.parse();
  }

  /** Each field of this, or of {@code fallback} where this one is unset. */
  Limits orElse(Limits fallback) {
    if (inFlight != null && rate != null) {
      return this;
    }
    return new Limits(inFlight != null ? inFlight : fallback.inFlight, rate != null ? rate : fallback.rate);
  }

  boolean isComplete() {
    return inFlight != null && rate != null;
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("{");
    if (inFlight != null) {
      text.append("inFlight: ").append(inFlight);
    }
    if (rate != null) {
      text.append(inFlight != null ? ", " : "").append("rate: ").append(rate);
    }
    return text.append('}').toString();
  }
}

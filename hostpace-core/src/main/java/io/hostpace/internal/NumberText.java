package io.hostpace.internal;

import java.util.regex.Pattern;

/**
 * Numbers as Hostpace's documents write them, in limits and in the command line's options alike:
 * ASCII digits, a point where a fraction may be, and a minus only so that the setting's own check
 * refuses it as out of range, naming the value. Not a '+', an exponent or another script's
 * digits, which the JDK's parsers ({@code Integer.parseInt}, {@code BigDecimal}) all take.
 */
public final class NumberText {

  /** A whole number. */
  public static final Pattern WHOLE = Pattern.compile("-?[0-9]+");

  /** A decimal number: {@code 2}, {@code 0.5}, {@code .5}, {@code 2.}. */
  public static final Pattern DECIMAL = Pattern.compile("-?([0-9]+\\.?[0-9]*|\\.[0-9]+)");

  private NumberText() {}
}

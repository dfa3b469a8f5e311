package io.hostpace.cli;

import java.util.regex.Pattern;
import picocli.CommandLine.TypeConversionException;

/**
 * Numbers as the documents write them: ASCII digits, a point where a fraction is, and a minus only
 * to be refused as below zero by the option's own check. Not a '+', an exponent or another
 * script's digits, which the JDK's parsers ({@code Integer.valueOf}, {@code BigDecimal}) take,
 * and which {@code Limits.parse} refuses in a {@code --host}'s limits.
 */
final class Numbers {

  /** A decimal number: {@code 2}, {@code 0.5}, {@code .5}, {@code 2.}. */
  static final Pattern DECIMAL = Pattern.compile("-?([0-9]+\\.?[0-9]*|\\.[0-9]+)");

  /** A whole number. */
  static final Pattern WHOLE = Pattern.compile("-?[0-9]+");

  private Numbers() {}

  /** picocli's converter of every {@code int} option: a whole number an {@code int} holds. */
  static Integer whole(String value) {
    if (WHOLE.matcher(value).matches()) {
      try {
        return Integer.valueOf(value);
      } catch (NumberFormatException e) {
        // digits an int cannot hold: said below
      }
    }
    throw new TypeConversionException("'" + value + "' is not a whole number");
  }
}

package io.hostpace.cli;

import io.hostpace.internal.NumberText;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line's reading of a whole number, as the documents write one ({@link NumberText}):
 * picocli's converter of every {@code int} option.
 */
final class Numbers {

  private Numbers() {}

  /** picocli's converter of every {@code int} option: a whole number an {@code int} holds. */
  static Integer whole(String value) {
    if (NumberText.WHOLE.matcher(value).matches()) {
      try {
        return Integer.valueOf(value);
      } catch (NumberFormatException e) {
        // digits an int cannot hold: said below
      }
    }
    throw new TypeConversionException("'" + value + "' is not a whole number");
  }
}

package io.hostpace.cli;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size as {@code --max-body} takes it: a number of bytes ({@code 4096}), or a number with a
 * unit, {@code k}, {@code M} or {@code G}, each a power of 1024 as curl counts them, written
 * also {@code KiB}, {@code MiB}, {@code GiB} or {@code kB}, {@code MB}, {@code GB}, any case:
 * {@code 500k} is 512,000 bytes, {@code 1.5MiB} 1,572,864.
 */
final class ByteSize {

  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([A-Za-z]*)");

  private ByteSize() {}

  /**
   * The bytes {@code text} says, at least one.
   *
   * @throws IllegalArgumentException naming {@code text} and what a size looks like
   */
  static long parse(String text) {
    Matcher size = SIZE.matcher(text.strip());
    long unit = size.matches() ? unit(size.group(2).toLowerCase(Locale.ROOT)) : 0;
    if (unit == 0) {
      throw new IllegalArgumentException("'" + text + "' is not a size: expected bytes, or a number with k, M or G "
          + "(powers of 1024), such as 64MiB or 500k");
    }
    BigDecimal bytes = new BigDecimal(size.group(1)).multiply(BigDecimal.valueOf(unit));
    if (bytes.compareTo(BigDecimal.ONE) < 0) {
      throw new IllegalArgumentException("'" + text + "' is less than one byte");
    }
    if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("'" + text + "' is more bytes than a body can have");
    }
    return bytes.longValue();
  }

  /** The bytes of one {@code unit}, in lower case; 0 for none we know. */
  private static long unit(String unit) {
    return switch (unit) {
      case "", "b" -> 1;
      case "k", "kb", "kib" -> 1L << 10;
      case "m", "mb", "mib" -> 1L << 20;
      case "g", "gb", "gib" -> 1L << 30;
      default -> 0;
    };
  }

  /** {@code bytes} as a person reads it: {@code 4 KiB}, {@code 1.5 MiB}, {@code 300 bytes}. */
  static String format(long bytes) {
    String[] units = {"GiB", "MiB", "KiB"};
    for (int i = 0; i < units.length; i++) {
      long unit = 1L << (10 * (units.length - i));
      if (bytes >= unit) {
        BigDecimal amount = BigDecimal.valueOf(bytes).divide(BigDecimal.valueOf(unit), 1, java.math.RoundingMode.DOWN);
        return amount.stripTrailingZeros().toPlainString() + " " + units[i];
      }
    }
    return bytes == 1 ? "1 byte" : bytes + " bytes";
  }
}

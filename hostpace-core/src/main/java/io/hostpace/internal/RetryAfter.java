package io.hostpace.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.Year;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Parses the value of an HTTP {@code Retry-After} header (RFC 9110, section 10.2.3) into the delay
 * it asks for.
 *
 * <p>Accepted forms, after dropping leading and trailing spaces and tabs:
 *
 * <ul>
 *   <li><b>delta-seconds</b>, a non-negative number of seconds: {@code 120}. As a deliberate
 *       extension to the RFC, a fractional part is also accepted: {@code 1.5}, {@code 0.25}. Some
 *       rate-limited APIs send sub-second values, and rounding them to whole seconds would make a
 *       client wait far longer than asked (or, rounding down to {@code 0}, not at all). The
 *       fraction is kept to the nanosecond; digits beyond the ninth are dropped. Both sides of the
 *       point need at least one digit, so {@code .5} and {@code 5.} are refused.
 *   <li><b>IMF-fixdate</b>, the preferred HTTP-date: {@code Sun, 06 Nov 1994 08:49:37 GMT}.
 *   <li><b>RFC 850 date</b>, obsolete: {@code Sunday, 06-Nov-94 08:49:37 GMT}. Its two-digit
 *       year is read as RFC 9110 section 5.6.7 requires: a date that would be more than 50 years
 *       after {@code now} is taken to be in the most recent past year with the same last two
 *       digits.
 *   <li><b>asctime date</b>, obsolete: {@code Sun Nov  6 08:49:37 1994}, with a one-digit day
 *       padded by a second space, or with a two-digit day: {@code Sun Nov 06 08:49:37 1994}.
 * </ul>
 *
 * <p>In dates, day names, month names and {@code GMT} are matched without regard to ASCII case. The
 * day name must be a real one, but it need not agree with the date, since servers do get it wrong.
 * Dates that cannot exist, such as 30 February or hour 24, are refused; the second may be 60 only
 * as the leap second 23:59:60, which is read as the following midnight. A date at or before {@code
 * now} means no delay.
 *
 * <p>A delta-seconds value too large for a {@link Duration} (more seconds than a {@code long}
 * holds, however many digits) is the longest {@code Duration} there is: it is a delay longer than
 * any limit, not a value that does not parse, so a caller that caps delays gives up on it as on
 * any other delay past its cap.
 *
 * <p>Anything else — signs, exponents, inner spaces, other date layouts — gives no delay at all
 * rather than an exception.
 */
public final class RetryAfter {

  private static final String DAY_NAME = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
  private static final String LONG_DAY_NAME =
      "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
  private static final String DAY = "(?<day>\\d{2})";
  private static final String MONTH =
      "(?<month>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
  private static final String YEAR = "(?<year>\\d{4})";
  private static final String TIME = "(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})";

  /** {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
  private static final Pattern IMF_FIXDATE =
      datePattern(DAY_NAME + ", " + DAY + " " + MONTH + " " + YEAR + " " + TIME + " GMT");

  /** {@code Sunday, 06-Nov-94 08:49:37 GMT}, with a two-digit year. */
  private static final Pattern RFC_850_DATE =
      datePattern(
          LONG_DAY_NAME + ", " + DAY + "-" + MONTH + "-(?<year>\\d{2}) " + TIME + " GMT");

  /** {@code Sun Nov  6 08:49:37 1994}, the day padded with a space, or two digits. */
  private static final Pattern ASCTIME_DATE =
      datePattern(DAY_NAME + " " + MONTH + " (?<day> \\d|\\d{2}) " + TIME + " " + YEAR);

  /** No HTTP-date is longer than this; longer values are not tried against the date patterns. */
  private static final int LONGEST_DATE = "Wednesday, 09-Nov-99 23:12:40 GMT".length();

  /**
   * The range of {@code now} against which a two-digit year can be resolved without leaving the
   * range of {@link LocalDateTime} (which is narrower than that of {@link Instant}).
   */
  private static final Instant EARLIEST_PIVOT =
      LocalDateTime.MIN.plusYears(100).toInstant(ZoneOffset.UTC);

  private static final Instant LATEST_PIVOT =
      LocalDateTime.MAX.minusYears(100).toInstant(ZoneOffset.UTC);

  private static final List<String> MONTHS =
      List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec");

  private static final int NANOS_DIGITS = 9;

  /** The longest {@link Duration}: what delta-seconds past a {@code long} of seconds ask for. */
  private static final Duration LONGEST = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

  private RetryAfter() {}

  /**
   * Returns the delay that a {@code Retry-After} header value asks for, measured from {@code now}.
   *
   * <p>A delta-seconds value (possibly with a fraction, see the class description) is returned as
   * it is; an HTTP-date gives the time from {@code now} until that date, or {@link Duration#ZERO}
   * when it is not after {@code now}. The result is never negative. Very large delays are returned
   * as they are, and delta-seconds past what a {@code Duration} holds as the longest one: capping
   * them is the caller's business.
   *
   * @param value the header value, with or without surrounding spaces and tabs; may be null
   * @param now the instant the delay is measured from, and against which a two-digit year is
   *     resolved
   * @return the delay, or empty when the value is absent, empty or not in any accepted form. Never
   *     throws.
   */
  public static Optional<Duration> delay(@Nullable String value, Instant now) {
    if (value == null) {
      return Optional.empty();
    }
    String trimmed = trimSpacesAndTabs(value);
    if (trimmed.isEmpty()) {
      return Optional.empty();
    }
    if (isAsciiDigit(trimmed.charAt(0))) {
      return deltaSeconds(trimmed);
    }
    return httpDate(trimmed, now).map(date -> untilDate(date, now));
  }

  // ---------------------------------------------------------------- delta-seconds

  /**
   * Parses {@code DIGITS [ "." DIGITS ]}, or returns empty; whole seconds past a {@code long} are
   * the {@linkplain #LONGEST longest} delay, since they ask for longer than anything can wait.
   */
  private static Optional<Duration> deltaSeconds(String text) {
    int point = text.indexOf('.');
    String whole = point < 0 ? text : text.substring(0, point);
    String fraction = point < 0 ? "0" : text.substring(point + 1);
    if (!isAllAsciiDigits(whole) || !isAllAsciiDigits(fraction)) {
      return Optional.empty();
    }
    long seconds = parseSeconds(whole);
    return Optional.of(seconds < 0 ? LONGEST : Duration.ofSeconds(seconds, parseNanos(fraction)));
  }

  /** The value of a non-empty string of ASCII digits, or -1 when it exceeds a long. */
  private static long parseSeconds(String digits) {
    long seconds = 0;
    for (int i = 0; i < digits.length(); i++) {
      int digit = digits.charAt(i) - '0';
      if (seconds > (Long.MAX_VALUE - digit) / 10) {
        return -1;
      }
      seconds = seconds * 10 + digit;
    }
    return seconds;
  }

  /** The nanoseconds that a non-empty string of fraction digits stands for, truncated. */
  private static long parseNanos(String fractionDigits) {
    long nanos = 0;
    for (int i = 0; i < NANOS_DIGITS; i++) {
      int digit = i < fractionDigits.length() ? fractionDigits.charAt(i) - '0' : 0;
      nanos = nanos * 10 + digit;
    }
    return nanos;
  }

  // ---------------------------------------------------------------- HTTP-date

  /** Parses any of the three HTTP-date forms into the instant it names, or returns empty. */
  private static Optional<Instant> httpDate(String text, Instant now) {
    if (text.length() > LONGEST_DATE) {
      return Optional.empty();
    }
    Matcher imfFixdate = IMF_FIXDATE.matcher(text);
    if (imfFixdate.matches()) {
      return fourDigitYearDate(imfFixdate);
    }
    Matcher asctime = ASCTIME_DATE.matcher(text);
    if (asctime.matches()) {
      return fourDigitYearDate(asctime);
    }
    Matcher rfc850 = RFC_850_DATE.matcher(text);
    if (rfc850.matches()) {
      return rfc850Date(rfc850, now);
    }
    return Optional.empty();
  }

  private static Optional<Instant> fourDigitYearDate(Matcher m) {
    return instant(number(m, "year"), month(m), number(m, "day"), time(m));
  }

  private static Optional<Instant> rfc850Date(Matcher m, Instant now) {
    if (now.isBefore(EARLIEST_PIVOT) || now.isAfter(LATEST_PIVOT)) {
      return Optional.empty();
    }
    int month = month(m);
    int day = number(m, "day");
    int[] time = time(m);
    int year = fullYear(number(m, "year"), month, day, time, now);
    return instant(year, month, day, time);
  }

  /**
   * Resolves a two-digit year as RFC 9110 section 5.6.7 asks: the latest year ending in those
   * digits for which the date is not more than 50 years after {@code now}.
   *
   * <p>The comparison is made field by field (year, month, day, time) with {@code now} moved 50
   * years on, so it works even for a day that does not exist in the candidate year, which is
   * refused later.
   */
  private static int fullYear(int twoDigitYear, int month, int day, int[] time, Instant now) {
    LocalDateTime limit = LocalDateTime.ofInstant(now, ZoneOffset.UTC).plusYears(50);
    int year = limit.getYear() - Math.floorMod(limit.getYear() - twoDigitYear, 100);
    int[] date = {month, day, time[0], time[1], time[2]};
    int[] limitDate = {
      limit.getMonthValue(),
      limit.getDayOfMonth(),
      limit.getHour(),
      limit.getMinute(),
      limit.getSecond()
    };
    if (year == limit.getYear() && Arrays.compare(date, limitDate) > 0) {
      year -= 100;
    }
    return year;
  }

  /** The instant named by these UTC fields, or empty when they name no real moment. */
  private static Optional<Instant> instant(int year, int month, int day, int[] time) {
    int hour = time[0];
    int minute = time[1];
    int second = time[2];
    boolean leapSecond = hour == 23 && minute == 59 && second == 60;
    if (day < 1
        || day > Month.of(month).length(Year.isLeap(year))
        || hour > 23
        || minute > 59
        || (second > 59 && !leapSecond)) {
      return Optional.empty();
    }
    long epochDay = LocalDate.of(year, month, day).toEpochDay();
    long seconds = epochDay * 86_400 + hour * 3_600L + minute * 60L + second;
    return Optional.of(Instant.ofEpochSecond(seconds));
  }

  private static Duration untilDate(Instant date, Instant now) {
    return date.isAfter(now) ? Duration.between(now, date) : Duration.ZERO;
  }

  // ---------------------------------------------------------------- small helpers

  private static Pattern datePattern(String regex) {
    // Without UNICODE_CASE, CASE_INSENSITIVE folds ASCII letters only; \d is ASCII digits only.
    return Pattern.compile(regex, Pattern.CASE_INSENSITIVE);
  }

  /** The value of a group of at most four ASCII digits, possibly after a padding space. */
  private static int number(Matcher m, String group) {
    return Integer.parseInt(m.group(group).trim());
  }

  /** The month number, 1 to 12, of the month name. */
  private static int month(Matcher m) {
    return MONTHS.indexOf(m.group("month").toLowerCase(Locale.ROOT)) + 1;
  }

  /** Hour, minute and second. */
  private static int[] time(Matcher m) {
    return new int[] {number(m, "hour"), number(m, "minute"), number(m, "second")};
  }

  /** Drops the optional whitespace (RFC 9110 OWS: spaces and tabs) around a field value. */
  private static String trimSpacesAndTabs(String value) {
    int start = 0;
    int end = value.length();
    while (start < end && isSpaceOrTab(value.charAt(start))) {
      start++;
    }
    while (end > start && isSpaceOrTab(value.charAt(end - 1))) {
      end--;
    }
    return value.substring(start, end);
  }

  private static boolean isSpaceOrTab(char c) {
    return c == ' ' || c == '\t';
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** True for a non-empty string of ASCII digits only. */
  private static boolean isAllAsciiDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!isAsciiDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}

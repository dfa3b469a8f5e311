package io.hostpace.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

  /** 37 seconds before the RFC's example date, Sun, 06 Nov 1994 08:49:37 GMT. */
  private static final Instant BEFORE_RFC_EXAMPLE = Instant.parse("1994-11-06T08:49:00Z");

  private static final Instant RFC_EXAMPLE = Instant.parse("1994-11-06T08:49:37Z");

  private static final Instant NOW = Instant.parse("2025-06-01T00:00:00Z");

  // ---------------------------------------------------------------- delta-seconds

  @Test
  void R2_wholeSecondsAreTheDelay() {
    assertThat(RetryAfter.delay("120", NOW)).contains(Duration.ofSeconds(120));
  }

  @Test
  void R2_zeroSecondsIsNoDelay() {
    assertThat(RetryAfter.delay("0", NOW)).contains(Duration.ZERO);
  }

  @Test
  void R2_leadingZerosAreAllowedAndDoNotCountTowardsOverflow() {
    assertThat(RetryAfter.delay("007", NOW)).contains(Duration.ofSeconds(7));
    assertThat(RetryAfter.delay("0000000000000000000000000000042", NOW))
        .contains(Duration.ofSeconds(42));
  }

  @Test
  void R2_deltaSecondsDoNotDependOnNow() {
    assertThat(RetryAfter.delay("120", Instant.EPOCH)).contains(Duration.ofSeconds(120));
    assertThat(RetryAfter.delay("120", Instant.MAX)).contains(Duration.ofSeconds(120));
  }

  @Test
  void R2_deltaSecondsMayCarryAFraction() {
    assertThat(RetryAfter.delay("1.5", NOW)).contains(Duration.ofMillis(1500));
    assertThat(RetryAfter.delay("0.25", NOW)).contains(Duration.ofMillis(250));
    assertThat(RetryAfter.delay("120.0", NOW)).contains(Duration.ofSeconds(120));
  }

  @Test
  void R2_aFractionKeepsNanosecondPrecision() {
    assertThat(RetryAfter.delay("0.000000001", NOW)).contains(Duration.ofNanos(1));
    assertThat(RetryAfter.delay("3.123456789", NOW))
        .contains(Duration.ofSeconds(3, 123_456_789));
  }

  @Test
  void R2_fractionDigitsBeyondNanosecondsAreTruncated() {
    assertThat(RetryAfter.delay("1.1234567899", NOW))
        .contains(Duration.ofSeconds(1, 123_456_789));
    assertThat(RetryAfter.delay("0.0000000009", NOW)).contains(Duration.ZERO);
    assertThat(RetryAfter.delay("2." + "9".repeat(10_000), NOW))
        .contains(Duration.ofSeconds(2, 999_999_999));
  }

  @Test
  void R2_hugeButRepresentableDelaysAreReturnedUncapped() {
    assertThat(RetryAfter.delay("99999999999", NOW))
        .contains(Duration.ofSeconds(99_999_999_999L));
    assertThat(RetryAfter.delay("9223372036854775807", NOW))
        .contains(Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(RetryAfter.delay("9223372036854775807.999999999", NOW))
        .contains(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
  }

  /** The longest Duration there is. */
  private static final Duration LONGEST = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

  @ParameterizedTest
  @ValueSource(
      strings = {
        "9223372036854775808", // one past a long, 19 digits
        "9999999999999999999", // 19 digits
        "18446744073709551616",
        "99999999999999999999", // 20 digits
        "99999999999999999999999999",
        "99999999999999999999999999.5",
        "99999999999999999999.000000001",
        " 99999999999999999999\t",
      })
  void R2_R3_delaySecondsTooLargeForADurationAreTheLongestDelayNotJunk(String value) {
    // Longer than any retry delay limit, so a caller gives up on it (R3) rather than taking it as absent.
    assertThat(RetryAfter.delay(value, NOW)).contains(LONGEST);
  }

  @Test
  void R2_R3_delaySecondsOfAnyNumberOfDigitsPastALongAreTheLongestDelay() {
    assertThat(RetryAfter.delay("9".repeat(400), NOW)).contains(LONGEST);
    assertThat(RetryAfter.delay("1" + "0".repeat(399), NOW)).contains(LONGEST);
    assertThat(RetryAfter.delay("9".repeat(1_000_000), NOW)).contains(LONGEST);
    assertThat(RetryAfter.delay("0".repeat(400) + "9".repeat(20), NOW)).contains(LONGEST);
  }

  @Test
  void R2_digitsPastALongThatAreNotAllDigitsAreStillJunk() {
    assertThat(RetryAfter.delay("9".repeat(20) + "x", NOW)).isEmpty();
    assertThat(RetryAfter.delay("9".repeat(20) + ".", NOW)).isEmpty();
    assertThat(RetryAfter.delay("9".repeat(20) + "e3", NOW)).isEmpty();
    assertThat(RetryAfter.delay("-" + "9".repeat(20), NOW)).isEmpty();
    assertThat(RetryAfter.delay("9".repeat(10) + " " + "9".repeat(10), NOW)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "-0", "-1.5", "- 1"})
  void R2_negativeDelaysAreRefused(String value) {
    assertThat(RetryAfter.delay(value, NOW)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "+1", // sign
        "1e3", "1E3", "1.5e2", // exponent
        "0x10", "0X1F", // hex
        "1.", // point without a digit after it
        ".5", // point without a digit before it
        ".", "1..5", "1.5.2", "1,5", // other misplaced points
        "1 2", "1 .5", "1. 5", "1\t2", // inner whitespace
        "1_000", "1'000", // digit separators
        "NaN", "Infinity", // floating-point words
        "12a", "a12", "12s", "5 seconds", // trailing or leading junk
        "\u0661\u0662\u0663", // Arabic-Indic digits
        "\uFF11\uFF12", // fullwidth digits
        "1\u00B2", // superscript two
      })
  void R2_onlyPlainDecimalDigitsWithAnOptionalFractionAreDeltaSeconds(String value) {
    assertThat(RetryAfter.delay(value, NOW)).isEmpty();
  }

  // ---------------------------------------------------------------- HTTP-dates

  /** The RFC's example date, Sun, 06 Nov 1994 08:49:37 GMT, in each of the three forms. */
  static Stream<String> theRfcExampleInEachForm() {
    return Stream.of(
        "Sun, 06 Nov 1994 08:49:37 GMT", // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT", // obsolete RFC 850 date
        "Sun Nov  6 08:49:37 1994"); // obsolete asctime date
  }

  @ParameterizedTest
  @MethodSource("theRfcExampleInEachForm")
  void R2_imfFixdateAndBothObsoleteDateFormsGiveTheTimeUntilIt(String value) {
    assertThat(RetryAfter.delay(value, BEFORE_RFC_EXAMPLE)).contains(Duration.ofSeconds(37));
  }

  @Test
  void R2_asctimeDateMayHaveATwoDigitDay() {
    assertThat(RetryAfter.delay("Sun Nov 06 08:49:37 1994", BEFORE_RFC_EXAMPLE))
        .contains(Duration.ofSeconds(37));
    assertThat(RetryAfter.delay("Wed Nov 16 08:49:37 1994", BEFORE_RFC_EXAMPLE))
        .contains(Duration.ofDays(10).plusSeconds(37));
  }

  @Test
  void R2_theRfcRetryAfterExampleIsAFutureDate() {
    Instant now = Instant.parse("1999-12-31T23:58:00Z");
    assertThat(RetryAfter.delay("Fri, 31 Dec 1999 23:59:59 GMT", now))
        .contains(Duration.ofSeconds(119));
  }

  @Test
  void R2_theDelayKeepsTheSubSecondPartOfNow() {
    Instant now = RFC_EXAMPLE.minusMillis(1500);
    assertThat(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now))
        .contains(Duration.ofMillis(1500));
  }

  @ParameterizedTest
  @MethodSource("theRfcExampleInEachForm")
  void R2_aDateEqualToNowIsNoDelay(String value) {
    assertThat(RetryAfter.delay(value, RFC_EXAMPLE)).contains(Duration.ZERO);
  }

  @ParameterizedTest
  @MethodSource("theRfcExampleInEachForm")
  @ValueSource(strings = {"Thu, 01 Jan 1970 00:00:00 GMT", "Sat, 01 Jan 0000 00:00:00 GMT"})
  void R2_aDateInThePastIsNoDelay(String value) {
    assertThat(RetryAfter.delay(value, RFC_EXAMPLE.plusNanos(1))).contains(Duration.ZERO);
    assertThat(RetryAfter.delay(value, NOW)).contains(Duration.ZERO);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "sun, 06 nov 1994 08:49:37 gmt",
        "SUNDAY, 06-NOV-94 08:49:37 GMT",
        "sUn nOv  6 08:49:37 1994",
      })
  void R2_namesAndGmtAreCaseInsensitive(String value) {
    assertThat(RetryAfter.delay(value, BEFORE_RFC_EXAMPLE)).contains(Duration.ofSeconds(37));
  }

  @Test
  void R2_caseInsensitivityIsAsciiOnly() {
    // U+017F LATIN SMALL LETTER LONG S upper-cases to 'S' in Unicode.
    assertThat(RetryAfter.delay("\u017Fun, 06 Nov 1994 08:49:37 GMT", BEFORE_RFC_EXAMPLE))
        .isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Mon, 06 Nov 1994 08:49:37 GMT",
        "Friday, 06-Nov-94 08:49:37 GMT",
        "Wed Nov  6 08:49:37 1994",
      })
  void R2_aDayNameThatDoesNotMatchTheDateIsTolerated(String value) {
    assertThat(RetryAfter.delay(value, BEFORE_RFC_EXAMPLE)).contains(Duration.ofSeconds(37));
  }

  @Test
  void R2_the29thOfFebruaryIsAcceptedInALeapYearOnly() {
    Instant now = Instant.parse("2024-01-01T00:00:00Z");
    assertThat(RetryAfter.delay("Thu, 29 Feb 2024 00:00:00 GMT", now))
        .contains(Duration.ofDays(31 + 28));
    assertThat(RetryAfter.delay("Thu, 29 Feb 2024 00:00:00 GMT", now.plus(Duration.ofDays(60))))
        .contains(Duration.ZERO);
    assertThat(RetryAfter.delay("Mon, 29 Feb 2100 00:00:00 GMT", now)).isEmpty();
    assertThat(RetryAfter.delay("Thu, 29 Feb 2023 00:00:00 GMT", now)).isEmpty();
  }

  @Test
  void R2_theLeapSecond235960IsTheFollowingMidnight() {
    Instant now = Instant.parse("2031-12-31T23:59:00Z");
    assertThat(RetryAfter.delay("Wed, 31 Dec 2031 23:59:60 GMT", now))
        .contains(Duration.ofSeconds(60));
    assertThat(RetryAfter.delay("Wed, 31 Dec 2031 12:00:60 GMT", now)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Sun, 30 Feb 1994 08:49:37 GMT", // no 30 February
        "Sun, 31 Nov 1994 08:49:37 GMT", // November has 30 days
        "Sun, 00 Nov 1994 08:49:37 GMT", // no day zero
        "Sun, 32 Dec 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", // hour 24
        "Sun, 06 Nov 1994 08:60:37 GMT", // minute 60
        "Sun, 06 Nov 1994 08:49:61 GMT", // second 61
        "Sun, 06 Nov 1994 99:99:99 GMT",
        "Sunday, 31-Apr-94 08:49:37 GMT",
        "Sunday, 06-Nov-94 25:49:37 GMT",
        "Sun Feb 30 08:49:37 1994",
        "Sun Nov  0 08:49:37 1994",
        "Sun Nov  6 08:49:60 1994",
      })
  void R2_impossibleDatesAndTimesAreRefused(String value) {
    assertThat(RetryAfter.delay(value, BEFORE_RFC_EXAMPLE)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Sun, 06 Nov 1994 08:49:37 UTC", // zone must be GMT
        "Sun, 06 Nov 1994 08:49:37 +0000",
        "Sun, 06 Nov 1994 08:49:37", // zone missing
        "Sun, 6 Nov 1994 08:49:37 GMT", // one-digit day
        "Sun, 06 Nov 94 08:49:37 GMT", // two-digit year in IMF-fixdate
        "Sun, 06 Nov 1994 8:49:37 GMT", // one-digit hour
        "Sun, 06 Nov 1994 08:49 GMT", // no seconds
        "Sun, 06 Nov 1994 08:49:37.5 GMT", // fractional seconds
        "Sun,  06 Nov 1994 08:49:37 GMT", // doubled space
        "Sun 06 Nov 1994 08:49:37 GMT", // comma missing
        "06 Nov 1994 08:49:37 GMT", // day name missing
        "Xyz, 06 Nov 1994 08:49:37 GMT", // not a day name
        "Sunday, 06 Nov 1994 08:49:37 GMT", // long day name in IMF-fixdate
        "Sun, 06 November 1994 08:49:37 GMT", // long month name
        "Sun, 06 Foo 1994 08:49:37 GMT", // not a month name
        "Sun, 06 Nov 1994 08:49:37 GMT extra", // trailing junk
        "Sun, 06 Nov 1994 08:49:37 GMTGMT",
        "Sun, 06 Nov 01994 08:49:37 GMT", // five-digit year
        "Sun, 06 Nov -994 08:49:37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT", // short day name in RFC 850 form
        "Sunday, 06-Nov-1994 08:49:37 GMT", // four-digit year in RFC 850 form
        "Sunday, 06 Nov 94 08:49:37 GMT",
        "Sunday, 6-Nov-94 08:49:37 GMT",
        "Sun Nov 6 08:49:37 1994", // one-digit day without padding
        "Sun Nov   6 08:49:37 1994", // too much padding
        "Sun Nov  6 08:49:37 94", // two-digit year in asctime
        "Sun Nov  6 08:49:37 1994 GMT", // zone in asctime
        "Sunday Nov  6 08:49:37 1994",
        "1994-11-06T08:49:37Z", // ISO 8601
        "Sun, 06 Nov 1994 08:49:37 G\u00D0T",
        "Sun,\u00A006 Nov 1994 08:49:37 GMT", // no-break space
        "Sun,\t06 Nov 1994 08:49:37 GMT", // inner tab
      })
  void R2_otherDateLayoutsAreRefused(String value) {
    assertThat(RetryAfter.delay(value, BEFORE_RFC_EXAMPLE)).isEmpty();
  }

  // ---------------------------------------------------------------- two-digit years (RFC 850)

  @Test
  void R2_aTwoDigitYearUpTo50YearsAheadIsInTheFuture() {
    assertThat(RetryAfter.delay("Monday, 01-Jan-74 00:00:00 GMT", NOW))
        .contains(Duration.between(NOW, Instant.parse("2074-01-01T00:00:00Z")));
  }

  @Test
  void R2_aTwoDigitYearExactly50YearsAheadIsStillInTheFuture() {
    assertThat(RetryAfter.delay("Saturday, 01-Jun-75 00:00:00 GMT", NOW))
        .contains(Duration.between(NOW, Instant.parse("2075-06-01T00:00:00Z")));
  }

  @Test
  void R2_aTwoDigitYearMoreThan50YearsAheadIsTakenFromThePastCentury() {
    // 2075-06-01T00:00:01Z would be one second more than 50 years ahead: it means 1975.
    assertThat(RetryAfter.delay("Saturday, 01-Jun-75 00:00:01 GMT", NOW))
        .contains(Duration.ZERO);
    assertThat(RetryAfter.delay("Sunday, 02-Jun-75 00:00:00 GMT", NOW)).contains(Duration.ZERO);
    // The RFC's example, 1994, is never read as 2094 from 2025.
    assertThat(RetryAfter.delay("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).contains(Duration.ZERO);
  }

  @Test
  void R2_aTwoDigitYearMayRollOverIntoTheNextCentury() {
    Instant now = Instant.parse("2090-01-01T00:00:00Z");
    assertThat(RetryAfter.delay("Wednesday, 01-Jan-10 00:00:00 GMT", now))
        .contains(Duration.between(now, Instant.parse("2110-01-01T00:00:00Z")));
    assertThat(RetryAfter.delay("Friday, 01-Jan-40 00:00:00 GMT", now))
        .contains(Duration.between(now, Instant.parse("2140-01-01T00:00:00Z")));
    // 2141 would be more than 50 years ahead, so 41 is 2041, in the past.
    assertThat(RetryAfter.delay("Sunday, 01-Jan-41 00:00:00 GMT", now)).contains(Duration.ZERO);
    // 89 is 2089, just past, not 2189.
    assertThat(RetryAfter.delay("Saturday, 01-Jan-89 00:00:00 GMT", now))
        .contains(Duration.ZERO);
  }

  @Test
  void R2_theCenturyIsChosenBeforeTheDayIsChecked() {
    // From 2075, 00 means 2100, which has no 29 February.
    Instant now = Instant.parse("2075-01-01T00:00:00Z");
    assertThat(RetryAfter.delay("Monday, 29-Feb-00 00:00:00 GMT", now)).isEmpty();
    assertThat(RetryAfter.delay("Monday, 01-Mar-00 00:00:00 GMT", now))
        .contains(Duration.between(now, Instant.parse("2100-03-01T00:00:00Z")));
  }

  @Test
  void R2_aTwoDigitYearAgainstAnExtremeNowGivesNoDelayRatherThanThrowing() {
    assertThat(RetryAfter.delay("Sunday, 06-Nov-94 08:49:37 GMT", Instant.MIN)).isEmpty();
    assertThat(RetryAfter.delay("Sunday, 06-Nov-94 08:49:37 GMT", Instant.MAX)).isEmpty();
  }

  // ---------------------------------------------------------------- whitespace

  @ParameterizedTest
  @ValueSource(strings = {"120", " 120", "120 ", "  120  ", "\t120", "120\t", " \t 120 \t "})
  void R2_surroundingSpacesAndTabsAreIgnoredAroundDeltaSeconds(String value) {
    assertThat(RetryAfter.delay(value, NOW)).contains(Duration.ofSeconds(120));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        " Sun, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT\t",
        " \t Sunday, 06-Nov-94 08:49:37 GMT \t ",
        "  Sun Nov  6 08:49:37 1994  ",
      })
  void R2_surroundingSpacesAndTabsAreIgnoredAroundDates(String value) {
    assertThat(RetryAfter.delay(value, BEFORE_RFC_EXAMPLE)).contains(Duration.ofSeconds(37));
  }

  @ParameterizedTest
  @ValueSource(strings = {"120\r\n", "\n120", "\u000B120", "\u00A0120", "\u2003120", "120\u0000"})
  void R2_onlySpacesAndTabsCountAsSurroundingWhitespace(String value) {
    assertThat(RetryAfter.delay(value, NOW)).isEmpty();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {" ", "\t", " \t \t "})
  void R2_anAbsentOrBlankValueIsNoDelay(String value) {
    assertThat(RetryAfter.delay(value, NOW)).isEmpty();
  }

  // ---------------------------------------------------------------- junk

  @ParameterizedTest
  @ValueSource(
      strings = {
        "abc",
        "soon",
        "null",
        "GMT",
        ",",
        ":",
        "--",
        "120, 60",
        "120 Sun, 06 Nov 1994 08:49:37 GMT",
        "\"120\"",
        "<120>",
        "\u0000",
        "\u0007\u001B[31m",
        "\uD83D\uDE00", // an emoji
        "\uD800", // a lone surrogate
        "\uFFFF",
        "\u202E120", // right-to-left override
      })
  void R2_anythingElseIsNoDelay(String value) {
    assertThat(RetryAfter.delay(value, NOW)).isEmpty();
  }

  @Test
  void R2_hugeValuesAreRefusedWithoutThrowing() {
    assertThat(RetryAfter.delay("x".repeat(1_000_000), NOW)).isEmpty();
    assertThat(RetryAfter.delay("Sun, " + " ".repeat(1_000_000) + "GMT", NOW)).isEmpty();
    assertThat(RetryAfter.delay("1" + " ".repeat(1_000_000) + "2", NOW)).isEmpty();
    assertThat(RetryAfter.delay("1." + "0".repeat(1_000_000), NOW))
        .contains(Duration.ofSeconds(1));
  }
}

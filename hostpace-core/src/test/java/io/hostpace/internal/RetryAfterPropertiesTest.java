package io.hostpace.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Assume;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class RetryAfterPropertiesTest {

  /** Dates are drawn from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
  private static final long LATEST_EPOCH_SECOND =
      LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);

  /** Comfortably inside the two-digit-year window of "no more than 50 years ahead". */
  private static final Duration WITHIN_TWO_DIGIT_YEAR_WINDOW = Duration.ofDays(49L * 365);

  /** The HTTP-date layouts, formatted independently of the parser, by java.time. */
  enum Form {
    IMF_FIXDATE("EEE, dd MMM uuuu HH:mm:ss 'GMT'"),
    RFC_850("EEEE, dd-MMM-yy HH:mm:ss 'GMT'"),
    ASCTIME("EEE MMM ppd HH:mm:ss uuuu"),
    ASCTIME_TWO_DIGIT_DAY("EEE MMM dd HH:mm:ss uuuu");

    private final DateTimeFormatter formatter;

    Form(String pattern) {
      this.formatter = DateTimeFormatter.ofPattern(pattern, Locale.US).withZone(ZoneOffset.UTC);
    }

    String format(Instant date) {
      return formatter.format(date);
    }
  }

  // ---------------------------------------------------------------- never throws

  @Property
  void R2_anyStringNeverThrowsAndNeverGivesANegativeDelay(
      @ForAll String value, @ForAll("anyInstant") Instant now) {
    assertNeverThrowsAndNeverNegative(value, now);
  }

  @Property
  void R2_anyStringOfHeaderLikeCharactersNeverThrowsAndNeverGivesANegativeDelay(
      @ForAll("headerLikeStrings") String value, @ForAll("anyInstant") Instant now) {
    assertNeverThrowsAndNeverNegative(value, now);
  }

  @Property
  void R2_anyMutatedDateNeverThrowsAndNeverGivesANegativeDelay(
      @ForAll("mutatedDates") String value, @ForAll("anyInstant") Instant now) {
    assertNeverThrowsAndNeverNegative(value, now);
  }

  @Property
  void R2_anyWellFormedDateAgainstAnyNowNeverThrowsAndNeverGivesANegativeDelay(
      @ForAll Form form, @ForAll("dates") Instant date, @ForAll("anyInstant") Instant now) {
    assertNeverThrowsAndNeverNegative(form.format(date), now);
  }

  // ---------------------------------------------------------------- delta-seconds

  @Property
  void R2_anyNonNegativeWholeNumberOfSecondsRoundTrips(
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seconds,
      @ForAll("anyInstant") Instant now) {
    assertThat(RetryAfter.delay(Long.toString(seconds), now))
        .contains(Duration.ofSeconds(seconds));
  }

  @Property
  void R2_anyNonNegativeSecondsWithANineDigitFractionRoundTrips(
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seconds,
      @ForAll @IntRange(min = 0, max = 999_999_999) int nanos,
      @ForAll("anyInstant") Instant now) {
    String value = String.format(Locale.ROOT, "%d.%09d", seconds, nanos);
    assertThat(RetryAfter.delay(value, now)).contains(Duration.ofSeconds(seconds, nanos));
  }

  @Property
  void R2_R3_anyWholeNumberOfSecondsPastALongIsTheLongestDelay(
      @ForAll("secondsPastALong") BigInteger seconds,
      @ForAll("fractions") String fraction,
      @ForAll("anyInstant") Instant now) {
    // However many digits: longer than any retry delay limit, so never taken for junk (absent).
    assertThat(RetryAfter.delay(seconds + fraction, now))
        .contains(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
  }

  @Property
  void R2_aNegativeNumberOfSecondsIsNeverADelay(
      @ForAll @LongRange(min = Long.MIN_VALUE, max = -1) long seconds,
      @ForAll("anyInstant") Instant now) {
    assertThat(RetryAfter.delay(Long.toString(seconds), now)).isEmpty();
  }

  // ---------------------------------------------------------------- HTTP-dates

  @Property
  void R2_anyImfFixdateRoundTripsToTheTimeUntilIt(
      @ForAll("dates") Instant date, @ForAll("nows") Instant now) {
    assertThat(RetryAfter.delay(Form.IMF_FIXDATE.format(date), now))
        .contains(timeUntil(date, now));
  }

  @Property
  void R2_anyRfc850DateWithinTheTwoDigitYearWindowRoundTripsToTheTimeUntilIt(
      @ForAll("dates") Instant date, @ForAll("offsetsWithinTheWindow") Duration nowToDate) {
    Instant now = date.minus(nowToDate);
    assertThat(RetryAfter.delay(Form.RFC_850.format(date), now)).contains(timeUntil(date, now));
  }

  @Property
  void R2_anyAsctimeDateRoundTripsToTheTimeUntilIt(
      @ForAll("dates") Instant date, @ForAll("nows") Instant now) {
    assertThat(RetryAfter.delay(Form.ASCTIME.format(date), now)).contains(timeUntil(date, now));
    assertThat(RetryAfter.delay(Form.ASCTIME_TWO_DIGIT_DAY.format(date), now))
        .contains(timeUntil(date, now));
  }

  @Property
  void R2_aDateBeforeNowIsAlwaysNoDelayAndADateAfterNowIsAlwaysTheExactTimeUntilIt(
      @ForAll Form form,
      @ForAll("dates") Instant date,
      @ForAll("pastOffsetsWithinTheWindow") Duration offset) {
    String value = form.format(date);
    assertThat(RetryAfter.delay(value, date.plus(offset))).contains(Duration.ZERO);
    assertThat(RetryAfter.delay(value, date.minus(offset))).contains(offset);
  }

  @Property
  void R2_aFourDigitYearDateAnyTimeBeforeNowIsAlwaysNoDelay(
      @ForAll Form form, @ForAll("dates") Instant date, @ForAll("nows") Instant now) {
    Assume.that(form != Form.RFC_850 && date.isBefore(now));
    assertThat(RetryAfter.delay(form.format(date), now)).contains(Duration.ZERO);
  }

  // ---------------------------------------------------------------- generators

  /** Any instant at all, to the nanosecond, from {@link Instant#MIN} to {@link Instant#MAX}. */
  @Provide
  Arbitrary<Instant> anyInstant() {
    return Combinators.combine(
            Arbitraries.longs().between(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond()),
            Arbitraries.integers().between(0, 999_999_999))
        .as(Instant::ofEpochSecond);
  }

  /** A whole-second instant within the years 1970 to 9999. */
  @Provide
  Arbitrary<Instant> dates() {
    return Arbitraries.longs().between(0, LATEST_EPOCH_SECOND).map(Instant::ofEpochSecond);
  }

  /** An instant within the years 1970 to 9999, to the nanosecond. */
  @Provide
  Arbitrary<Instant> nows() {
    return Combinators.combine(dates(), Arbitraries.integers().between(0, 999_999_999))
        .as(Instant::plusNanos);
  }

  /** From minus to plus 49 years, down to the nanosecond. */
  @Provide
  Arbitrary<Duration> offsetsWithinTheWindow() {
    long max = WITHIN_TWO_DIGIT_YEAR_WINDOW.toNanos();
    return Arbitraries.longs().between(-max, max).map(Duration::ofNanos);
  }

  /** From one nanosecond to 49 years, down to the nanosecond. */
  @Provide
  Arbitrary<Duration> pastOffsetsWithinTheWindow() {
    return Arbitraries.longs()
        .between(1, WITHIN_TWO_DIGIT_YEAR_WINDOW.toNanos())
        .map(Duration::ofNanos);
  }

  /** Whole numbers from one past {@link Long#MAX_VALUE} to 400 digits, as many short as long. */
  @Provide
  Arbitrary<BigInteger> secondsPastALong() {
    BigInteger pastALong = BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE);
    return Arbitraries.integers().between(19, 400).flatMap(digits -> Arbitraries.bigIntegers()
        .between(pastALong.max(BigInteger.TEN.pow(digits - 1)), BigInteger.TEN.pow(digits).subtract(BigInteger.ONE)));
  }

  /** No fraction, or a point and one to twenty digits. */
  @Provide
  Arbitrary<String> fractions() {
    return Arbitraries.oneOf(Arbitraries.just(""),
        Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(20).map(digits -> "." + digits));
  }

  /** Strings made of the characters that the accepted forms use, and a few that they do not. */
  @Provide
  Arbitrary<String> headerLikeStrings() {
    return Arbitraries.strings()
        .withCharRange('0', '9')
        .withChars(" \t.,:-+eExXGMTSunNovMondayFebDec\r\n\u00A0\u0661")
        .ofMaxLength(40);
  }

  /** A well-formed date, of any form, with one character replaced, inserted or removed. */
  @Provide
  Arbitrary<String> mutatedDates() {
    Arbitrary<String> date = Combinators.combine(Arbitraries.of(Form.class), dates())
        .as(Form::format);
    Arbitrary<Character> anyChar = Arbitraries.chars()
        .with(' ', '\t', '0', '9', ':', ',', '-', '.', 'a', 'Z', '\u017F', '\u0000');
    return Combinators.combine(date, Arbitraries.integers().between(0, 40), anyChar,
            Arbitraries.integers().between(0, 2))
        .as(RetryAfterPropertiesTest::mutate);
  }

  private static String mutate(String date, int position, char c, int kind) {
    int at = Math.min(position, date.length() - 1);
    return switch (kind) {
      case 0 -> date.substring(0, at) + c + date.substring(at + 1); // replace
      case 1 -> date.substring(0, at) + c + date.substring(at); // insert
      default -> date.substring(0, at) + date.substring(at + 1); // remove
    };
  }

  // ---------------------------------------------------------------- helpers

  private static void assertNeverThrowsAndNeverNegative(String value, Instant now) {
    assertThatCode(() -> RetryAfter.delay(value, now)).doesNotThrowAnyException();
    Optional<Duration> delay = RetryAfter.delay(value, now);
    delay.ifPresent(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ZERO));
  }

  private static Duration timeUntil(Instant date, Instant now) {
    Duration between = Duration.between(now, date);
    return between.isNegative() ? Duration.ZERO : between;
  }
}

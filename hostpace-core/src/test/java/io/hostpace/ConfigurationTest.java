package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Limits that make no sense are rejected where they are configured, with the key and the field named. */
class ConfigurationTest {

  @Test
  void inFlightMustBeAtLeastOne() {
    assertThatThrownBy(() -> Limits.inFlight(0)).hasMessage("inFlight must be at least 1, got 0");
    assertThatThrownBy(() -> Limits.inFlight(-3)).hasMessage("inFlight must be at least 1, got -3");
  }

  @ParameterizedTest
  @ValueSource(doubles = {0, -1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
  void aRatePerSecondMustBePositiveAndFinite(double perSecond) {
    assertThatThrownBy(() -> Rate.perSecond(perSecond))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rate per second must be a positive finite number, got " + perSecond);
  }

  @Test
  void aRateNeedsAPermitAndAPositiveInterval() {
    assertThatThrownBy(() -> Rate.of(0, Duration.ofSeconds(1))).hasMessageContaining("permits must be at least 1, got 0");
    assertThatThrownBy(() -> Rate.of(1, Duration.ZERO)).hasMessageContaining("interval must be positive");
    // An interval the engine's times in nanoseconds would overflow as it paces: refused, not taken for no rate.
    assertThatThrownBy(() -> Rate.of(1, Duration.ofNanos(Long.MAX_VALUE)))
        .hasMessage("rate interval is too long: PT2562047H47M16.854775807S, at most PT1281023H53M38.427387903S");
    assertThat(Rate.of(1, Duration.ofNanos(Long.MAX_VALUE / 2)).per()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE / 2));
  }

  @Test
  void aKeyThatIsNeitherAHostNorADomainGroupIsRejectedNamingTheKey() {
    assertThatThrownBy(() -> Hostpace.builder().addLimit("*.wikidata", Limits.inFlight(1)))
        .hasMessageStartingWith("host limit '*.wikidata' is not a domain: expected '*.' followed by a domain name");
    assertThatThrownBy(() -> CallContext.builder().addLimit("exa mple.org", Limits.inFlight(1)))
        .hasMessageContaining("'exa mple.org'");
    assertThatThrownBy(() -> Hostpace.builder().addLimit("http://example.org", Limits.inFlight(1)))
        .hasMessageContaining("'http://example.org'");
  }

  @Test
  void limitsWrittenAsTextNameTheKeyTheFieldAndTheValue() {
    assertThatThrownBy(() -> Hostpace.builder().addLimit("x.org", "inFlight:zero"))
        .hasMessage("host limit 'x.org': inFlight 'zero' is not a whole number");
    assertThatThrownBy(() -> Hostpace.builder().addLimit("x.org", "inFlight:0"))
        .hasMessage("host limit 'x.org': inFlight must be at least 1, got 0");
    assertThatThrownBy(() -> Hostpace.builder().addLimit("x.org", "perSecond:NaN"))
        .hasMessage("host limit 'x.org': perSecond 'NaN' is not a decimal number");
    assertThatThrownBy(() -> Hostpace.builder().addLimit("x.org", "perSecond:-1"))
        .hasMessage("host limit 'x.org': rate per second must be a positive finite number, got -1.0");
    assertThatThrownBy(() -> Hostpace.builder().addLimit("x.org", "speed:3"))
        .hasMessage("host limit 'x.org': limit 'speed' is unknown: expected inFlight, perSecond or rate");
    assertThatThrownBy(() -> Hostpace.builder().addLimit("x.org", "rate:5/fortnight"))
        .hasMessageContaining("unknown period unit 'fortnight'");
  }

  @Test
  void limitsParseFromText() {
    assertThat(Limits.parse("inFlight:1,perSecond:1")).isEqualTo(new Limits(1, Rate.perSecond(1)));
    assertThat(Limits.parse(" perSecond: 0.5 ")).isEqualTo(Limits.perSecond(0.5));
    assertThat(Limits.parse("rate:100/m")).isEqualTo(Limits.rate(Rate.of(100, Duration.ofMinutes(1))));
    assertThat(Limits.parse("rate:10/500ms,inFlight:4")).isEqualTo(new Limits(4, Rate.of(10, Duration.ofMillis(500))));
  }

  @Test
  void limitsTextTakesASCIIDigitsAndADecimalPointOnly() {
    assertThat(Limits.parse("inFlight:007,perSecond:.5")).isEqualTo(new Limits(7, Rate.perSecond(0.5)));
    assertThat(Limits.parse("perSecond:2.")).isEqualTo(Limits.perSecond(2));
    assertThat(Limits.parse("rate:5/1.5s")).isEqualTo(Limits.rate(Rate.of(5, Duration.ofMillis(1500))));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      inFlight:+3        | inFlight '+3' is not a whole number
      inFlight:٣          | inFlight '٣' is not a whole number
      inFlight:1０        | inFlight '1０' is not a whole number
      inFlight:-99999999999 | inFlight must be at least 1, got -99999999999
      perSecond:1e3      | perSecond '1e3' is not a decimal number
      perSecond:+1       | perSecond '+1' is not a decimal number
      perSecond:١.٥        | perSecond '١.٥' is not a decimal number
      perSecond:.        | perSecond '.' is not a decimal number
      rate:+5/s          | rate '+5/s' does not start with a whole number
      rate:٥/s            | rate '٥/s' does not start with a whole number
      rate:5/١s           | rate '5/١s' has an unknown period unit '١s': expected ms, s, m or h
      rate:5/1e3ms       | rate '5/1e3ms' has an unknown period unit 'e3ms': expected ms, s, m or h
      """)
  void limitsTextWithASignExponentOrDigitsOtherThanASCIIIsRefusedNamingIt(String spec, String message) {
    assertThatThrownBy(() -> Limits.parse(spec)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void retriesAndDelaysMustNotBeNegative() {
    assertThatThrownBy(() -> Hostpace.builder().retries(-1)).hasMessage("retries must be zero or more, got -1");
    assertThatThrownBy(() -> CallContext.builder().retries(-1)).hasMessage("retries must be zero or more, got -1");
    assertThatThrownBy(() -> Hostpace.builder().retryDelayLimit(Duration.ofSeconds(-1)))
        .hasMessageContaining("retry delay limit must not be negative");
    assertThatThrownBy(() -> CallContext.builder().retryFallbackDelay(Duration.ofSeconds(-1)))
        .hasMessageContaining("retry fallback delay must not be negative");
    assertThatThrownBy(() -> Hostpace.builder().forgetIdleAfter(Duration.ofSeconds(-1)))
        .hasMessage("forget idle after must not be negative, got PT-1S");
    assertThatThrownBy(() -> Hostpace.builder().forgetIdleAfter(Duration.ofDays(400)))
        .hasMessage("forget idle after must be at most a year, got PT9600H");
  }

  @Test
  void aKeyGivenTwiceInDifferentSpellingsIsRejected() {
    assertThatThrownBy(() -> Hostpace.builder().addLimit("Example.org", Limits.inFlight(1))
            .addLimit("example.org.", Limits.inFlight(2)).build())
        .hasMessageContaining("is given twice");
  }
}

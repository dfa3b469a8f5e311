package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A rate reads in messages as it was written: {@code perSecond(3)} keeps an interval of a whole
 * number of nanoseconds, 333333333 ns, whose rate is 3.000000003 a second, and reads {@code 3/s};
 * a burst over a period reads as {@link Limits#parse} takes it.
 */
class RateTest {

  @Test
  void P11_aRatePerSecondReadsAsWrittenNotAsItsIntervalsNanosecondsMakeIt() {
    assertThat(Rate.perSecond(3)).hasToString("3/s");
    assertThat(Rate.perSecond(0.3)).hasToString("0.3/s");
    assertThat(Rate.perSecond(1.0 / 3)).hasToString("0.333333/s");
    assertThat(Rate.perSecond(7)).hasToString("7/s");
    assertThat(Rate.perSecond(0.5)).hasToString("0.5/s");
    assertThat(Limits.perSecond(3)).hasToString("{rate: 3/s}");
  }

  @Test
  void P11_aBurstOverAPeriodReadsAsLimitsParseTakesIt() {
    assertThat(Rate.of(100, Duration.ofMinutes(1))).hasToString("100/m");
    assertThat(Rate.of(10, Duration.ofMillis(500))).hasToString("10/500ms");
    assertThat(Rate.of(2, Duration.ofHours(2))).hasToString("2/2h");
    assertThat(Rate.of(2, Duration.ofSeconds(90))).hasToString("2/90s");
    assertThat(Rate.of(2, Duration.ofNanos(1_500_000))).hasToString("2/0.0015s");
    for (String written : new String[] {"rate:100/m", "rate:10/500ms", "rate:2/90s", "inFlight:2,rate:5/s"}) {
      Limits limits = Limits.parse(written);
      assertThat(Limits.parse(limits.toString().replaceAll("[{} ]", ""))).isEqualTo(limits);
    }
  }
}

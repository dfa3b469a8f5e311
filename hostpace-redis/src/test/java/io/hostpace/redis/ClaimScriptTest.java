package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The conversions around the claim script (SPEC S2), without Redis. */
class ClaimScriptTest {

  @Test
  void S2_anIntervalIsRoundedUpToAWholeMicrosecondSoTheFleetNeverSpacesLessThanAsked() {
    assertThat(ClaimScript.micros(0)).isZero();
    assertThat(ClaimScript.micros(1)).isEqualTo(1);
    assertThat(ClaimScript.micros(1_000)).isEqualTo(1);
    assertThat(ClaimScript.micros(1_001)).isEqualTo(2);
    assertThat(ClaimScript.micros(250_000_000)).isEqualTo(250_000);
    assertThat(ClaimScript.micros(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE / 1000 + 1);
  }

  @Test
  void S2_redisDelayInMicrosecondsIsGivenInNanosecondsNeverNegativeNorOverflowing() {
    assertThat(ClaimScript.nanos(0)).isZero();
    assertThat(ClaimScript.nanos(-3)).isZero();
    assertThat(ClaimScript.nanos(800_000)).isEqualTo(800_000_000L);
    assertThat(ClaimScript.nanos(Long.MAX_VALUE / 10)).isEqualTo(Long.MAX_VALUE);
  }
}

package io.hostpace.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hostpace.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The clock's day, which a quota's windows may be counted from (SPEC R11). */
class DayClockTest {

  /** The engine's clock: its time 0 at 12:00:41.7 on a day, then 100 s on. */
  final VirtualTime time = VirtualTime.startingAt(0, Instant.parse("2026-12-06T12:00:41.700Z"));
  final DayClock day = new DayClock();

  DayClockTest() {
    time.advance(Duration.ofSeconds(100));
  }

  @Test
  void R11_aRunBegunWithinAMinuteOfTheClockHasTheMinuteFoundWhereShorterLengthsAreRefused() {
    day.clock(time);
    day.firstWall(0.15, 11.9, 23.1);

    assertThat(day.read(0, 11.9, 23.1, 48.5)).isEqualTo(60);
    assertThat(day.shift()).isCloseTo(43_241.7, within(1e-6));
    assertThat(day.start()).isEqualTo(-43_241_700_000_000L);
    assertThat(day.nextBoundary(60, 23.1)).isCloseTo(78.3, within(1e-6));
  }

  @Test
  void R11_theDayIsReadOnceAQuotaAndNotWithoutAClock() {
    day.firstWall(0.15, 11.9, 23.1);
    assertThat(day.read(0, 11.9, 23.1, 48.5)).isZero(); // no clock known yet

    day.clock(time);
    day.clock(null); // another process's refusal: the clock known stays
    assertThat(day.read(0, 11.9, 23.1, 35)).isEqualTo(20);
    assertThat(day.read(0, 11.9, 23.1, 48.5)).isZero(); // read already
    // Counted from the day's start, refused up to 43,281.7 s: 30 s next.
    assertThat(day.length(43_253.6, 43_264.8, 43_281.7)).isEqualTo(30);

    day.firstWall(0.15, 11.9, 23.1); // a quota learned again
    assertThat(day.read(0, 11.9, 23.1, 48.5)).isEqualTo(60);
  }
}

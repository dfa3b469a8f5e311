package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The progress line of {@code hostpace fetch} from given counts and times. */
class ProgressLineTest {

  @Test
  void theLineSaysDoneInFlightWaitingElapsedRateAndWhatIsLeft() {
    // 46 of 200 done in 12 s: 3.8 a second, so the 154 not done take 40.2 s more, said as 41.
    ProgressLine line = new ProgressLine(46, 200, 1, 153, Duration.ofSeconds(12));
    assertThat(line.text(200)).isEqualTo("46 of 200 done, 1 in flight, 153 waiting, 0:12, 3.8/s, about 0:41 left");
  }

  @Test
  void noEstimateBeforeEnoughIsDoneOrBeforeEnoughTimeHasPassed() {
    assertThat(new ProgressLine(4, 200, 32, 164, Duration.ofSeconds(20)).text(200))
        .isEqualTo("4 of 200 done, 32 in flight, 164 waiting, 0:20, 0.2/s");
    assertThat(new ProgressLine(50, 200, 32, 118, Duration.ofMillis(1500)).text(200))
        .isEqualTo("50 of 200 done, 32 in flight, 118 waiting, 0:01, 33.3/s");
    assertThat(new ProgressLine(0, 10, 0, 10, Duration.ZERO).text(200))
        .isEqualTo("0 of 10 done, 0 in flight, 10 waiting, 0:00, 0.0/s");
  }

  @Test
  void allDoneHasNothingLeftToEstimate() {
    assertThat(new ProgressLine(10, 10, 0, 0, Duration.ofSeconds(5)).text(200))
        .isEqualTo("10 of 10 done, 0 in flight, 0 waiting, 0:05, 2.0/s");
  }

  @Test
  void hoursAreShownAsAClockShowsThem() {
    // 100 of 1000 in 1:02:03 (3723 s): 1.6 a minute, and 900 more at that rate take 9 times as long.
    assertThat(new ProgressLine(100, 1000, 1, 899, Duration.ofSeconds(3723)).text(200))
        .matches("100 of 1000 done, 1 in flight, 899 waiting, 1:02:03, 1\\.6/min, about 9:18:2[78] left");
  }

  @Test
  void theLastMomentsLeftAreSaidAsASecondNotAsNothing() {
    // 29 of 30 done in 3 s: the last one takes 0.1 s more.
    assertThat(new ProgressLine(29, 30, 1, 0, Duration.ofSeconds(3)).text(200)).endsWith(", about 0:01 left");
  }

  @Test
  void theLineNeverReachesTheLastColumnSoItNeverWraps() {
    String line = new ProgressLine(46, 200, 1, 153, Duration.ofSeconds(12)).text(40);
    assertThat(line).hasSize(39).isEqualTo("46 of 200 done, 1 in flight, 153 waitin");
  }

  @Test
  void countsBelowZeroAreRefused() {
    assertThatThrownBy(() -> new ProgressLine(-1, 10, 0, 0, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("done -1");
  }
}

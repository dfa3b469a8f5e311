package io.hostpace.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.RecordingLogger;
import io.hostpace.VirtualTime;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** SPEC L2: a failure that repeats is said at most once per interval and kind, with how many were not. */
class FailureLogTest {

  final VirtualTime time = VirtualTime.create();
  final RecordingLogger logger = new RecordingLogger(Level.INFO);
  final FailureLog log = new FailureLog(logger, time, Duration.ofMinutes(1));

  @Test
  void L2_tenSecondsOfTwoThousandFailuresASecondAreOneLineAndTheNextAfterAMinuteSaysHowManyWereNot() {
    IOException down = new IOException("connection refused");
    for (int i = 0; i < 20_000; i++) {
      log.failed("claim", () -> "a claim failed", down);
      time.advance(Duration.ofNanos(500_000)); // 2,000 a second, for 10 s
    }
    assertThat(logger.lines).singleElement().isEqualTo(new RecordingLogger.Line(Level.WARNING, "a claim failed", down));

    time.advance(Duration.ofSeconds(50)); // a minute after the first
    log.failed("claim", () -> "a claim failed", down);

    assertThat(logger.messagesAt(Level.WARNING)).containsExactly(
        "a claim failed", "a claim failed (and 19999 more like it since the last warning of them)");
  }

  @Test
  void L2_eachKindHasItsOwnMinuteAndAMessageIsBuiltOnlyWhenSaid() {
    AtomicInteger built = new AtomicInteger();
    for (int i = 0; i < 100; i++) {
      log.failed("lesson", () -> "lesson " + built.incrementAndGet(), null);
      log.failed("release", () -> "release", null);
      time.advance(Duration.ofMillis(100));
    }
    assertThat(logger.messagesAt(Level.WARNING)).containsExactly("lesson 1", "release");
    assertThat(built).hasValue(1);
  }

  @Test
  void anIntervalThatIsNotPositiveIsNamed() {
    assertThatThrownBy(() -> new FailureLog(logger, time, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failure log interval must be positive, got PT0S");
  }
}

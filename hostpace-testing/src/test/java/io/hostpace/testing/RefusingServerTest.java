package io.hostpace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.testing.RefusingServer.Answer;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testing.RefusingServer.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a refusing server answers, in virtual time from 0 s (SPEC R8 for the announced quota). */
class RefusingServerTest {

  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;

  @Test
  void anAcceptedRequestIs200AndARefusedOneHasTheServersStatusAndRetryAfter() {
    RefusingServer kgf = new RefusingServer(new AdmissionGate(1), 503, RetryAfter.seconds(1));
    assertThat(kgf.answer(0)).isEqualTo(new Answer(200, null, null));
    Answer refused = kgf.answer(100 * MS);
    assertThat(refused.accepted()).isFalse();
    assertThat(refused).isEqualTo(new Answer(503, "1", null));
    kgf.end(200 * MS);
    assertThat(kgf.answer(200 * MS).accepted()).isTrue();
  }

  @Test
  void aServerWithoutRetryAfterRefusesBare() {
    RefusingServer qlever = new RefusingServer(Spacing.oneEvery(Duration.ofSeconds(1)), 429, RetryAfter.none());
    qlever.answer(0);
    assertThat(qlever.answer(500 * MS)).isEqualTo(new Answer(429, null, null));
  }

  @Test
  void untilFreeSaysTheTimeUntilTheLimitAcceptsRoundedUpToTheMillisecond() {
    RefusingServer server = new RefusingServer(TokenBucket.of(3.0, 1, 0), 429, RetryAfter.untilFree());
    server.answer(0);
    assertThat(server.answer(0).retryAfter()).isEqualTo("0.334");    // the next token at 333.33 ms
    assertThat(server.answer(333 * MS).retryAfter()).isEqualTo("0.001");
  }

  @Test
  void aDateIsOneSecondAheadOnTheWallClockRoundedUpToTheSecond() {
    RefusingServer server = new RefusingServer(new AdmissionGate(1), 429,
        RetryAfter.dateAhead(Duration.ofSeconds(1), Instant.parse("2026-01-01T00:00:00Z")));
    server.answer(0);
    assertThat(server.answer(2 * S).retryAfter()).isEqualTo("Thu, 01 Jan 2026 00:00:03 GMT");
    assertThat(server.answer(2 * S + MS).retryAfter()).isEqualTo("Thu, 01 Jan 2026 00:00:04 GMT");
  }

  @Test
  void anAnnouncingWindowSaysWhatIsLeftOfItAndWhenItEnds() {
    RefusingServer server = new RefusingServer(FixedWindow.of(3, Duration.ofSeconds(10), 0), 429, RetryAfter.none(),
        true, List.of());
    assertThat(server.answer(0).rateLimit()).isEqualTo("\"default\";r=2;t=10");
    assertThat(server.answer(S).rateLimit()).isEqualTo("\"default\";r=1;t=9");
    assertThat(server.answer(2500 * MS).rateLimit()).isEqualTo("\"default\";r=0;t=8"); // 7.5 s, rounded up
    assertThat(server.answer(3 * S)).isEqualTo(new Answer(429, null, "\"default\";r=0;t=7"));
    assertThat(server.answer(10 * S).rateLimit()).isEqualTo("\"default\";r=2;t=10");
  }

  @Test
  void aGateHasNoQuotaToAnnounce() {
    assertThatThrownBy(() -> new RefusingServer(new AdmissionGate(4), 429, RetryAfter.none(), true, List.of()))
        .hasMessage("AdmissionGate counts no quota to announce: a TokenBucket or a FixedWindow only");
  }

  @Test
  void aStepHalvesTheRateFromItsTimeOn() {
    RefusingServer server = new RefusingServer(TokenBucket.of(2.0, 1, 0), 429, RetryAfter.untilFree(), false,
        List.of(new Step(120 * S, 1.0, null, null, null)));
    assertThat(server.nextStepAfter(0)).isEqualTo(120 * S);
    server.answer(119 * S);
    assertThat(server.freeAt(119 * S)).isEqualTo(119 * S + 500 * MS);
    server.answer(120 * S);
    assertThat(server.answer(120 * S).retryAfter()).isEqualTo("1.000");
    assertThat(server.nextStepAfter(120 * S)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aStepMakesAGateSmallerAndAWindowLarger() {
    RefusingServer gate = new RefusingServer(new AdmissionGate(2), 429, RetryAfter.none(), false,
        List.of(new Step(S, null, null, null, 1)));
    gate.answer(0, 2 * S);
    assertThat(gate.answer(S, 3 * S).accepted()).isFalse();
    RefusingServer window = new RefusingServer(FixedWindow.of(1, Duration.ofSeconds(60), 0), 429, RetryAfter.none(),
        false, List.of(new Step(S, null, null, 2, null)));
    window.answer(0);
    assertThat(window.answer(S).accepted()).isTrue();
  }

  @Test
  void aStepThatSetsWhatTheLimitDoesNotHaveIsRefused() {
    assertThatThrownBy(() -> new RefusingServer(new AdmissionGate(2), 429, RetryAfter.none(), false,
        List.of(new Step(S, 1.0, null, null, null))))
        .hasMessage("a step at 1000000000 ns sets what AdmissionGate does not have: "
            + "Step[at=1000000000, rate=1.0, burst=null, limit=null, places=null]");
  }
}

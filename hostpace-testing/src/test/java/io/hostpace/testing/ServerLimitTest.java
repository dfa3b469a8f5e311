package io.hostpace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The limits as traces in virtual time. Each starts at a random-looking origin far from 0, so
 * that arithmetic which confuses a time with a duration, or overflows, fails here.
 */
class ServerLimitTest {

  static final long T0 = Long.MAX_VALUE - 5_000_000_000L; // 5 s before the clock wraps
  static final long MS = 1_000_000L;
  static final long S = 1_000_000_000L;

  @Test
  void aGateRefusesWhileItsPlacesAreTakenAndAcceptsOnceOneEnds() {
    AdmissionGate gate = new AdmissionGate(2);
    assertThat(gate.admit(T0)).isTrue();
    assertThat(gate.admit(T0)).isTrue();
    assertThat(gate.admit(T0 + 100 * MS)).isFalse();
    assertThat(gate.freeAt(T0 + 100 * MS)).as("no end known").isEqualTo(Long.MAX_VALUE);
    gate.end(T0 + 300 * MS);
    assertThat(gate.inFlight(T0 + 300 * MS)).isEqualTo(1);
    assertThat(gate.admit(T0 + 300 * MS)).isTrue();
    assertThat(gate.admit(T0 + 300 * MS)).isFalse();
  }

  @Test
  void aGateFreesAPlaceByItselfAtTheEndItWasToldAndSaysWhen() {
    AdmissionGate gate = new AdmissionGate(2);
    assertThat(gate.admit(T0, T0 + 500 * MS)).isTrue();  // ends at 0.5 s
    assertThat(gate.admit(T0)).isTrue();                 // ends when told
    assertThat(gate.admit(T0 + 100 * MS, T0 + 600 * MS)).isFalse();
    assertThat(gate.freeAt(T0 + 100 * MS)).isEqualTo(T0 + 500 * MS);
    assertThat(gate.admit(T0 + 500 * MS, T0 + S)).isTrue();
    assertThat(gate.freeAt(T0 + 500 * MS)).isEqualTo(T0 + S);
  }

  @Test
  void aGateMadeSmallerKeepsWhatIsInFlightAndAcceptsOnlyBelowItsNewSize() {
    AdmissionGate gate = new AdmissionGate(3);
    gate.admit(T0);
    gate.admit(T0);
    gate.places(1);
    assertThat(gate.admit(T0)).isFalse();
    gate.end(T0 + S);
    assertThat(gate.admit(T0 + S)).isFalse();
    gate.end(T0 + 2 * S);
    assertThat(gate.admit(T0 + 2 * S)).isTrue();
  }

  @Test
  void aGateToldOfAnEndItNeverGaveAPlaceForSaysSo() {
    assertThatThrownBy(() -> new AdmissionGate(1).end(T0)).isInstanceOf(IllegalStateException.class)
        .hasMessage("no request holds a place until told its end: admit(now) takes one");
    assertThatThrownBy(() -> new AdmissionGate(0)).hasMessage("a gate serves at least 1 request at once, got 0");
  }

  @Test
  void aBucketStartsFullAndRefillsAtItsRate() {
    TokenBucket bucket = TokenBucket.of(2.0, 3, T0); // 3 tokens, 2 a second
    assertThat(bucket.admit(T0)).isTrue();
    assertThat(bucket.admit(T0)).isTrue();
    assertThat(bucket.admit(T0)).isTrue();
    assertThat(bucket.admit(T0)).isFalse();
    assertThat(bucket.freeAt(T0)).isEqualTo(T0 + 500 * MS);
    assertThat(bucket.admit(T0 + 499 * MS)).isFalse();
    assertThat(bucket.admit(T0 + 500 * MS)).as("refusals cost nothing").isTrue();
    assertThat(bucket.remaining(T0 + 5 * S)).as("full at 3, not 9").isEqualTo(3);
  }

  @Test
  void aBucketCountingRefusalsGoesIntoDebtSoAHammeringClientWaitsLonger() {
    TokenBucket bucket = TokenBucket.countingRefusals(1.0, 1, T0);
    assertThat(bucket.admit(T0)).isTrue();                  // 0 left
    assertThat(bucket.admit(T0 + 500 * MS)).isFalse();      // -0.5
    assertThat(bucket.admit(T0 + S)).isFalse();             // -1
    assertThat(bucket.freeAt(T0 + S)).isEqualTo(T0 + 3 * S);
    assertThat(bucket.admit(T0 + 3 * S)).isTrue();
  }

  @Test
  void aBucketSaysItsWholeTokensAndWhenItIsFullOrItsNextTokenComes() {
    TokenBucket bucket = TokenBucket.of(0.5, 2, T0);
    bucket.admit(T0);
    assertThat(bucket.remaining(T0)).isEqualTo(1);
    assertThat(bucket.resetIn(T0)).as("full again").isEqualTo(2 * S);
    bucket.admit(T0);
    assertThat(bucket.remaining(T0)).isZero();
    assertThat(bucket.resetIn(T0)).as("the next token").isEqualTo(2 * S);
    assertThat(bucket.resetIn(T0 + S)).isEqualTo(S);
  }

  @Test
  void aBucketWhoseRateChangesRefillsAtTheOldRateUntilTheChangeAndTheNewOneAfter() {
    TokenBucket bucket = TokenBucket.of(2.0, 10, T0);
    for (int i = 0; i < 10; i++) {
      bucket.admit(T0);
    }
    bucket.rate(T0 + S, 1.0);                      // 2 tokens by 1 s
    assertThat(bucket.remaining(T0 + 2 * S)).isEqualTo(3);
    bucket.burst(T0 + 2 * S, 1);
    assertThat(bucket.remaining(T0 + 2 * S)).as("what is above the new burst is lost").isEqualTo(1);
  }

  @Test
  void aFixedWindowAcceptsItsLimitInEachWindowFromItsStart() {
    FixedWindow window = FixedWindow.of(2, Duration.ofSeconds(10), T0);
    assertThat(window.admit(T0)).isTrue();
    assertThat(window.admit(T0 + S)).isTrue();
    assertThat(window.admit(T0 + 9 * S)).isFalse();
    assertThat(window.freeAt(T0 + 9 * S)).isEqualTo(T0 + 10 * S);
    assertThat(window.resetIn(T0 + 9 * S)).isEqualTo(S);
    assertThat(window.admit(T0 + 10 * S)).isTrue();
    assertThat(window.remaining(T0 + 10 * S)).isEqualTo(1);
    assertThat(window.remaining(T0 + 35 * S)).as("a window with nothing in it").isEqualTo(2);
  }

  @Test
  void aFixedWindowCountingRefusalsLeavesLessOfAWindowWhoseLimitIsRaised() {
    FixedWindow counting = FixedWindow.countingRefusals(1, Duration.ofSeconds(10), T0);
    FixedWindow free = FixedWindow.of(1, Duration.ofSeconds(10), T0);
    for (FixedWindow window : new FixedWindow[] {counting, free}) {
      window.admit(T0);
      assertThat(window.admit(T0 + S)).isFalse();
      assertThat(window.admit(T0 + 2 * S)).isFalse();
      window.limit(4);
    }
    assertThat(counting.remaining(T0 + 3 * S)).isEqualTo(1);
    assertThat(free.remaining(T0 + 3 * S)).isEqualTo(3);
  }

  @Test
  void aSpacingAcceptsOneAnIntervalAndARefusalDoesNotMoveTheNext() {
    Spacing spacing = Spacing.oneEvery(Duration.ofSeconds(1));
    assertThat(spacing.admit(T0)).isTrue();
    assertThat(spacing.admit(T0 + 400 * MS)).isFalse();
    assertThat(spacing.freeAt(T0 + 400 * MS)).isEqualTo(T0 + S);
    assertThat(spacing.admit(T0 + S)).isTrue();
    assertThat(spacing.admit(T0 + 2500 * MS)).isTrue();
    assertThat(spacing.admit(T0 + 3499 * MS)).isFalse();
    assertThat(spacing.admit(T0 + 3500 * MS)).isTrue();
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** SPEC R8's budget of starts with literal numbers: seconds as nanoseconds, a 60 s retry delay limit. */
class AnnouncedBudgetTest {

  static final long S = 1_000_000_000L;
  static final long LIMIT = 60 * S;

  final AnnouncedBudget budget = new AnnouncedBudget();

  @Test
  void R8_aHostStartsNoMoreBeforeItsResetThanItSaidRemained() {
    // The 10th start is answered at 5 s: 3 remain, reset in 30 s.
    assertThat(budget.heard(3, -1, 30 * S, 10, 5 * S, LIMIT)).isZero();
    assertThat(budget.holds(6 * S, 10)).isFalse();
    assertThat(budget.holds(6 * S, 12)).isFalse();
    assertThat(budget.holds(6 * S, 13)).isTrue();
    assertThat(budget.resetAt()).isEqualTo(35 * S);
    // At the reset the budget ends: the next answers will say anew.
    assertThat(budget.holds(35 * S, 13)).isFalse();
    assertThat(budget.holds(36 * S, 100)).isFalse();
  }

  @Test
  void R8_anOlderAttemptsWordSaysNothingNew() {
    budget.heard(3, -1, 30 * S, 10, 5 * S, LIMIT);
    assertThat(budget.heard(0, -1, 30 * S, 9, 6 * S, LIMIT)).isZero();
    assertThat(budget.holds(6 * S, 12)).isFalse();
  }

  @Test
  void R8_nothingRemainingPausesTheHostUntilItsResetWithinTheRetryDelayLimit() {
    assertThat(budget.heard(0, -1, 30 * S, 12, 5 * S, LIMIT)).isEqualTo(30 * S);
    assertThat(budget.heard(0, -1, 90 * S, 13, 6 * S, LIMIT)).isEqualTo(LIMIT);
    assertThat(budget.resetAt()).isEqualTo(66 * S);
    assertThat(budget.heard(0, -1, 0, 14, 7 * S, LIMIT)).isZero(); // reset now: no pause
  }

  @Test
  void R8_anIdleHostIsKeptUntilItsResetOnlyWhileFewRemain() {
    budget.heard(AnnouncedBudget.FEW_REMAINING, -1, 30 * S, 1, 0, LIMIT);
    assertThat(budget.keepsIdle(S, 1)).isFalse();
    assertThat(budget.keepsIdle(S, 2)).isTrue();
    assertThat(budget.keepsIdle(30 * S, 2)).isFalse();
  }

  @Test
  void R7_aForgottenBudgetHoldsNothing() {
    budget.heard(0, -1, 30 * S, 1, 0, LIMIT);
    budget.forget();
    assertThat(budget.holds(S, 5)).isFalse();
    assertThat(budget.keepsIdle(S, 5)).isFalse();
  }

  @Test
  void R8_pastItsResetABudgetThatKnowsItsStartsAWindowRollsIntoTheNextWithAllOfThem() {
    // The 7th start is answered at 1 s: 0 of 10 remain, reset in 4 s (a window of at least 4 s).
    assertThat(budget.heard(0, 10, 4 * S, 7, S, LIMIT)).isEqualTo(4 * S);
    assertThat(budget.holds(2 * S, 7)).isTrue();
    // At 5 s, after 7 starts, the next window: 10 of them, until 9 s; then none until 9 s.
    assertThat(budget.holds(5 * S, 7)).isFalse();
    assertThat(budget.holds(5 * S, 16)).isFalse();
    assertThat(budget.holds(5 * S, 17)).isTrue();
    assertThat(budget.resetAt()).isEqualTo(9 * S);
    // The answer to the 7th start, late, is of the window that ended; the 8th's is of this one.
    assertThat(budget.heard(0, 10, 3 * S, 7, 6 * S, LIMIT)).isZero();
    assertThat(budget.holds(6 * S, 10)).isFalse();
    assertThat(budget.heard(2, 10, 3 * S, 8, 6 * S, LIMIT)).isZero();
    assertThat(budget.holds(6 * S, 10)).isTrue();
    // Idle windows later, the window of now: resetting at 21 s.
    assertThat(budget.few(19 * S, 10)).isTrue();
    assertThat(budget.resetAt()).isEqualTo(21 * S);
  }

  @Test
  void R8_withoutItsStartsAWindowABudgetEndsAtItsReset() {
    budget.heard(0, -1, 4 * S, 7, S, LIMIT);
    assertThat(budget.few(5 * S, 7)).isFalse();
    assertThat(budget.holds(5 * S, 100)).isFalse();
  }

  @Test
  void S3_aBudgetReadFromTheFleetIsAllOfItsWindowUntilItsReset() {
    budget.recalled(10, 5 * S, 2 * S, 0, S);
    assertThat(budget.few(S, 0)).isTrue(); // spent from the fleet's count
    assertThat(budget.holds(2 * S, 9)).isFalse();
    assertThat(budget.holds(2 * S, 10)).isTrue();
    assertThat(budget.resetAt()).isEqualTo(3 * S);
    assertThat(budget.holds(3 * S, 10)).isFalse(); // the next window
    // An engine's own word stands over what it reads
    AnnouncedBudget heard = new AnnouncedBudget();
    heard.heard(3, 10, 4 * S, 1, S, LIMIT);
    heard.recalled(10, 5 * S, 2 * S, 1, S);
    assertThat(heard.holds(2 * S, 4)).isTrue();
  }
}

package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The demo's progress says finished (the call ended, in any way) and completed (it gave results) apart. */
class QueryTallyTest {

  @Test
  void aRunWhoseQueriesAllEndedButOneGaveResultsSaysSo() {
    assertThat(new QueryTally("plain Jena", 16, 1, 16).line()).isEqualTo("plain Jena: 16 of 16 queries finished, 1 completed");
    assertThat(new QueryTally("Hostpace", 9, 9, 16).line()).isEqualTo("Hostpace: 9 of 16 queries finished, 9 completed");
  }

  @Test
  void moreCompletedThanFinishedIsRefused() {
    assertThatThrownBy(() -> new QueryTally("plain Jena", 1, 2, 16)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain Jena");
  }
}

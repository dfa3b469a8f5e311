package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.simulator.PacingScenario.Model;
import io.hostpace.simulator.PacingScenario.RetryAfter;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.testing.RefusingServer;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a server model that announces its quota says on each answer (SPEC R8). */
class ServerModelTest {

  static final long SECOND = 1_000_000_000L;

  static ServerModel model(Model model, double rate, int burst, int limit, long window) {
    return new ServerModel(new ServerSpec("q.test", model, rate, burst, limit, window, 0, 0, 429, RetryAfter.NONE,
        50_000_000L, 0, false, true, List.of()), Instant.EPOCH);
  }

  @Test
  void aFixedWindowSaysWhatIsLeftOfItAndWhenItEnds() {
    ServerModel window = model(Model.FIXED_WINDOW, 0, 1, 3, 10 * SECOND);
    assertThat(window.admit(0).rateLimit()).isEqualTo("\"default\";r=2;t=10");
    assertThat(window.admit(SECOND).rateLimit()).isEqualTo("\"default\";r=1;t=9");
    assertThat(window.admit(2 * SECOND + SECOND / 2).rateLimit()).isEqualTo("\"default\";r=0;t=8"); // 7.5 s, rounded up
    RefusingServer.Answer refused = window.admit(3 * SECOND);
    assertThat(refused.accepted()).isFalse();
    assertThat(refused.rateLimit()).isEqualTo("\"default\";r=0;t=7");
    assertThat(window.admit(10 * SECOND).rateLimit()).isEqualTo("\"default\";r=2;t=10");
  }

  @Test
  void aFixedWindowsWindowsBeginWhereItsSpecSays() {
    ServerModel window = new ServerModel(new ServerSpec("q.test", Model.FIXED_WINDOW, 0, 1, 2, 10 * SECOND,
        7 * SECOND, 0, 429, RetryAfter.NONE, 50_000_000L, 0, false, false, List.of()), Instant.EPOCH);
    // Windows of 10 s from 7 s (and from -3 s before it): two at 5 s and 6 s, none more until 7 s.
    assertThat(window.admit(5 * SECOND).accepted()).isTrue();
    assertThat(window.admit(6 * SECOND).accepted()).isTrue();
    assertThat(window.admit(6 * SECOND + SECOND / 2).accepted()).isFalse();
    assertThat(window.admit(7 * SECOND).accepted()).isTrue();
    assertThat(window.admit(16 * SECOND).accepted()).isTrue();
    assertThat(window.admit(16 * SECOND + SECOND / 2).accepted()).isFalse();
  }

  @Test
  void aTokenBucketSaysItsTokensAndWhenTheNextComesWhenNoneIsLeft() {
    ServerModel bucket = model(Model.TOKEN_BUCKET, 0.5, 2, 0, 0);
    assertThat(bucket.admit(0).rateLimit()).isEqualTo("\"default\";r=1;t=2");   // full again in 2 s
    assertThat(bucket.admit(0).rateLimit()).isEqualTo("\"default\";r=0;t=2");   // the next token in 2 s
    assertThat(bucket.admit(SECOND).rateLimit()).isEqualTo("\"default\";r=0;t=1");
  }

  @Test
  void aServerThatDoesNotAnnounceSaysNothing() {
    ServerModel quiet = new ServerModel(new ServerSpec("q.test", Model.TOKEN_BUCKET, 1, 1, 0, 0, 0, 0, 429,
        RetryAfter.NONE, 50_000_000L, 0, false, false, List.of()), Instant.EPOCH);
    assertThat(quiet.admit(0).rateLimit()).isNull();
  }
}

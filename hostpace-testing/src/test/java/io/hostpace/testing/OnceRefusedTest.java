package io.hostpace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.spi.HostState;
import io.hostpace.spi.LearningRule;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules that learn one fixed thing from a refusal, fed literal numbers. */
class OnceRefusedTest {

  static final long SECOND = Duration.ofSeconds(1).toNanos();

  @Test
  void aPaceIsLearnedFromARefusalAndKeptByTheAnswers() {
    LearningRule rule = OnceRefused.paceEvery(Duration.ofSeconds(1));

    assertThat(rule.onAnswer(5 * SECOND, 4 * SECOND, 0, 0)).as("nothing learned yet").isZero();
    assertThat(rule.onRefusal(6 * SECOND, 5 * SECOND, 0, 0)).isEqualTo(SECOND);
    assertThat(rule.onAnswer(7 * SECOND, 6 * SECOND, SECOND, 6 * SECOND)).isEqualTo(SECOND);
    assertThat(rule.onRefusal(8 * SECOND, 7 * SECOND, 3 * SECOND, 6 * SECOND)).isEqualTo(SECOND);
    assertThat(rule).hasToString("once refused, one start every PT1S");
  }

  @Test
  void aQuotaIsSetOnTheHostByARefusalAndTheIntervalStays0() {
    LearningRule rule = OnceRefused.quota(2, Duration.ofMinutes(1));
    List<String> calls = new ArrayList<>(); // what the rule sets on a host whose interval is 0
    HostState host = (HostState) Proxy.newProxyInstance(HostState.class.getClassLoader(),
        new Class<?>[] {HostState.class}, (proxy, method, args) -> {
          if (method.getReturnType() == long.class) {
            return 0L;
          }
          calls.add(method.getName() + Arrays.toString(args));
          return null;
        });

    assertThat(rule.onAnswer(5 * SECOND, 4 * SECOND, host)).isZero();
    assertThat(calls).as("an answer teaches nothing").isEmpty();
    assertThat(rule.onRefusal(6 * SECOND, 5 * SECOND, host)).isZero();
    assertThat(calls).containsExactly("quota[2, " + 60 * SECOND + "]");
    assertThat(rule).hasToString("once refused, a quota of 2 starts a PT1M");
  }

  @Test
  void settingsThatAreNoPaceOrQuotaAreRefusedWithAMessageThatNamesThem() {
    assertThatThrownBy(() -> OnceRefused.paceEvery(Duration.ZERO))
        .hasMessage("a pace of one start every PT0S is not one: expected a positive interval");
    assertThatThrownBy(() -> OnceRefused.quota(0, Duration.ofMinutes(1)))
        .hasMessage("a quota of 0 starts is not one: expected 1 or more");
    assertThatThrownBy(() -> OnceRefused.quota(2, Duration.ofSeconds(-1)))
        .hasMessage("a quota's window PT-1S is not one: expected a positive duration");
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VirtualTimeTest {

  @Test
  void tasksRunInTimeOrderWhenTimeIsAdvancedPastThem() {
    VirtualTime time = VirtualTime.startingAt(Long.MAX_VALUE - 1_000_000_000L, Instant.EPOCH);
    List<String> ran = new ArrayList<>();
    time.schedule(() -> ran.add("b at " + time.elapsed().toMillis()), 2_000_000_000L); // crosses Long.MAX_VALUE
    time.schedule(() -> ran.add("a at " + time.elapsed().toMillis()), 500_000_000L);
    Timer.Cancellable never = time.schedule(() -> ran.add("cancelled"), 100_000_000L);
    never.cancel();

    time.advance(Duration.ofSeconds(3));

    assertThat(ran).containsExactly("a at 500", "b at 2000");
    assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(3));
    assertThat(time.instant()).isEqualTo(Instant.EPOCH.plusSeconds(3));
  }

  @Test
  void aTaskCanScheduleMoreAndRunUntilIdleFollowsThem() {
    VirtualTime time = VirtualTime.create();
    List<Long> at = new ArrayList<>();
    Runnable[] tick = new Runnable[1];
    tick[0] = () -> {
      at.add(time.elapsed().toMillis());
      if (at.size() < 3) {
        time.schedule(tick[0], 1_000_000_000L);
      }
    };
    time.schedule(tick[0], 0);

    Duration took = time.runUntilIdle(Duration.ofMinutes(1));

    assertThat(at).containsExactly(0L, 1000L, 2000L);
    assertThat(took).isEqualTo(Duration.ofSeconds(2));
    assertThat(time.pendingTasks()).isZero();
  }

  /** A task that schedules itself again at once, for ever. */
  static void loop(VirtualTime time, int[] runs) {
    runs[0]++;
    time.schedule(() -> loop(time, runs), 0);
  }

  @Test
  void tasksThatEachScheduleTheNextAtOnceForEverFailInsteadOfHoldingTheThread() {
    VirtualTime time = VirtualTime.create().limitTasksAtOneInstant(1_000);
    int[] runs = {0};
    time.schedule(() -> loop(time, runs), 0);

    assertThatThrownBy(() -> time.runUntilIdle(Duration.ofHours(1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("virtual time is stuck");
    assertThat(runs[0]).isEqualTo(1_000);
  }

  @Test
  void asManyTasksAtOneInstantAsTheLimitAllowsRunAndTimeGoesOn() {
    VirtualTime time = VirtualTime.create().limitTasksAtOneInstant(1_000);
    List<Long> at = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      time.schedule(() -> at.add(time.elapsed().toMillis()), 0);
    }
    time.schedule(() -> at.add(time.elapsed().toMillis()), 1_000_000);

    time.runUntilIdle(Duration.ofSeconds(1));
    assertThat(at).hasSize(1_001).endsWith(1L);
  }
}

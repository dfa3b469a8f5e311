package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.HostStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LooksTest {

  final VirtualTime time = VirtualTime.create();
  final long start = time.nanoTime();
  final List<String> looked = new ArrayList<>();
  final Looks looks = new Looks(time, time, Runnable::run, node -> looked.add(node.key + " at " + seconds()));

  private long seconds() {
    return Duration.ofNanos(time.nanoTime() - start).toSeconds();
  }

  private static Node node(String key) {
    return new Node(key, false, HostStateStore.inMemory().open(key));
  }

  private long at(int seconds) {
    return time.nanoTime() + Duration.ofSeconds(seconds).toNanos();
  }

  @Test
  void P10_nodesKeptIdleAreLookedAtEachAtItsTimeThroughOneTimerTask() {
    long now = time.nanoTime();
    looks.add(node("a.test"), at(100), now);
    looks.add(node("b.test"), at(100), now);
    looks.add(node("c.test"), at(300), now);
    assertThat(time.pendingTasks()).isOne();

    looks.add(node("d.test"), at(50), now); // earlier than the task armed: the task moves
    assertThat(time.pendingTasks()).isOne();

    time.advance(Duration.ofSeconds(99));
    assertThat(looked).containsExactly("d.test at 50");
    assertThat(time.pendingTasks()).isOne();

    time.advance(Duration.ofSeconds(1));
    assertThat(looked).containsExactly("d.test at 50", "a.test at 100", "b.test at 100");
    assertThat(looks.size()).isOne();

    time.advance(Duration.ofSeconds(200));
    assertThat(looked).hasSize(4).endsWith("c.test at 300");
    assertThat(looks.size()).isZero();
    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void P10_aNodeThatALookMakesDueAgainAtOnceIsLookedAtByTheNextTaskNotTheSame() {
    Looks[] again = new Looks[1];
    again[0] = new Looks(time, time, Runnable::run, node -> {
      looked.add(node.key + " at " + seconds() + ", " + time.pendingTasks() + " task pending");
      if (looked.size() < 3) {
        again[0].add(node, time.nanoTime(), time.nanoTime());
      }
    });
    again[0].add(node("a.test"), at(10), time.nanoTime());

    time.advance(Duration.ofSeconds(10));

    // each look ran as a task of its own: the one before it was done when it was armed
    assertThat(looked).containsExactly("a.test at 10, 0 task pending", "a.test at 10, 0 task pending",
        "a.test at 10, 0 task pending");
    assertThat(time.pendingTasks()).isZero();
  }
}

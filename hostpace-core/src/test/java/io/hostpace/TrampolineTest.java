package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The trampoline runs a thread's tasks one after another, whatever one of them throws. */
class TrampolineTest {

  @Test
  void L2_anErrorATaskThrowsGoesToTheThreadsHandlerAndTheTasksQueuedBehindItStillRun() {
    Thread current = Thread.currentThread();
    Thread.UncaughtExceptionHandler before = current.getUncaughtExceptionHandler();
    List<Throwable> handled = new ArrayList<>();
    List<String> ran = new ArrayList<>();
    AssertionError boom = new AssertionError("a task's assertion");
    current.setUncaughtExceptionHandler((thread, failure) -> handled.add(failure));
    try {
      Trampoline.INSTANCE.execute(() -> {
        Trampoline.INSTANCE.execute(() -> ran.add("queued behind it"));
        throw boom;
      });
    } finally {
      current.setUncaughtExceptionHandler(before);
    }

    assertThat(handled).containsExactly(boom);
    assertThat(ran).containsExactly("queued behind it");
    assertThat(Trampoline.turn().draining).isFalse();
  }
}

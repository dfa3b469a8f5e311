package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The executor a fleet answers on: one task at a time, in order, on the threads it is given. */
class SerialExecutorTest {

  @Test
  void tasksRunOneAtATimeInOrderOnTheGivenThreadsAndAFailingOneStopsNone() throws Exception {
    ExecutorService four = Executors.newFixedThreadPool(4);
    try {
      SerialExecutor serial = new SerialExecutor(four);
      List<Integer> ran = new ArrayList<>(); // unsynchronized on purpose: one task at a time
      List<Thread> threads = new ArrayList<>();
      CountDownLatch done = new CountDownLatch(1);
      for (int i = 0; i < 1000; i++) {
        int n = i;
        serial.execute(() -> {
          ran.add(n);
          threads.add(Thread.currentThread());
          if (n == 500) {
            throw new IllegalStateException("a broken task");
          }
        });
      }
      serial.execute(done::countDown);

      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(ran).hasSize(1000);
      for (int i = 0; i < 1000; i++) {
        assertThat(ran.get(i)).isEqualTo(i);
      }
      assertThat(threads).doesNotContain(Thread.currentThread());
    } finally {
      four.shutdownNow();
    }
  }
}

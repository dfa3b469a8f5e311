package io.hostpace.redis;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in the order they were given, on threads of another executor: a
 * fleet's lessons reach its listeners in the order Redis sent them, and its answers never run on
 * the thread that reads Redis.
 */
final class SerialExecutor implements Executor {

  private final Executor threads;
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(); // guarded by this
  private boolean running; // guarded by this: a drain is queued or runs

  SerialExecutor(Executor threads) {
    this.threads = threads;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      tasks.add(task);
      if (running) {
        return;
      }
      running = true;
    }
    threads.execute(this::drain);
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (this) {
        next = tasks.poll();
        if (next == null) {
          running = false;
          return;
        }
      }
      try {
        next.run();
      } catch (RuntimeException e) { // a task's failure is its own: the tasks after it still run
      }
    }
  }
}

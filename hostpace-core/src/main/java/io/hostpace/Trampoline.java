package io.hostpace;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs tasks on the calling thread, but never inside one another: a task handed over while
 * another runs on the same thread waits until that one returns. An attempt that is answered
 * at once (a cache, a test's server) releases its place, which starts the next request, whose
 * answer releases its place ... without this, ten thousand such requests would nest ten
 * thousand frames deep.
 */
final class Trampoline implements Executor {

  static final Trampoline INSTANCE = new Trampoline();

  /** A thread's tasks waiting for the one it runs; kept for the thread, so nothing is made per dispatch. */
  private static final class Pending {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    boolean draining;
  }

  private static final ThreadLocal<Pending> PENDING = ThreadLocal.withInitial(Pending::new);

  private Trampoline() {}

  @Override
  public void execute(Runnable task) {
    Pending pending = PENDING.get();
    if (pending.draining) {
      pending.tasks.add(task);
      return;
    }
    pending.draining = true;
    try {
      Runnable next = task;
      while (next != null) {
        try {
          next.run();
        } catch (RuntimeException e) {
          Thread current = Thread.currentThread();
          current.getUncaughtExceptionHandler().uncaughtException(current, e);
        }
        next = pending.tasks.poll();
      }
    } finally {
      pending.draining = false;
    }
  }
}

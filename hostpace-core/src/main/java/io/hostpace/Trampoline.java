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

  private static final ThreadLocal<ArrayDeque<Runnable>> PENDING = new ThreadLocal<>();

  private Trampoline() {}

  @Override
  public void execute(Runnable task) {
    ArrayDeque<Runnable> pending = PENDING.get();
    if (pending != null) {
      pending.add(task);
      return;
    }
    pending = new ArrayDeque<>();
    PENDING.set(pending);
    try {
      Runnable next = task;
      while (next != null) {
        try {
          next.run();
        } catch (RuntimeException e) {
          Thread current = Thread.currentThread();
          current.getUncaughtExceptionHandler().uncaughtException(current, e);
        }
        next = pending.poll();
      }
    } finally {
      PENDING.remove();
    }
  }
}

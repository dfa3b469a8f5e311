package io.hostpace;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs tasks on the calling thread, but never inside one another: a task handed over while
 * another runs on the same thread waits until that one returns. An attempt that is answered
 * at once (a cache, a test's server) releases its place, which starts the next request, whose
 * answer releases its place ... without this, ten thousand such requests would nest ten
 * thousand frames deep.
 *
 * <p>A thread is <em>draining</em> while it runs such tasks: it is then inside a delivery of the
 * {@link Outbox}, and what the locked sections it enters start would run on it too. The
 * thread's {@link Turn} says so, and how many other threads' calls it may still take on
 * ({@link Outbox#take}): without that bound, a thread whose answers start the calls other
 * threads keep submitting would send all of them, one after another, and never return.
 */
final class Trampoline implements Executor {

  static final Trampoline INSTANCE = new Trampoline();

  /**
   * A thread's turn at delivering: the tasks waiting for the one it runs, whether it runs them,
   * and how many other threads' calls it may still take on in this delivery. Kept for the
   * thread, so nothing is made per dispatch; read and written by its thread only.
   */
  static final class Turn {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    boolean draining;
    /** Other threads' calls this delivery may still take on: set as it begins, spent by {@link Outbox#take}. */
    int share;
    /** The thread's calls that took the {@link LocalPath}: their order of arrival among those of one {@code seq}. */
    long arrivals;
  }

  private static final ThreadLocal<Turn> TURN = ThreadLocal.withInitial(Turn::new);

  private Trampoline() {}

  /** The calling thread's turn. */
  static Turn turn() {
    return TURN.get();
  }

  @Override
  public void execute(Runnable task) {
    Turn turn = TURN.get();
    if (turn.draining) {
      turn.tasks.add(task);
      return;
    }
    turn.draining = true;
    turn.share = Outbox.SHARE;
    try {
      Runnable next = task;
      while (next != null) {
        try {
          next.run();
        } catch (Throwable e) {
          // An Error too: out of this loop, it would leave the tasks queued behind it unrun.
          Thread current = Thread.currentThread();
          current.getUncaughtExceptionHandler().uncaughtException(current, e);
        }
        next = turn.tasks.poll();
      }
    } finally {
      turn.draining = false;
    }
  }
}

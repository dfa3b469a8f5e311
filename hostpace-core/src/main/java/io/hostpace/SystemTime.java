package io.hostpace;

import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The real clock and a timer on one daemon thread, shared by every engine in the JVM. */
final class SystemTime implements Clock, Timer {

  static final SystemTime CLOCK = new SystemTime();
  static final Timer TIMER = CLOCK;

  private static final class Holder {
    static final ScheduledThreadPoolExecutor EXECUTOR = newExecutor();

    private static ScheduledThreadPoolExecutor newExecutor() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              runnable -> {
                Thread thread = new Thread(runnable, "hostpace-timer");
                thread.setDaemon(true);
                return thread;
              });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }

  private SystemTime() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public Instant instant() {
    return Instant.now();
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> future =
        Holder.EXECUTOR.schedule(guarded(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  /** A task that throws must not end the timer thread for every other engine. */
  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        Thread current = Thread.currentThread();
        current.getUncaughtExceptionHandler().uncaughtException(current, e);
      }
    };
  }
}

package io.hostpace;

/**
 * Runs work later. The engine starts every waiting request through its timer: no thread
 * sleeps or parks while a request waits, however many requests or hosts there are.
 *
 * <p>Tasks must be short: the engine's tasks decide which requests start and hand them on.
 */
public interface Timer {

  /**
   * Runs {@code task} once, {@code delayNanos} from now (at once when zero or negative).
   *
   * @return a handle that cancels the task if it has not run yet
   */
  Cancellable schedule(Runnable task, long delayNanos);

  /** A timer on one shared daemon thread. */
  static Timer system() {
    return SystemTime.TIMER;
  }

  /** A scheduled task that has not run yet. */
  @FunctionalInterface
  interface Cancellable {
    /** Stops the task from running; does nothing once it ran. */
    void cancel();
  }
}

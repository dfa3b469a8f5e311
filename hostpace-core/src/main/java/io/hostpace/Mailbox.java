package io.hostpace;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The blocking entry point's executor: the engine hands the call's attempts to it, and the
 * calling thread, waiting for its call, runs them. So a blocking client sends on the thread
 * that called it, while the waiting itself stays in the engine's queue and timer.
 */
final class Mailbox implements Executor {

  private static final Runnable WAKE = () -> {};

  private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  /** Wakes the waiting thread to look at its call again. */
  void wake() {
    tasks.add(WAKE);
  }

  /** Runs the tasks handed over until {@code done} says the call is done. */
  void runUntil(java.util.function.BooleanSupplier done) throws InterruptedException {
    while (!done.getAsBoolean()) {
      tasks.take().run();
    }
  }
}

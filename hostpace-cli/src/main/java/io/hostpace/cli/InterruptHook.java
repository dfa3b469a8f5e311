package io.hostpace.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What Ctrl-C does to a run: the JVM's shutdown hook asks the run to stop taking work
 * ({@code stop}: cancel what waits and what is in flight), then holds the JVM open until the
 * run's own thread says it has ended ({@link #ended()}: its summary printed, its {@code --state}
 * saved), at most {@link #BOUND}, so a run stuck in a write cannot keep the process from exiting.
 * The run's thread then exits with the JVM's status for the signal, 130.
 *
 * <p>Neither waits for the other while holding anything: the hook takes no lock of the run's
 * and waits only on a latch that the run counts down after it has printed and saved, and the
 * run never waits for the hook. {@code stop} must not block: cancelling a call takes the
 * engine's lock only for a moment, and the work the cancelled futures then run (records,
 * counts) takes only locks that the run's thread, waiting for those futures, does not hold.
 */
final class InterruptHook implements AutoCloseable {

  /** The longest the hook holds the JVM open for the run to end. */
  static final Duration BOUND = Duration.ofSeconds(10);

  private final Runnable stop;
  private final Duration bound;
  private final AtomicBoolean interrupted = new AtomicBoolean();
  private final CountDownLatch ended = new CountDownLatch(1);
  private final Thread hook;

  InterruptHook(Runnable stop, Duration bound) {
    this.stop = stop;
    this.bound = bound;
    this.hook = new Thread(this::onShutdown, "hostpace-interrupted");
  }

  /** A hook for a run that {@code stop} stops, installed in this JVM until {@link #close()}. */
  static InterruptHook install(Runnable stop) {
    InterruptHook installed = new InterruptHook(stop, BOUND);
    Runtime.getRuntime().addShutdownHook(installed.hook);
    return installed;
  }

  /** What the hook does when the JVM shuts down before the run ended: stop it, wait for it. */
  void onShutdown() {
    if (ended.getCount() == 0) {
      return; // ended already: the JVM exits for another reason
    }
    interrupted.set(true);
    stop.run();
    try {
      ended.await(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether the run was told to stop. */
  boolean interrupted() {
    return interrupted.get();
  }

  /** The run has printed what it prints and saved what it saves: the JVM may go. */
  void ended() {
    ended.countDown();
  }

  /** Ends the run and takes the hook out of the JVM, unless the JVM is already shutting down. */
  @Override
  public void close() {
    ended();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs, or has run, and finds the run ended
    }
  }
}

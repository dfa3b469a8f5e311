package io.hostpace.testkit;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A call made on a thread of its own, for a test that interrupts a caller (SPEC T5): what the
 * call threw, and whether its thread was still interrupted when it did, so the test can check
 * that the client's exception came and the interrupt was kept.
 */
public final class CallerThread {

  /** The call: the client's own method, which may throw anything. */
  @FunctionalInterface
  public interface Call {
    /** Makes the call. */
    void run() throws Exception;
  }

  private final Thread thread;
  private final AtomicReference<Throwable> thrown = new AtomicReference<>();
  private final AtomicReference<Boolean> interruptKept = new AtomicReference<>();

  private CallerThread(Call call) {
    this.thread = new Thread(() -> {
      try {
        call.run();
      } catch (Throwable t) {
        thrown.set(t);
        interruptKept.set(Thread.currentThread().isInterrupted());
      }
    });
  }

  /** Starts {@code call} on a new thread. */
  public static CallerThread start(Call call) {
    CallerThread caller = new CallerThread(call);
    caller.thread.start();
    return caller;
  }

  /** Interrupts the caller's thread. */
  public void interrupt() {
    thread.interrupt();
  }

  /** Waits at most {@code millis} for the call to end. */
  public void join(long millis) throws InterruptedException {
    thread.join(millis);
  }

  /** What the call threw; empty while it has thrown nothing. */
  public AtomicReference<Throwable> thrown() {
    return thrown;
  }

  /** Whether the caller's thread was still interrupted when the call threw; empty until then. */
  public AtomicReference<Boolean> interruptKept() {
    return interruptKept;
  }
}

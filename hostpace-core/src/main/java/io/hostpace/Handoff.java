package io.hostpace;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The changes that threads hand to the engine's lock when they find another thread holding it: a
 * call's arrival or its answer. The lock's holder runs them at its next section's start, or, when
 * they came during its section, right after it lets the lock go ({@code Scheduler.runHandedLeft});
 * so a caller that finds the lock held goes on at once instead of waiting in line for it, as a
 * write buffer is drained by whichever thread holds the cache's lock. They run in the order they
 * were handed over, so one thread's changes keep their order, and before anything else the lock
 * does, so every section sees every change handed over before it began.
 *
 * <p>About {@link #LIMIT} wait at most (a few more when many threads hand over at the same
 * instant): a thread that finds as many waiting takes the lock and waits for it, so that no
 * caller runs far ahead of the engine's bookkeeping, and what waits here stays small.
 */
final class Handoff {

  /** How many changes may wait for the lock's holder. */
  static final int LIMIT = 16;

  private final ConcurrentLinkedQueue<Runnable> changes = new ConcurrentLinkedQueue<>();
  /** About how many wait: counted after they are in, and uncounted as they are taken out. */
  private final AtomicInteger count = new AtomicInteger();

  /** Hands {@code change} over; false, and nothing handed, when {@link #LIMIT} wait already. */
  boolean offer(Runnable change) {
    if (count.get() >= LIMIT) {
      return false;
    }
    changes.offer(change);
    count.incrementAndGet();
    return true;
  }

  /**
   * Whether a change waits. Read by a thread that has just let the lock go, after that, and by one
   * that has just handed a change over, before it tries the lock: so of two such threads at least
   * one sees the other's, and a change is never left with the lock free and nobody to run it.
   */
  boolean waiting() {
    return !changes.isEmpty();
  }

  /** The oldest change waiting, taken out; null when none does. Under the engine's lock. */
  @Nullable Runnable poll() {
    Runnable change = changes.poll();
    if (change != null) {
      count.decrementAndGet();
    }
    return change;
  }
}

package io.hostpace;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * A clock and a timer in virtual time, for tests and simulations: time stands still until
 * {@link #advance(Duration)} moves it, and the tasks that fall due run then, in time order,
 * on the thread that advanced it.
 *
 * <pre>{@code
 * VirtualTime time = VirtualTime.create();
 * Hostpace engine = Hostpace.builder().clock(time).timer(time).build();
 * // ... hand requests to the engine ...
 * time.advance(Duration.ofSeconds(1));   // requests due within the second start now
 * }</pre>
 *
 * <p>The monotonic origin is random unless given, so code that confuses a nanosecond count
 * with a duration, or overflows on one, fails in tests rather than in production.
 *
 * <p>Invariant: {@code now} only grows; a task scheduled at or before {@code now} runs at the
 * next {@link #advance} or {@link #runDue()}, in the order of its due time and then of
 * scheduling. Thread-safe: time and the task queue are guarded by {@code this}; tasks run
 * outside that lock, so a task may schedule more tasks or read the time.
 *
 * <p>Tasks that each schedule the next at once, for ever, never let time move: after a hundred
 * million tasks at one instant, advancing throws {@link IllegalStateException} rather than holding
 * the thread, so that a test of such a loop fails instead of hanging.
 */
public final class VirtualTime implements Clock, Timer {

  private static final Instant DEFAULT_WALL_ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

  private final long originNanos;
  private final Instant wallOrigin;

  @GuardedBy("this")
  private long now;
  @GuardedBy("this")
  private long sequence;
  @GuardedBy("this")
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  /**
   * How many tasks may run at one instant before time is taken to be stuck: tasks that each
   * schedule the next at once, for ever, would else hold the thread that advanced it with time
   * standing still, and a test would hang rather than fail. Far above what any run hands over at
   * one instant.
   */
  private volatile long tasksAtOneInstant = DEFAULT_TASKS_AT_ONE_INSTANT;

  static final long DEFAULT_TASKS_AT_ONE_INSTANT = 100_000_000L;

  private VirtualTime(long originNanos, Instant wallOrigin) {
    this.originNanos = originNanos;
    this.wallOrigin = wallOrigin;
    this.now = originNanos;
  }

  /**
   * Virtual time with a random monotonic origin (anywhere in a range of about ±146 years)
   * and the wall clock at 2026-01-01T00:00:00Z.
   */
  public static VirtualTime create() {
    return startingAt(ThreadLocalRandom.current().nextLong(-(1L << 62), 1L << 62), DEFAULT_WALL_ORIGIN);
  }

  /** Virtual time whose {@link #nanoTime()} starts at {@code originNanos} and wall clock at {@code wallOrigin}. */
  public static VirtualTime startingAt(long originNanos, Instant wallOrigin) {
    return new VirtualTime(originNanos, wallOrigin);
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public synchronized Instant instant() {
    return wallOrigin.plusNanos(now - originNanos);
  }

  /** How much virtual time has passed since this clock was created. */
  public synchronized Duration elapsed() {
    return Duration.ofNanos(now - originNanos);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    Task scheduled;
    synchronized (this) {
      scheduled = new Task(now + Math.max(0, delayNanos), sequence++, task);
      tasks.add(scheduled);
    }
    return () -> {
      synchronized (VirtualTime.this) {
        scheduled.cancelled = true;
        tasks.remove(scheduled);
      }
    };
  }

  /** Moves time forward by {@code duration}, running every task that falls due on the way at its own time. */
  public void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("cannot advance virtual time by a negative duration: " + duration);
    }
    long target;
    synchronized (this) {
      target = now + duration.toNanos();
    }
    runUntil(target);
  }

  /** Runs the tasks due now, including those they schedule for now, without moving time. */
  public void runDue() {
    long current;
    synchronized (this) {
      current = now;
    }
    runUntil(current);
  }

  /**
   * Moves time to each next task and runs it, until no task is left or {@code limit} has
   * passed; returns how long that took in virtual time.
   */
  public Duration runUntilIdle(Duration limit) {
    long start;
    long end;
    synchronized (this) {
      start = now;
      end = now + limit.toNanos();
    }
    while (true) {
      @Nullable Task next;
      synchronized (this) {
        next = tasks.peek();
        if (next == null || next.due - end > 0) {
          break;
        }
      }
      runUntil(next.due);
    }
    synchronized (this) {
      return Duration.ofNanos(now - start);
    }
  }

  /** The number of tasks scheduled and not yet run. */
  public synchronized int pendingTasks() {
    return tasks.size();
  }

  /** Sets how many tasks may run at one instant before time is taken to be stuck; for this package's tests. */
  VirtualTime limitTasksAtOneInstant(long tasks) {
    this.tasksAtOneInstant = tasks;
    return this;
  }

  private void runUntil(long target) {
    long instant = 0;
    long ranThere = 0;
    while (true) {
      List<Task> due = new ArrayList<>();
      long at;
      synchronized (this) {
        Task head = tasks.peek();
        if (head == null || head.due - target > 0) {
          if (target - now > 0) {
            now = target;
          }
          return;
        }
        at = head.due;
        if (at - now > 0) {
          now = at;
        }
        while (!tasks.isEmpty() && tasks.peek().due == at) {
          due.add(tasks.poll());
        }
      }
      ranThere = at == instant ? ranThere + due.size() : due.size();
      instant = at;
      if (ranThere > tasksAtOneInstant) {
        throw new IllegalStateException("virtual time is stuck: more than " + tasksAtOneInstant
            + " tasks ran at one instant, each scheduling more for it (a loop of tasks that never waits)");
      }
      for (Task task : due) {
        boolean cancelled;
        synchronized (this) {
          cancelled = task.cancelled;
        }
        if (!cancelled) {
          task.action.run();
        }
      }
    }
  }

  private static final class Task implements Comparable<Task> {
    final long due;
    final long sequence;
    final Runnable action;
    // Guarded by the owning VirtualTime's monitor, which a static class cannot name to Error
    // Prone's @GuardedBy: every access is inside synchronized (VirtualTime.this).
    boolean cancelled;

    Task(long due, long sequence, Runnable action) {
      this.due = due;
      this.sequence = sequence;
      this.action = action;
    }

    @Override
    public int compareTo(Task other) {
      int byTime = Long.compare(due - other.due, 0);
      return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
    }
  }
}

package io.hostpace;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * When the engine looks again at the nodes it keeps while only time stands in the way of letting
 * them go ({@link Nodes#dropIfIdle}): each node's time in one queue, earliest first, and one task on
 * the timer, armed for the earliest. An engine keeps a node for every host it met within its forget
 * time, a crawler's for hundreds of thousands; a task on the timer for each would add room to every
 * node kept, and as many entries to the timer's queue.
 *
 * <p>Example: nodes due at 3,600 s, 3,600 s and 3,700 s hold one task, armed for 3,600 s; it looks
 * at the first two (each perhaps due again, later) and arms the next for 3,700 s. A node due
 * before the task armed moves the task earlier.
 *
 * <p>Guarded by its own monitor: the {@link LocalPath} lets nodes go under their own monitor, not
 * the engine's lock. It takes no other lock inside: it comes after the engine's lock and a node's
 * monitor. The looks themselves run as the timer's task, under the engine's lock
 * ({@code underLock}), outside this monitor.
 */
final class Looks {

  private final Clock clock;
  private final Timer timer;
  private final Consumer<Runnable> underLock;
  private final Consumer<Node> look;
  /** Earliest first; nodes due at one time in the order they were added, as the timer runs its tasks. */
  private final PriorityQueue<Node> due = new PriorityQueue<>((a, b) -> a.lookAt != b.lookAt
      ? Long.compare(a.lookAt - b.lookAt, 0) : Long.compare(a.lookSeq, b.lookSeq));
  private long added;
  /** The timer's task for the earliest look, and when it is due; null when none is armed. */
  private Timer.@Nullable Cancellable armed;
  private long armedAt;

  /** Looks run {@code look} on each node whose time came, through {@code underLock}. */
  Looks(Clock clock, Timer timer, Consumer<Runnable> underLock, Consumer<Node> look) {
    this.clock = clock;
    this.timer = timer;
    this.underLock = underLock;
    this.look = look;
  }

  /** Looks at {@code node} again at {@code at}; the caller keeps one look a node ({@link Node#cleanupScheduled}). */
  synchronized void add(Node node, long at, long now) {
    node.lookAt = at;
    node.lookSeq = added++;
    due.add(node);
    arm(now);
  }

  /** The nodes waiting for a look, for tests. */
  synchronized int size() {
    return due.size();
  }

  /** Arms the timer's task for the earliest look, unless one is armed for it or earlier. */
  private void arm(long now) {
    Node first = due.peek();
    if (first == null || armed != null && armedAt - first.lookAt <= 0) {
      return;
    }
    if (armed != null) {
      armed.cancel();
    }
    armedAt = first.lookAt;
    armed = timer.schedule(() -> underLock.accept(this::lookDue), first.lookAt - now);
  }

  /**
   * The timer's task: looks at every node due by now, then arms the task for the next. A node that
   * a look makes due again joins the queue for a later task, not this one.
   */
  private void lookDue() {
    long now = clock.nanoTime();
    List<Node> nodes = new ArrayList<>();
    synchronized (this) {
      armed = null;
      while (!due.isEmpty() && due.peek().lookAt - now <= 0) {
        nodes.add(due.poll());
      }
    }
    for (Node node : nodes) {
      look.accept(node);
    }
    synchronized (this) {
      arm(clock.nanoTime());
    }
  }
}

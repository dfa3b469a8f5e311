package io.hostpace;

import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * What the decisions of one locked section set in motion: the calls that started and the events
 * for the listener. Both are collected under the engine's lock and delivered after it is let go,
 * so that neither a listener nor an HTTP client ever runs under the lock. Guarded by the
 * engine's lock, but for {@link #unlockAndDeliver}'s delivery.
 */
final class Outbox {

  private final @Nullable HostpaceListener listener;
  private final ArrayList<Call<?>> started = new ArrayList<>();
  private final ArrayList<HostpaceEvent> events = new ArrayList<>();
  /** How many events were built, for the test that none is without a listener. */
  private long eventsBuilt;

  Outbox(@Nullable HostpaceListener listener) {
    this.listener = listener;
  }

  /** Whether anybody listens: events are built only then. */
  boolean listens() {
    return listener != null;
  }

  /** Records an event; callers build it only when {@link #listens()}. */
  void emit(HostpaceEvent event) {
    events.add(event);
    eventsBuilt++;
  }

  /** {@code call} started an attempt: it is dispatched once the lock is let go. */
  void started(Call<?> call) {
    started.add(call);
  }

  long eventsBuilt() {
    return eventsBuilt;
  }

  /**
   * Lets {@code lock} go, then tells the listener what was decided and dispatches the calls that
   * started, in that order. A listener that throws cannot break the engine.
   */
  void unlockAndDeliver(ReentrantLock lock) {
    if (started.isEmpty() && events.isEmpty()) {
      lock.unlock();
      return;
    }
    Call<?>[] starting = started.toArray(new Call<?>[0]);
    HostpaceEvent[] heard = events.isEmpty() ? null : events.toArray(new HostpaceEvent[0]);
    started.clear();
    events.clear();
    lock.unlock();
    HostpaceListener listener = this.listener;
    if (heard != null && listener != null) {
      for (HostpaceEvent event : heard) {
        try {
          listener.onEvent(event);
        } catch (RuntimeException e) {
          // a listener that throws cannot break the engine
        }
      }
    }
    for (Call<?> call : starting) {
      call.dispatch();
    }
  }
}

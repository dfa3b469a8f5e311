package io.hostpace;

import java.util.ArrayList;
import org.jspecify.annotations.Nullable;

/**
 * What the decisions of one locked section set in motion: the calls that started and the events
 * for the listener. Both are collected under the engine's lock and delivered after it is let go,
 * so that neither a listener nor an HTTP client ever runs under the lock. Guarded by the
 * engine's lock, but for {@link #deliver}.
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
   * Takes out what the locked section set in motion, under the lock: null when nothing, else the
   * events, then the calls that started, in one array (one allocation, not two), for
   * {@link #deliver} once the lock is let go.
   */
  Object @Nullable [] take() {
    int events = this.events.size();
    int calls = started.size();
    if (events + calls == 0) {
      return null;
    }
    Object[] taken = new Object[events + calls];
    for (int i = 0; i < events; i++) {
      taken[i] = this.events.get(i);
    }
    for (int i = 0; i < calls; i++) {
      taken[events + i] = started.get(i);
    }
    this.events.clear();
    started.clear();
    return taken;
  }

  /**
   * After the lock: tells the listener each event, then dispatches each call that started, as
   * {@link #take} left them. A listener that throws cannot break the engine.
   */
  void deliver(Object @Nullable [] taken) {
    if (taken == null) {
      return;
    }
    HostpaceListener listener = this.listener;
    for (Object each : taken) {
      if (each instanceof Call<?> call) {
        call.dispatch();
      } else if (listener != null) {
        try {
          listener.onEvent((HostpaceEvent) each);
        } catch (RuntimeException e) {
          // a listener that throws cannot break the engine
        }
      }
    }
  }
}

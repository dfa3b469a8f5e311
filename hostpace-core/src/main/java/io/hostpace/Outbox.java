package io.hostpace;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the decisions of one locked section set in motion: the calls that started and the events
 * for the listeners and the log. Both are collected under the engine's lock and delivered after
 * it is let go, so that neither a listener, the log nor an HTTP client ever runs under the lock.
 * This is the one place events reach anybody: each is logged at {@code DEBUG} when that is on
 * ({@link EventLog}), then told to each listener in the order they were added; a listener that
 * throws is logged and keeps no other from hearing. Guarded by the engine's lock, but for
 * {@link #deliver}.
 */
final class Outbox {

  private final HostpaceListener[] listeners;
  final EventLog log;
  private final ArrayList<Call<?>> started = new ArrayList<>();
  private final ArrayList<HostpaceEvent> events = new ArrayList<>();
  /** How many events were built, for the test that none is without a listener. */
  private long eventsBuilt;

  Outbox(List<HostpaceListener> listeners, EventLog log) {
    this.listeners = listeners.toArray(new HostpaceListener[0]);
    this.log = log;
  }

  /** Whether anybody listens, a listener or the log at {@code DEBUG}: events are built only then. */
  boolean listens() {
    return listeners.length > 0 || log.decisions();
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
   * After the lock: logs each event and tells the listeners, then dispatches each call that
   * started, as {@link #take} left them. A listener that throws cannot break the engine.
   */
  void deliver(Object @Nullable [] taken) {
    if (taken == null) {
      return;
    }
    boolean logged = log.decisions(); // once per delivery, not per event
    for (Object each : taken) {
      if (each instanceof Call<?> call) {
        call.dispatch();
      } else {
        HostpaceEvent event = (HostpaceEvent) each;
        if (logged) {
          log.decided(event);
        }
        for (HostpaceListener listener : listeners) {
          try {
            listener.onEvent(event);
          } catch (RuntimeException e) { // a listener that throws cannot break the engine, nor the others
            log.listenerThrew(listener, e);
          }
        }
      }
    }
  }
}

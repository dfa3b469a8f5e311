package io.hostpace;

import java.util.ArrayList;
import java.util.Arrays;
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
 *
 * <h2>Who sends a call that started (SPEC P13)</h2>
 * A call on the {@link Trampoline} is sent by the thread that delivers it, so a delivery is work:
 * the attempt is sent, and when it is answered at once, judged and settled, which may start
 * more. The invariant: <em>a thread sends its own calls, and of other threads' calls at most
 * {@link #SHARE} for each call it runs from outside a delivery</em>; so no thread can be kept
 * sending other threads' calls for as long as they keep submitting. {@link #take} therefore
 * gives the taking thread every event, and of the calls:
 * <ul>
 *   <li>its own ({@link Call#owner}), and those of a blocking caller, whose delivery only hands
 *       the attempt to the caller's thread;
 *   <li>outside a delivery (the thread is not {@link Trampoline.Turn#draining draining}: a
 *       caller submitting, the timer, a client's thread with an answer), every call its own
 *       section started, so that the requests that may start together are sent together
 *       (SPEC P11);
 *   <li>inside a delivery, other threads' calls while its {@link Trampoline.Turn#share share}
 *       lasts.
 * </ul>
 * The calls it does not take are <em>left</em>, in the order they started, for the next
 * section of their owner, which takes them whatever it is. An owner may never come back (it
 * waits for its futures, or is done): so a delivery that ends with calls left hands them to the
 * timer ({@code leftOver}), whose turn ({@link #takeAll}) sends them all.
 *
 * <p>Example: two threads submit to a host that opens with one request in flight (SPEC P12),
 * each answered at once. Thread A's answer widens the opening and starts B's next two calls; A
 * sends the first as its share, leaves the second, and returns to its own submitting; B's next
 * submission takes the one left and sends it. Each thread sends about its own calls, and neither
 * submits while the other works for it.
 */
final class Outbox implements Events {

  /** Of other threads' calls, how many a thread takes on for each call it runs from outside a delivery. */
  static final int SHARE = 1;

  private final HostpaceListener[] listeners;
  final EventLog log;
  /** Run when a delivery ends with calls left: the timer is to send them if their owners do not. */
  private final Runnable leftOver;
  /** The calls started and not yet taken: the first {@link #left} were left by earlier sections. */
  private final ArrayList<Call<?>> started = new ArrayList<>();
  /** How many calls earlier sections left; written under the lock, read after it by {@link #deliver}. */
  private volatile int left;
  /**
   * The events, the calls a handed-over change failed ({@link Failed}) and the learning rule's
   * failures ({@link RuleThrew}), in the order they came.
   */
  private final ArrayList<Object> events = new ArrayList<>();
  /** How many events were built, for the test that none is without a listener. */
  private long eventsBuilt;

  Outbox(List<HostpaceListener> listeners, EventLog log, Runnable leftOver) {
    this.listeners = listeners.toArray(new HostpaceListener[0]);
    this.log = log;
    this.leftOver = leftOver;
  }

  /** Whether anybody listens, a listener or the log at {@code DEBUG}: events are built only then. */
  @Override
  public boolean listens() {
    return listeners.length > 0 || log.decisions();
  }

  /** Records an event; callers build it only when {@link #listens()}. */
  @Override
  public void emit(HostpaceEvent event) {
    events.add(event);
    eventsBuilt++;
  }

  /** {@code call} started an attempt: it is dispatched once the lock is let go. */
  void started(Call<?> call) {
    started.add(call);
  }

  /**
   * The calls started so far were started by changes other threads handed over ({@link Handoff}):
   * they are left for their owners, as an earlier section's are, so that the thread that ran the
   * changes sends only its share of them.
   */
  void leaveForOwners() {
    if (left != started.size()) {
      left = started.size();
    }
  }

  /**
   * A change handed over for {@code call} could not be made ({@code failure}: the engine closed
   * before it ran, or it threw): the call's future ends with it once the lock is let go.
   */
  void failed(Call<?> call, Throwable failure) {
    events.add(new Failed(call, failure));
  }

  /** A call to end with {@code failure} after the lock; see {@link #failed}. */
  private record Failed(Call<?> call, Throwable failure) {}

  /** The learning rule threw: logged after the lock, in its place among the events. */
  @Override
  public void ruleThrew(Object rule, Throwable failure) {
    events.add(new RuleThrew(rule, failure));
  }

  /** What {@link #ruleThrew} keeps for the log. */
  private record RuleThrew(Object rule, Throwable failure) {}

  /** Whether earlier sections left calls for their owners; read without the lock. */
  boolean hasLeft() {
    return left > 0;
  }

  long eventsBuilt() {
    return eventsBuilt;
  }

  /**
   * Takes out what the locked section set in motion, under the lock, for the calling thread: null
   * when nothing, else the events, then the calls it is to send (see the class comment), for
   * {@link #deliver} once the lock is let go: the one event or call itself when there is one (most
   * sections start one call or none), else all in one array.
   */
  @Nullable Object take() {
    return take(false);
  }

  /** {@link #take}, and every call left besides: the timer's turn, for calls whose owners did not come back. */
  @Nullable Object takeAll() {
    return take(true);
  }

  private @Nullable Object take(boolean all) {
    int events = this.events.size();
    int calls = started.size();
    if (events + calls == 0) {
      return null;
    }
    if (events + calls == 1 && left == 0) {
      Object one = events == 1 ? this.events.get(0) : started.get(0);
      if (events == 1 || takes(started.get(0), all, Thread.currentThread(), true)) {
        this.events.clear();
        started.clear();
        return one;
      }
    }
    Object[] taken = new Object[events + calls];
    for (int i = 0; i < events; i++) {
      taken[i] = this.events.get(i);
    }
    int count = events;
    int kept = 0;
    int earlier = left;
    Thread self = Thread.currentThread();
    for (int i = 0; i < calls; i++) {
      Call<?> call = started.get(i);
      if (takes(call, all, self, i >= earlier)) {
        taken[count++] = call;
      } else {
        started.set(kept++, call);
      }
    }
    this.events.clear();
    for (int i = calls - 1; i >= kept; i--) { // from the end: no view of the list, nothing moved
      started.remove(i);
    }
    if (kept != earlier) {
      left = kept;
    }
    return count == taken.length ? taken : Arrays.copyOf(taken, count);
  }

  /**
   * Whether the thread {@code self} takes {@code call}: every call for the timer's turn
   * ({@code all}), its own, and a blocking caller's; another thread's inside a delivery while its
   * share lasts (spending it), outside one when its own section started the call ({@code ours}),
   * not what others left.
   */
  private static boolean takes(Call<?> call, boolean all, Thread self, boolean ours) {
    Thread owner = call.owner;
    if (all || owner == null || owner == self) {
      return true;
    }
    Trampoline.Turn turn = Trampoline.turn();
    if (turn.draining) {
      if (turn.share > 0) {
        turn.share--;
        return true;
      }
      return false;
    }
    return ours;
  }

  /**
   * After the lock: logs each event and tells the listeners, then dispatches each call that
   * started, as {@link #take} left them. A listener that throws cannot break the engine. A
   * delivery from outside any other (its calls' answers settled on the way) that ends with calls
   * left hands them to the timer.
   */
  void deliver(@Nullable Object taken) {
    if (taken == null) {
      return;
    }
    if (taken instanceof Object[] all) {
      deliverEach(all);
    } else {
      deliverOne(taken, log.decisions());
    }
    handOverLeft();
  }

  /**
   * Hands the calls left to the timer when this thread's delivery, from outside any other, has
   * ended ({@link #deliver}, or a call of the {@link LocalPath} dispatched and run): their owners
   * may not come back for them.
   */
  void handOverLeft() {
    if (left > 0 && !Trampoline.turn().draining) {
      leftOver.run();
    }
  }

  /**
   * Delivers {@code events} the {@link LocalPath} made under a host's monitor, after it: as
   * {@link #deliver} does, without the lock, which they never were in.
   */
  void tell(List<HostpaceEvent> events) {
    boolean logged = log.decisions();
    for (int i = 0; i < events.size(); i++) {
      deliverOne(events.get(i), logged);
    }
  }

  private void deliverEach(Object[] taken) {
    boolean logged = log.decisions(); // once per delivery, not per event
    for (Object each : taken) {
      deliverOne(each, logged);
    }
  }

  private void deliverOne(Object each, boolean logged) {
    if (each instanceof Call<?> call) {
      call.dispatch();
    } else if (each instanceof Failed failed) {
      failed.call.result.completeExceptionally(failed.failure);
    } else if (each instanceof RuleThrew threw) {
      log.ruleThrew(threw.rule, threw.failure);
    } else {
      HostpaceEvent event = (HostpaceEvent) each;
      if (logged) {
        log.decided(event);
      }
      for (HostpaceListener listener : listeners) {
        try {
          listener.onEvent(event);
        } catch (Throwable e) {
          // A listener that throws cannot break the engine, nor the others: an Error (an assertion
          // in a test's listener) let through would reach the caller, the calls after it unsent.
          log.listenerThrew(listener, e);
        }
      }
    }
  }
}

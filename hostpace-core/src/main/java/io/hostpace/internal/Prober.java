package io.hostpace.internal;

import io.hostpace.timeout.Budget;
import io.hostpace.timeout.Outcome;
import io.hostpace.timeout.TimeoutPolicy;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.Clock;
import io.hostpace.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Sends the probes a {@link TimeoutPolicy} asks for, when it asks (SPEC D6): the engine runs one
 * with its host queues as the {@link Sender}, and the timeout simulator runs the same class with
 * its model of a server, so that what the simulator claims of probes is what the engine does.
 *
 * <p>The schedule, as the policy states it ({@link TimeoutPolicy#probe}, {@link
 * TimeoutPolicy#probeIn}):
 *
 * <ul>
 * <li><b>On the timer</b>, while an endpoint is held: down, at the end of each cool-down (1 s,
 *     doubling with each failed probe up to 60 s, by default); degraded, at its decay (after 5
 *     minutes, or 4 reduced budgets, counted again from each failed probe).
 * <li><b>Before a request</b>: a request that comes for a held endpoint, and would fail fast or
 *     get the reduced budget, waits for a probe before it is queued, holding no place: the one
 *     out, or a new one when none is. It then goes with what the probe left: the full budget after
 *     a success; a failure fast, or the reduced budget, after a failure.
 * </ul>
 *
 * <p>One probe per endpoint is out at a time. Its end is told to the policy ({@link
 * TimeoutPolicy#onProbe}), then the next probe is scheduled, then the requests that waited for it
 * go on. Example, with the defaults and a 2 s probe budget: down at 3 s, so the timer probes at 4 s;
 * refused in 5 ms, the cool-down is 2 s, and the timer probes again at 6.005 s. A request that
 * comes at 5 s is not failed blind: it waits for a probe of its own, and goes with the full budget
 * at 5.05 s if that probe was answered in time.
 *
 * <p>Invariant: an endpoint has an entry here iff the policy held it when last asked, or a probe of
 * it is out; an entry has a timer iff no probe of it is out and the policy gave a time. Thread-safe:
 * entries are guarded by {@code lock}, which is never held while a probe is sent, nor while the
 * requests that waited are let go. At most {@value #CAPACITY} endpoints are held, the least
 * recently used forgotten (its timer then finds nothing to do). A policy that throws is taken as
 * one that wants no probe (from {@link TimeoutPolicy#probe}) or holds nothing (from {@link
 * TimeoutPolicy#probeIn}), and told to {@link Failures}: the requests that wait always go. After
 * its probe threw, the timer asks for the endpoint's next as after a failed probe, 1 s later,
 * doubling up to 60 s until it answers again, however soon its {@code probeIn} says: a policy
 * that keeps throwing is not asked in a loop.
 *
 * @param <S> what the sender needs of an endpoint's requests to build its probe (the engine's: the
 *     last request's URI and context)
 */
public final class Prober<S> {

  static final int CAPACITY = 10_000;

  /** Sends one probe. */
  @FunctionalInterface
  public interface Sender<S> {
    /**
     * Sends the probe of {@code endpoint}, whose requests {@code seen} describes, cut off after
     * {@code budget}; completes with {@link Outcome#SUCCESS} when it was answered in time as the
     * probe counts healthy, with any other outcome when not. A future that fails, or a sender that
     * throws, counts as a failed probe.
     */
    CompletableFuture<Outcome> send(String endpoint, S seen, Budget budget);
  }

  /**
   * What the prober does with what its policy threw, an exception or an {@code Error}: the engine
   * logs it, the simulator throws it on. The prober goes on as {@code wentOn} says, so that no
   * request waits on a policy that failed.
   */
  @FunctionalInterface
  public interface Failures {
    void policyThrew(Throwable failure, String wentOn);
  }

  /** One held endpoint. */
  private static final class Held<S> {
    S seen;
    /** The probe out, completed once the policy was told its end; null when none is out. */
    @Nullable CompletableFuture<@Nullable Void> out;
    Timer.@Nullable Cancellable timer;
    long timerAt;
    /** How long the timer waits after the policy's last probe threw, 0 once it answered; no timer before {@link #quietUntil}. */
    long backoff;
    long quietUntil;

    Held(S seen) {
      this.seen = seen;
    }
  }

  private static final CompletableFuture<@Nullable Void> NONE = CompletableFuture.completedFuture(null);
  /** The least a timer that found nothing due waits before it asks again. */
  private static final long RETRY_NANOS = 1_000_000;
  /** The timer's wait after the policy's probe threw, doubled at each throw up to {@link #MOST_BACKOFF_NANOS}: a failed probe's cool-down. */
  private static final long FIRST_BACKOFF_NANOS = 1_000_000_000L;
  private static final long MOST_BACKOFF_NANOS = 60_000_000_000L;

  private final TimeoutPolicy policy;
  private final Clock clock;
  private final Timer timer;
  private final Sender<S> sender;
  private final Failures failures;
  private final ReentrantLock lock = new ReentrantLock();
  @GuardedBy("lock")
  private final Lru<String, Held<S>> held = new Lru<>(CAPACITY);
  /** Set by {@link #close}: nothing is held or probed from then on. */
  @GuardedBy("lock")
  private boolean closed;

  /**
   * Probes for {@code policy}, on {@code timer}, through {@code sender}; what the policy throws goes
   * to {@code failures}.
   */
  public Prober(TimeoutPolicy policy, Clock clock, Timer timer, Sender<S> sender, Failures failures) {
    this.policy = policy;
    this.clock = clock;
    this.timer = timer;
    this.sender = sender;
    this.failures = failures;
  }

  /**
   * The policy's probe of {@code endpoint} now; null, no probe, when it throws, and then the
   * endpoint's {@code entry}, if any, backs its timer off.
   */
  @GuardedBy("lock")
  private @Nullable Budget probe(long now, String endpoint, @Nullable String kind, @Nullable Held<S> entry) {
    try {
      Budget budget = policy.probe(now, endpoint, kind);
      if (entry != null) {
        entry.backoff = 0;
      }
      return budget;
    } catch (RuntimeException | Error e) {
      failures.policyThrew(e, "no probe was sent, and the request went on");
      if (entry != null) {
        entry.backoff = entry.backoff == 0 ? FIRST_BACKOFF_NANOS : Math.min(MOST_BACKOFF_NANOS, 2 * entry.backoff);
        entry.quietUntil = now + entry.backoff;
      }
      return null;
    }
  }

  /** When the policy would probe {@code endpoint}; -1, not held, when it throws. */
  private long probeIn(long now, String endpoint) {
    try {
      return policy.probeIn(now, endpoint);
    } catch (RuntimeException | Error e) {
      failures.policyThrew(e, "the endpoint was taken as not held");
      return -1;
    }
  }

  /**
   * Before a request of {@code kind} for {@code endpoint} is queued: the future it waits for, which
   * completes once the probe it must wait for has ended and the policy knows it; done at once when
   * it need not wait. Never completes exceptionally; cancelling it cancels no probe.
   */
  public CompletableFuture<@Nullable Void> beforeRequest(String endpoint, String kind, S seen) {
    CompletableFuture<@Nullable Void> wait;
    Budget budget;
    lock.lock();
    try {
      if (closed) {
        return NONE;
      }
      Held<S> entry = held.get(endpoint);
      if (entry != null && entry.out != null) {
        return entry.out.copy();
      }
      budget = probe(clock.nanoTime(), endpoint, kind, entry);
      if (budget == null) {
        return NONE;
      }
      entry = entry(endpoint, seen);
      wait = claim(entry);
    } finally {
      lock.unlock();
    }
    send(endpoint, seen, budget, wait);
    return wait.copy();
  }

  /**
   * After the policy was told how a request for {@code endpoint} ended: schedules its next probe
   * if the policy now holds it, and forgets it if not.
   */
  public void afterOutcome(String endpoint, S seen) {
    lock.lock();
    try {
      long now = clock.nanoTime();
      long in = probeIn(now, endpoint);
      Held<S> entry = held.get(endpoint);
      if (in < 0) {
        if (entry != null && entry.out == null) {
          forget(endpoint, entry);
        }
        return;
      }
      entry = entry(endpoint, seen);
      schedule(endpoint, entry, now, in);
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private Held<S> entry(String endpoint, S seen) {
    Held<S> entry = held.get(endpoint);
    if (entry == null) {
      entry = new Held<>(seen);
      held.put(endpoint, entry);
    }
    entry.seen = seen;
    return entry;
  }

  @GuardedBy("lock")
  private CompletableFuture<@Nullable Void> claim(Held<S> entry) {
    if (entry.timer != null) {
      entry.timer.cancel(); // the probe it was for goes now
      entry.timer = null;
    }
    CompletableFuture<@Nullable Void> wait = new CompletableFuture<>();
    entry.out = wait;
    return wait;
  }

  /** The timer's probe is due: sends it if the policy still wants it. */
  private void fire(String endpoint) {
    CompletableFuture<@Nullable Void> wait;
    Budget budget;
    S seen;
    lock.lock();
    try {
      Held<S> entry = held.get(endpoint);
      if (entry == null || entry.out != null) {
        return; // forgotten, or a request's probe went first: its end schedules the next
      }
      entry.timer = null;
      long now = clock.nanoTime();
      budget = probe(now, endpoint, null, entry);
      if (budget == null) {
        long in = probeIn(now, endpoint);
        if (in < 0) {
          forget(endpoint, entry);
        } else {
          schedule(endpoint, entry, now, Math.max(in, RETRY_NANOS));
        }
        return;
      }
      seen = entry.seen;
      wait = claim(entry);
    } finally {
      lock.unlock();
    }
    send(endpoint, seen, budget, wait);
  }

  private void send(String endpoint, S seen, Budget budget, CompletableFuture<@Nullable Void> wait) {
    long sentAt = clock.nanoTime();
    CompletableFuture<Outcome> probe;
    try {
      probe = sender.send(endpoint, seen, budget);
    } catch (RuntimeException | Error e) {
      probe = CompletableFuture.failedFuture(e);
    }
    probe.whenComplete((outcome, failure) -> ended(endpoint, wait,
        failure != null || outcome == null ? Outcome.SERVER_ERROR : outcome, sentAt));
  }

  private void ended(String endpoint, CompletableFuture<@Nullable Void> wait, Outcome outcome, long sentAt) {
    long now = clock.nanoTime();
    try {
      policy.onProbe(now, endpoint, outcome, now - sentAt);
    } catch (RuntimeException | Error e) {
      // A policy that throws cannot stop the requests that wait.
      failures.policyThrew(e, "the probe's outcome went untold");
    }
    lock.lock();
    try {
      Held<S> entry = held.get(endpoint);
      if (entry != null && entry.out == wait) {
        entry.out = null;
        long in = probeIn(now, endpoint);
        if (in < 0) {
          forget(endpoint, entry);
        } else {
          schedule(endpoint, entry, now, in);
        }
      }
    } finally {
      lock.unlock();
    }
    wait.complete(null);
  }

  /**
   * Arms the entry's timer {@code in} from {@code now}, or once its back-off ends if later, unless a
   * probe is out or it is armed sooner.
   */
  @GuardedBy("lock")
  private void schedule(String endpoint, Held<S> entry, long now, long in) {
    if (entry.out != null || closed) {
      return;
    }
    long at = now + in;
    if (entry.backoff > 0 && entry.quietUntil - at > 0) {
      at = entry.quietUntil;
    }
    if (entry.timer != null) {
      if (entry.timerAt - at <= 0) {
        return;
      }
      entry.timer.cancel();
    }
    entry.timerAt = at;
    entry.timer = timer.schedule(() -> fire(endpoint), at - now);
  }

  @GuardedBy("lock")
  private void forget(String endpoint, Held<S> entry) {
    if (entry.timer != null) {
      entry.timer.cancel();
      entry.timer = null;
    }
    held.remove(endpoint);
  }

  /**
   * Probes nothing more: the timers of the next probes are cancelled, and the requests that wait
   * for a probe out go on at once, to the closing engine that ends them; the probe itself goes on
   * to its end, which changes nothing more. Closing again does nothing.
   */
  public void close() {
    List<CompletableFuture<@Nullable Void>> waits = new ArrayList<>();
    lock.lock();
    try {
      closed = true;
      for (Held<S> entry : held.values()) {
        if (entry.timer != null) {
          entry.timer.cancel();
          entry.timer = null;
        }
        if (entry.out != null) {
          waits.add(entry.out);
        }
      }
    } finally {
      lock.unlock();
    }
    for (CompletableFuture<@Nullable Void> wait : waits) {
      wait.complete(null);
    }
  }

  @Override
  public String toString() {
    return "Prober(" + policy + ")";
  }
}

package io.hostpace.testing;

import io.hostpace.spi.Fleet;
import io.hostpace.Clock;
import io.hostpace.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A fleet whose processes are engines in one JVM, each of which {@link #join() joins} it: what a
 * Redis fleet does (SPEC S2), with a latency of its own choosing, on a clock and timer of its
 * own. For tests and the simulator, where the engines run on one {@code VirtualTime}: each lesson
 * reaches the other members {@code latency} after it was told, and a claim is looked at
 * {@code latency} after it was asked and answered {@code latency} after that, as a round trip to
 * a server would be. A place claimed with a lease ends that long after it was granted, on the
 * fleet's clock; one claimed without is held until released. A claim that waits for a place
 * when all are held waits in the fleet, behind those that waited before it: each release grants
 * the place to the claim that waited longest, whose process hears it {@code latency} after the
 * release was looked at. What a process keeps of a host
 * (SPEC S3) is stored {@code latency} after it was kept, until it expires; a recall looks
 * {@code latency} after it was asked, and answers {@code latency} after that, and a recall that
 * keeps what was asked if nothing is kept (SPEC S4) does both at once, as Redis's script does.
 */
public final class LocalFleet {

  private final Clock clock;
  private final Timer timer;
  private final long latency;
  private final List<Member> members = new CopyOnWriteArrayList<>();
  private final Map<String, Long> lastStart = new HashMap<>(); // guarded by this
  /** Each key's shortest interval claimed lately, and when that stops holding ({@link #claim}). */
  private final Map<String, Shortest> shortest = new HashMap<>(); // guarded by this
  /**
   * Each key's places held: the holder's id, and when its lease ends, or null for a place held
   * until released (no time of the clock, which may wrap round, stands for that).
   */
  private final Map<String, Map<String, @Nullable Long>> places = new HashMap<>(); // guarded by this
  /** Each key's claims that wait for a place, by the holder's id, oldest first. */
  private final Map<String, LinkedHashMap<String, Waiter>> waiters = new HashMap<>(); // guarded by this
  /** What the members keep of each host (SPEC S3), as of when it was stored. */
  private final Map<String, Stored> stored = new HashMap<>(); // guarded by this

  /** Each host's announced starts left (SPEC R8, S3), and when its announcement resets. */
  private final Map<String, Announced> announced = new HashMap<>(); // guarded by this

  /** A key's shortest interval claimed lately, and when it stops holding unless claimed again. */
  private record Shortest(long interval, long expiresAt) {}

  /** What was kept of a host, the fleet's time it was stored, and when it expires. */
  private record Stored(Fleet.Kept kept, long at, long expiresAt) {}

  /**
   * A fleet on {@code clock} and {@code timer}, each message taking {@code latency} one way.
   *
   * @throws IllegalArgumentException if {@code latency} is negative
   */
  public LocalFleet(Clock clock, Timer timer, Duration latency) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timer = Objects.requireNonNull(timer, "timer");
    if (latency.isNegative()) {
      throw new IllegalArgumentException("a fleet's latency cannot be negative, was " + latency);
    }
    this.latency = latency.toNanos();
  }

  /** A new process of the fleet: the fleet to build its engine with. */
  public Fleet join() {
    Member member = new Member();
    members.add(member);
    return member;
  }

  /**
   * Claims a start of {@code keys} as Redis's script does: granted once, for every key, the
   * shortest interval claimed of it lately has passed since its last start; else the longest wait
   * for that, which every claim that waits is told alike, so a process paced a little slower than
   * the others asks with them and gets its turns (held to its own interval it would never find so
   * long a gap while they claim). A claim whose own interval is longer than that shortest by more
   * than a sixteenth of itself (its pace beyond the noise of the others', as after a refusal it
   * heard) is held to its own. Each claim, granted or not, makes its interval the key's shortest
   * when it is no longer, for one and a half of it; after that the next claim's interval is the
   * shortest, so a fleet that slowed is not held to its old pace.
   */
  private synchronized long claim(List<String> keys, long[] intervals) {
    long now = clock.nanoTime();
    long wait = 0;
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      long interval = intervals[i];
      Shortest lately = shortest.get(key);
      if (lately == null || lately.expiresAt() - now <= 0 || interval <= lately.interval()) {
        long lasts = interval > Long.MAX_VALUE / 3 ? Long.MAX_VALUE / 2 : interval + interval / 2;
        lately = new Shortest(interval, now + lasts);
        shortest.put(key, lately);
      }
      long held = interval - lately.interval() <= interval / 16 ? lately.interval() : interval;
      Long last = lastStart.get(key);
      if (last != null && last + held - now > wait) {
        wait = last + held - now;
      }
    }
    if (wait > 0) {
      return wait;
    }
    for (String key : keys) {
      lastStart.put(key, now);
    }
    return 0;
  }

  private synchronized long claimPlace(String key, String place, int limit, long lease) {
    Map<String, @Nullable Long> held = places.computeIfAbsent(key, k -> new HashMap<>());
    long now = clock.nanoTime();
    held.values().removeIf(end -> end != null && end - now <= 0);
    if (held.containsKey(place)) {
      return held.size();
    }
    if (held.size() >= limit) {
      return 0;
    }
    held.put(place, lease > 0 ? Long.valueOf(now + lease) : null);
    return held.size();
  }

  private synchronized void releasePlace(String key, String place) {
    Map<String, @Nullable Long> held = places.get(key);
    if (held != null) {
      held.remove(place);
      if (held.isEmpty()) {
        places.remove(key);
      }
    }
    LinkedHashMap<String, Waiter> waiting = waiters.get(key);
    if (waiting != null) {
      waiting.remove(place); // a claim that waits is withdrawn
    }
    grant(key);
  }

  /** A claim that waits for one of a key's places: its limit, and what hears its grant. */
  private record Waiter(int limit, Waiting claim) {}

  /**
   * Claims a place of {@code key} as {@link #claimPlace(String, String, int, long)} does one held
   * until released, but records the claim as waiting when all are held (its turn kept if it waited
   * already): then answers {@link Fleet#WAITING}.
   */
  private synchronized long claimWaiting(String key, String place, int limit, Waiting claim) {
    LinkedHashMap<String, Waiter> waiting = waiters.computeIfAbsent(key, k -> new LinkedHashMap<>());
    Map<String, @Nullable Long> held = places.get(key);
    if (held != null && held.containsKey(place)) {
      return held.size();
    }
    grant(key); // the claims that waited go first
    long answer = claimPlace(key, place, limit, 0);
    if (answer > 0) {
      waiting.remove(place);
      return answer;
    }
    waiting.put(place, new Waiter(limit, claim)); // put again, it keeps its turn
    return Fleet.WAITING;
  }

  /** Grants {@code key}'s free places to the claims that waited longest, each told {@code latency} later. */
  private synchronized void grant(String key) {
    LinkedHashMap<String, Waiter> waiting = waiters.get(key);
    while (waiting != null && !waiting.isEmpty()) {
      Map.Entry<String, Waiter> first = waiting.entrySet().iterator().next();
      Map<String, @Nullable Long> held = places.computeIfAbsent(key, k -> new HashMap<>());
      if (held.size() >= first.getValue().limit()) {
        return;
      }
      held.put(first.getKey(), null);
      waiting.remove(first.getKey());
      int count = held.size();
      Waiting claim = first.getValue().claim();
      timer.schedule(() -> claim.granted(count), latency);
    }
  }

  /**
   * One claim that may wait: its answer and its grant, told in that order whatever order they
   * come in (a grant that comes first is told as the answer).
   */
  private static final class Waiting {
    private final LongConsumer then;
    private final LongConsumer granted;
    private boolean answered; // guarded by this
    private long grantedWith; // guarded by this

    Waiting(LongConsumer then, LongConsumer granted) {
      this.then = then;
      this.granted = granted;
    }

    void answer(long held) {
      long told;
      synchronized (this) {
        answered = true;
        told = held == Fleet.WAITING && grantedWith > 0 ? grantedWith : held;
      }
      then.accept(told);
    }

    void granted(long held) {
      synchronized (this) {
        if (!answered) {
          grantedWith = held;
          return;
        }
      }
      granted.accept(held);
    }
  }

  private synchronized void store(String key, Fleet.Kept kept, long keepFor) {
    long now = clock.nanoTime();
    if (kept.nothing()) {
      stored.remove(key);
    } else {
      stored.put(key, new Stored(kept, now, now + keepFor));
    }
  }

  /** What is kept of {@code key} now, its pause as what is left of it; null for nothing. */
  private synchronized Fleet.@Nullable Kept recall(String key) {
    Stored kept = stored.get(key);
    long now = clock.nanoTime();
    if (kept == null || kept.expiresAt() - now <= 0) {
      stored.remove(key);
      return null;
    }
    return kept.kept().after(now - kept.at());
  }

  /** What is kept of {@code key} now, after keeping {@code kept} there if nothing was (SPEC S4): at once, as Redis's script does. */
  private synchronized Fleet.@Nullable Kept recallOrKeep(String key, Fleet.Kept kept, long keepFor) {
    Fleet.Kept now = recall(key);
    if (now != null) {
      return now;
    }
    long at = clock.nanoTime();
    stored.put(key, new Stored(kept, at, at + keepFor)); // nothing too, as Redis keeps it: the others read it
    return kept;
  }

  /**
   * A host's announced starts (SPEC R8, S3): what is left, the order of the word it stands on, the
   * spends, the reset; the starts a window and the window the host said (0 for none), and the
   * spends when the count last rolled into a window of them.
   */
  private static final class Announced {
    long left;
    long order;
    long spends;
    long resetAt;
    boolean holds;
    long limit;
    long window;
    long rolledAt;

    /** Past the reset, with the starts a window known: the window of {@code now}, all of them left. */
    void roll(long now) {
      if (holds && resetAt - now <= 0 && limit > 0 && window > 0) {
        resetAt += ((now - resetAt) / window + 1) * window;
        left = limit;
        order = spends;
        rolledAt = spends;
      }
    }
  }

  private synchronized void announce(String key, long remaining, long reset, long spentBefore, long limit, long window) {
    long now = clock.nanoTime();
    Announced budget = announced.computeIfAbsent(key, k -> new Announced());
    budget.roll(now);
    boolean current = budget.holds && budget.resetAt - now > 0;
    if (current && spentBefore > 0 && spentBefore <= budget.rolledAt) {
      return; // started before the roll: a word of the window that ended
    }
    if (limit > 0 && window > 0) {
      budget.limit = limit;
      budget.window = Math.max(budget.window, window);
    }
    if (spentBefore > 0 && (!current || spentBefore >= budget.order)) {
      budget.left = Math.max(0, remaining - Math.max(0, budget.spends - spentBefore));
      budget.order = spentBefore;
    } else if (!current) {
      budget.left = remaining;
      budget.order = 0;
    } else {
      budget.left = Math.min(budget.left, remaining); // a word of unknown order only ever lowers it
    }
    budget.resetAt = now + Math.max(1, reset);
    budget.holds = true;
  }

  private synchronized Fleet.Spent spend(String key) {
    long now = clock.nanoTime();
    Announced budget = announced.computeIfAbsent(key, k -> new Announced());
    budget.roll(now);
    if (!budget.holds || budget.resetAt - now <= 0) {
      budget.holds = false;
      return new Fleet.Spent(++budget.spends, 0);
    }
    if (budget.left > 0) {
      budget.left--;
      return new Fleet.Spent(++budget.spends, 0);
    }
    return new Fleet.Spent(budget.spends, budget.resetAt - now);
  }

  /** How many announced starts of {@code key} the fleet has left (SPEC S3), for tests; -1 for no announcement. */
  public synchronized long announcedLeft(String key) {
    Announced budget = announced.get(key);
    if (budget != null) {
      budget.roll(clock.nanoTime());
    }
    return budget == null || !budget.holds || budget.resetAt - clock.nanoTime() <= 0 ? -1 : budget.left;
  }

  /**
   * Forgets every start granted, place held, host kept and announcement, as a Redis without
   * persistence comes back from a restart (SPEC S4); its members stay in it.
   */
  public synchronized void forgetAll() {
    lastStart.clear();
    shortest.clear();
    places.clear();
    waiters.clear();
    stored.clear();
    announced.clear();
  }

  /** What the fleet keeps of {@code key} now (SPEC S3), for tests; null for nothing. */
  public Fleet.@Nullable Kept kept(String key) {
    return recall(key);
  }

  /** How many places of {@code key} the fleet's members hold, for tests. */
  public synchronized int placesHeld(String key) {
    Map<String, @Nullable Long> held = places.get(key);
    if (held == null) {
      return 0;
    }
    long now = clock.nanoTime();
    return (int) held.values().stream().filter(end -> end == null || end - now > 0).count();
  }

  private final class Member implements Fleet {
    private final List<Consumer<Lesson>> listeners = new CopyOnWriteArrayList<>();

    @Override
    public void tell(Lesson lesson) {
      Objects.requireNonNull(lesson, "lesson");
      List<Consumer<Lesson>> others = new ArrayList<>();
      for (Member member : members) {
        if (member != this) {
          others.addAll(member.listeners);
        }
      }
      if (!others.isEmpty()) {
        timer.schedule(() -> others.forEach(listener -> listener.accept(lesson)), latency);
      }
    }

    @Override
    public Listening listen(Consumer<Lesson> listener) {
      Objects.requireNonNull(listener, "listener");
      listeners.add(listener);
      return () -> listeners.remove(listener);
    }

    @Override
    public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
      Objects.requireNonNull(then, "then");
      if (keys.isEmpty() || keys.size() != intervalNanos.length) {
        throw new IllegalArgumentException("a claim needs keys, and an interval for each: "
            + keys.size() + " keys, " + intervalNanos.length + " intervals");
      }
      List<String> claimed = List.copyOf(keys);
      long[] intervals = intervalNanos.clone();
      timer.schedule(() -> {
        long delay = claim(claimed, intervals);
        timer.schedule(() -> then.accept(delay), latency);
      }, latency);
    }

    @Override
    public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(then, "then");
      if (leaseNanos < 0) {
        throw new IllegalArgumentException("a place's lease cannot be negative, was " + leaseNanos);
      }
      String id = System.identityHashCode(this) + ":" + place;
      timer.schedule(() -> {
        long held = LocalFleet.this.claimPlace(key, id, limit, leaseNanos);
        timer.schedule(() -> then.accept(held), latency);
      }, latency);
    }

    @Override
    public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(then, "then");
      Objects.requireNonNull(granted, "granted");
      String id = System.identityHashCode(this) + ":" + place;
      Waiting claim = new Waiting(then, granted);
      timer.schedule(() -> {
        long held = claimWaiting(key, id, limit, claim);
        timer.schedule(() -> claim.answer(held), latency);
      }, latency);
    }

    /** How many processes joined the fleet, this one included. */
    @Override
    public int processes() {
      return members.size();
    }

    @Override
    public boolean keeps() {
      return true;
    }

    @Override
    public void keep(String key, Fleet.Kept kept, long keepForNanos) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(kept, "kept");
      timer.schedule(() -> store(key, kept, keepForNanos), latency);
    }

    @Override
    public void recall(String key, Consumer<Fleet.@Nullable Kept> then) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(then, "then");
      timer.schedule(() -> {
        Fleet.Kept kept = LocalFleet.this.recall(key);
        timer.schedule(() -> then.accept(kept), latency);
      }, latency);
    }

    @Override
    public void recallOrKeep(String key, Fleet.Kept kept, long keepForNanos, Consumer<Fleet.@Nullable Kept> then) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(kept, "kept");
      Objects.requireNonNull(then, "then");
      timer.schedule(() -> {
        Fleet.Kept now = LocalFleet.this.recallOrKeep(key, kept, keepForNanos);
        timer.schedule(() -> then.accept(now), latency);
      }, latency);
    }

    @Override
    public void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {
      Objects.requireNonNull(key, "key");
      timer.schedule(() -> LocalFleet.this.announce(key, remaining, resetNanos, spentBefore, limit, windowNanos), latency);
    }

    @Override
    public void spendAnnounced(String key, Consumer<Fleet.Spent> then) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(then, "then");
      timer.schedule(() -> {
        Fleet.Spent spent = spend(key);
        timer.schedule(() -> then.accept(spent), latency);
      }, latency);
    }

    @Override
    public void releasePlace(String key, long place) {
      Objects.requireNonNull(key, "key");
      String id = System.identityHashCode(this) + ":" + place;
      timer.schedule(() -> LocalFleet.this.releasePlace(key, id), latency);
    }

    @Override
    public String toString() {
      return "LocalFleet.Member{" + (members.indexOf(this) + 1) + " of " + members.size() + "}";
    }
  }
}

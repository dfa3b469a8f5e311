package io.hostpace;

import io.hostpace.spi.Fleet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The fleet the engine was given, as the engine calls it: what a method of it throws is caught,
 * logged ({@link EventLog#fleetThrew}) and taken as the answer the fleet gives when it cannot be
 * asked (SPEC L2), so that no answer is left half made, no request's place held, no call never
 * ended. The engine wraps its fleet in one, once, as it is built.
 *
 * <ul>
 *   <li>What the engine tells ({@link #tell}, {@link #keep}, {@link #announce}, {@link
 *       #releasePlace}) is lost, as the SPI allows: a release lost is what the fleet's lease of a
 *       place is for.
 *   <li>What the engine asks ({@link #claimStart}, {@link #claimPlace}, {@link #recall}, {@link
 *       #recallOrKeep}, {@link #spendAnnounced}) is answered as by a fleet that could not be asked
 *       ({@link Fleet#UNCLAIMED}, null, {@link Fleet.Spent#UNCLAIMED}), but later, on the engine's
 *       timer with no delay: the engine asks under its lock, and relies on no answer coming from
 *       within the call that asked. An answer the fleet gave before it threw stands, and the
 *       stand-in is not given as well.
 *   <li>{@link #processes} is the count it last returned (1 before any); {@link #keeps} is read
 *       once, false if it threw.
 *   <li>{@link #listen}, asked as the engine is built, throws on: an engine that cannot hear its
 *       fleet is not built, and the caller of {@code build()} is told by an {@link
 *       IllegalStateException} naming the fleet, what it threw (an {@code Error} too) its cause. Closing
 *       its registration, as the engine closes, is logged if it throws, and the close goes on.
 * </ul>
 *
 * <p>Invariant: each answer the engine asks for reaches it exactly once, from the fleet or from
 * the stand-in, and never within the call that asked. Example: a fleet whose {@code claimStart}
 * throws at 2 s, of a host paced at 2 a second among the 2 processes it last counted, is heard
 * {@link Fleet#UNCLAIMED} at 2 s, as the timer runs the stand-in; the engine starts the request
 * alone at its share (SPEC S4), a second after its last start, not half a second.
 */
final class GuardedFleet implements Fleet {

  private final Fleet fleet;
  private final Timer timer;
  private final EventLog log;
  /** What {@link Fleet#keeps} answered when read, as the engine was built; false if it threw. */
  private final boolean keeps;
  /** The count {@link Fleet#processes} last returned, 1 before any. */
  private volatile int processes = 1;

  GuardedFleet(Fleet fleet, Timer timer, EventLog log) {
    this.fleet = fleet;
    this.timer = timer;
    this.log = log;
    this.keeps = readKeeps();
  }

  private boolean readKeeps() {
    try {
      return fleet.keeps();
    } catch (RuntimeException | Error failure) {
      log.fleetThrew(fleet, "keeps", failure, "the engine takes it as a fleet that keeps nothing");
      return false;
    }
  }

  @Override
  public void tell(Lesson lesson) {
    try {
      fleet.tell(lesson);
    } catch (RuntimeException | Error failure) {
      log.fleetThrew(fleet, "tell", failure, "the lesson was lost");
    }
  }

  @Override
  public void keep(String key, Kept kept, long keepForNanos) {
    try {
      fleet.keep(key, kept, keepForNanos);
    } catch (RuntimeException | Error failure) {
      log.fleetThrew(fleet, "keep", failure, "what it was to keep was lost");
    }
  }

  @Override
  public void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {
    try {
      fleet.announce(key, remaining, resetNanos, spentBefore, limit, windowNanos);
    } catch (RuntimeException | Error failure) {
      log.fleetThrew(fleet, "announce", failure, "the announcement was lost");
    }
  }

  @Override
  public void releasePlace(String key, long place) {
    try {
      fleet.releasePlace(key, place);
    } catch (RuntimeException | Error failure) {
      log.fleetThrew(fleet, "releasePlace", failure, "the release was lost: the fleet's lease of the place ends it");
    }
  }

  @Override
  public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
    LongAnswer answer = new LongAnswer(then);
    ask("claimStart", START_UNCLAIMED, () -> fleet.claimStart(keys, intervalNanos, answer),
        () -> answer.accept(UNCLAIMED));
  }

  @Override
  public void claimStart(String key, long intervalNanos, LongConsumer then) {
    LongAnswer answer = new LongAnswer(then);
    ask("claimStart", START_UNCLAIMED, () -> fleet.claimStart(key, intervalNanos, answer),
        () -> answer.accept(UNCLAIMED));
  }

  @Override
  public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
    LongAnswer answer = new LongAnswer(then);
    ask("claimPlace", PLACE_UNCLAIMED, () -> fleet.claimPlace(key, place, limit, leaseNanos, answer),
        () -> answer.accept(UNCLAIMED));
  }

  @Override
  public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
    LongAnswer answer = new LongAnswer(then);
    ask("claimPlace", PLACE_UNCLAIMED, () -> fleet.claimPlace(key, place, limit, answer, granted),
        () -> answer.accept(UNCLAIMED));
  }

  @Override
  public void recall(String key, Consumer<@Nullable Kept> then) {
    Answer<@Nullable Kept> answer = new Answer<>(then);
    ask("recall", "it counts as a recall of nothing", () -> fleet.recall(key, answer), () -> answer.accept(null));
  }

  @Override
  public void recallOrKeep(String key, Kept kept, long keepForNanos, Consumer<@Nullable Kept> then) {
    Answer<@Nullable Kept> answer = new Answer<>(then);
    ask("recallOrKeep", "it counts as a read the fleet could not answer, asked again later",
        () -> fleet.recallOrKeep(key, kept, keepForNanos, answer), () -> answer.accept(null));
  }

  @Override
  public void spendAnnounced(String key, Consumer<Spent> then) {
    Answer<Spent> answer = new Answer<>(then);
    ask("spendAnnounced", "the spend counts as unclaimed, by the engine's own count",
        () -> fleet.spendAnnounced(key, answer), () -> answer.accept(Spent.UNCLAIMED));
  }

  @Override
  public int processes() {
    try {
      int read = fleet.processes();
      processes = read;
      return read;
    } catch (RuntimeException | Error failure) {
      int last = processes;
      log.fleetThrew(fleet, "processes", failure, "the engine took the count it last read, " + last);
      return last;
    }
  }

  @Override
  public boolean keeps() {
    return keeps;
  }

  @Override
  public Listening listen(Consumer<Lesson> listener) {
    Listening listening;
    try {
      listening = fleet.listen(listener);
    } catch (RuntimeException | Error failure) {
      // An Error (an assertion in a test's fleet) as an exception: both name the fleet.
      throw new IllegalStateException("fleet " + fleet.getClass().getName() + " threw "
          + failure.getClass().getName() + " from listen: an engine that cannot hear its fleet is not built", failure);
    }
    return () -> {
      try {
        listening.close();
      } catch (RuntimeException | Error failure) {
        log.fleetThrew(fleet, "Listening.close", failure, "the engine went on closing");
      }
    };
  }

  @Override
  public String toString() {
    return fleet.toString();
  }

  private static final String START_UNCLAIMED = "the start counts as unclaimed, paced by the engine alone";
  private static final String PLACE_UNCLAIMED = "the place counts as unclaimed, one of the engine's own share";

  /**
   * Asks the fleet ({@code asking}, a call of {@code method}); if it throws, the failure is logged
   * with what the engine does instead ({@code wentOn}), and {@code standIn} answers on the timer,
   * not within the call that asked.
   */
  private void ask(String method, String wentOn, Runnable asking, Runnable standIn) {
    try {
      asking.run();
    } catch (RuntimeException | Error failure) {
      log.fleetThrew(fleet, method, failure, wentOn);
      timer.schedule(standIn, 0);
    }
  }

  /** A callback that hears one answer, the first: the fleet's, or the stand-in's. */
  private static final class Answer<T> extends AtomicBoolean implements Consumer<T> {
    private final Consumer<T> then;

    Answer(Consumer<T> then) {
      this.then = then;
    }

    /** Null for a recall's nothing: {@code T} is then {@code @Nullable Kept}. */
    @Override
    public void accept(@Nullable T answer) {
      if (compareAndSet(false, true)) {
        then.accept(answer);
      }
    }
  }

  /** {@link Answer} of a number. */
  private static final class LongAnswer extends AtomicBoolean implements LongConsumer {
    private final LongConsumer then;

    LongAnswer(LongConsumer then) {
      this.then = then;
    }

    @Override
    public void accept(long answer) {
      if (compareAndSet(false, true)) {
        then.accept(answer);
      }
    }
  }
}

package io.hostpace;

import io.hostpace.spi.Fleet;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A process of a fleet that cannot reach it while {@link #down} (SPEC S4), in virtual time: every
 * claim is answered {@link Fleet#UNCLAIMED}, every spend {@link Spent#UNCLAIMED} and every read
 * nothing, a millisecond after it was asked (or {@link #unclaimedAfter}), and what it is told,
 * announced and asked to keep is lost. It counts
 * {@link #processes} processes in the fleet.
 */
class UnreachableFleet extends ForwardingFleet {
  private final VirtualTime time;
  boolean down;
  int processes;
  /** How long a claim waits for its unclaimed answer while {@link #down}: a fleet that times out answers late. */
  Duration unclaimedAfter = Duration.ofMillis(1);
  /** Whether its claims of places wait in the fleet while it answers, as Redis's do; else they are asked again. */
  boolean placesWait;

  UnreachableFleet(Fleet member, VirtualTime time, int processes) {
    super(member);
    this.time = time;
    this.processes = processes;
  }

  @Override
  public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
    if (down) {
      time.schedule(() -> then.accept(Fleet.UNCLAIMED), unclaimedAfter.toNanos());
    } else {
      super.claimStart(keys, intervalNanos, then);
    }
  }

  @Override
  public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
    if (down) {
      time.schedule(() -> then.accept(Fleet.UNCLAIMED), Duration.ofMillis(1).toNanos());
    } else {
      super.claimPlace(key, place, limit, leaseNanos, then);
    }
  }

  @Override
  public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
    if (placesWait && !down) {
      member.claimPlace(key, place, limit, then, granted);
    } else {
      claimPlace(key, place, limit, 0, then);
    }
  }

  @Override
  public void tell(Lesson lesson) {
    if (!down) { // lost
      super.tell(lesson);
    }
  }

  @Override
  public void keep(String key, Kept kept, long keepForNanos) {
    if (!down) { // lost
      super.keep(key, kept, keepForNanos);
    }
  }

  @Override
  public void recall(String key, Consumer<@Nullable Kept> then) {
    if (down) {
      time.schedule(() -> then.accept(null), Duration.ofMillis(1).toNanos());
    } else {
      super.recall(key, then);
    }
  }

  @Override
  public void recallOrKeep(String key, Kept kept, long keepForNanos, Consumer<@Nullable Kept> then) {
    if (down) {
      time.schedule(() -> then.accept(null), Duration.ofMillis(1).toNanos());
    } else {
      super.recallOrKeep(key, kept, keepForNanos, then);
    }
  }

  @Override
  public void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {
    if (!down) { // lost
      super.announce(key, remaining, resetNanos, spentBefore, limit, windowNanos);
    }
  }

  @Override
  public void spendAnnounced(String key, Consumer<Spent> then) {
    if (down) {
      time.schedule(() -> then.accept(Spent.UNCLAIMED), Duration.ofMillis(1).toNanos());
    } else {
      super.spendAnnounced(key, then);
    }
  }

  @Override
  public int processes() {
    return processes;
  }
}

package io.hostpace;

import io.hostpace.spi.Fleet;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/** A member of a fleet that forwards everything to {@code member}; the tests' fleets override what they change. */
class ForwardingFleet implements Fleet {
  final Fleet member;

  ForwardingFleet(Fleet member) {
    this.member = member;
  }

  @Override
  public void tell(Lesson lesson) {
    member.tell(lesson);
  }

  @Override
  public Listening listen(Consumer<Lesson> listener) {
    return member.listen(listener);
  }

  @Override
  public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
    member.claimStart(keys, intervalNanos, then);
  }

  @Override
  public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
    member.claimPlace(key, place, limit, leaseNanos, then);
  }

  @Override
  public void releasePlace(String key, long place) {
    member.releasePlace(key, place);
  }

  @Override
  public int processes() {
    return member.processes();
  }

  @Override
  public boolean keeps() {
    return member.keeps();
  }

  @Override
  public void keep(String key, Kept kept, long keepForNanos) {
    member.keep(key, kept, keepForNanos);
  }

  @Override
  public void recall(String key, Consumer<@Nullable Kept> then) {
    member.recall(key, then);
  }

  @Override
  public void recallOrKeep(String key, Kept kept, long keepForNanos, Consumer<@Nullable Kept> then) {
    member.recallOrKeep(key, kept, keepForNanos, then);
  }

  @Override
  public void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {
    member.announce(key, remaining, resetNanos, spentBefore, limit, windowNanos);
  }

  @Override
  public void spendAnnounced(String key, Consumer<Spent> then) {
    member.spendAnnounced(key, then);
  }
}

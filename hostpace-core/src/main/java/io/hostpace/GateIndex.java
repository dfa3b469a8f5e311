package io.hostpace;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A gate's index of the queues it holds back, by the {@code seq} of their head (SPEC P7): a sorted
 * array of keys beside the queues, where a queue let go leaves a hole that later keeps of the index
 * fill or drop. A head's key is almost always the latest arrival's, so a queue is nearly always put
 * at the end, and a walk in head order reads the keys one after another in memory; a tree's walk
 * would follow a node per step, wherever each was allocated, and allocate one per key put.
 *
 * <p>Example: queues put under 3, 7 and 9; removing 7 leaves a hole, and {@code higher(3)} skips
 * it and gives the queue of 9; putting 5 (a retried head, which keeps its arrival) takes the hole
 * of 7's slot, which lies between 3 and 9; with no hole there, the keys after it would move up one.
 *
 * <p>Keys are unique: each is the {@code seq} of one call. Guarded by the engine's lock.
 *
 * @param <Q> what is indexed: a {@link HostQueue}
 */
final class GateIndex<Q> {

  private long[] keys = new long[8];
  private @Nullable Object[] queues = new Object[8];
  /** Slots in use, holes included: {@code keys[0..used)} is sorted. */
  private int used;
  /** Slots that hold a queue. */
  private int size;
  /** The key {@link #higher} last found. */
  private long foundKey;

  /** Puts {@code queue} under {@code key}, which is in the index under no other queue. */
  void put(long key, Q queue) {
    if (used == 0 || key > keys[used - 1]) {
      if (used == keys.length) {
        grow();
      }
      keys[used] = key;
      queues[used++] = queue;
      size++;
      return;
    }
    int at = search(key);
    if (at >= 0) { // the key's own slot, a hole since it was removed
      queues[at] = queue;
      size++;
      return;
    }
    int insert = -at - 1;
    if (insert > 0 && queues[insert - 1] == null) { // a hole just before, whose key is smaller: take it
      keys[insert - 1] = key;
      queues[insert - 1] = queue;
      size++;
      return;
    }
    if (used == keys.length) {
      grow();
      insert = -search(key) - 1; // a compaction moved the slots
    }
    System.arraycopy(keys, insert, keys, insert + 1, used - insert);
    System.arraycopy(queues, insert, queues, insert + 1, used - insert);
    keys[insert] = key;
    queues[insert] = queue;
    used++;
    size++;
  }

  /** Takes out the queue under {@code key}, if any. */
  void remove(long key) {
    int at = search(key);
    if (at < 0 || queues[at] == null) {
      return;
    }
    queues[at] = null;
    size--;
    while (used > 0 && queues[used - 1] == null) {
      used--; // holes at the end go at once
    }
    if (used > 32 && size < used / 2) {
      compact();
    }
  }

  /** The queue under the least key above {@code key}, or null; its key is then {@link #foundKey()}. */
  @SuppressWarnings("unchecked") // only put() stores, and only a Q
  @Nullable Q higher(long key) {
    int at = search(key);
    int from = at >= 0 ? at + 1 : -at - 1;
    for (int i = from; i < used; i++) {
      Object queue = queues[i];
      if (queue != null) {
        foundKey = keys[i];
        return (Q) queue;
      }
    }
    return null;
  }

  /** The key of the queue {@link #higher} last gave. */
  long foundKey() {
    return foundKey;
  }

  /** How many queues the index holds. */
  int size() {
    return size;
  }

  /** Whether it holds none. */
  boolean isEmpty() {
    return size == 0;
  }

  /** The slot of {@code key}, or {@code -(insertion point) - 1}, as {@link Arrays#binarySearch}. */
  private int search(long key) {
    return Arrays.binarySearch(keys, 0, used, key);
  }

  private void grow() {
    if (size < used * 3 / 4) {
      compact(); // holes enough: room without a larger array
      if (used < keys.length) {
        return;
      }
    }
    keys = Arrays.copyOf(keys, keys.length * 2);
    queues = Arrays.copyOf(queues, queues.length * 2);
  }

  /** Closes the holes, keeping the order. */
  private void compact() {
    int to = 0;
    for (int i = 0; i < used; i++) {
      if (queues[i] != null) {
        keys[to] = keys[i];
        queues[to++] = queues[i];
      }
    }
    Arrays.fill(queues, to, used, null);
    used = to;
  }
}

package io.hostpace;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * An ordered map of {@code long} keys to values, kept as sorted blocks: a group gate's index of
 * the queues it holds back by the {@code seq} of their head ({@link GroupGate#byHead}, SPEC P7).
 *
 * <p>Why blocks. A tree of boxed keys reads two objects a level (the node, then its key), some 14
 * levels for 10,000 queues; one sorted array reads few lines, but a queue's next head comes in
 * mid-order, and an insert there moves every later entry. Here keys sit in blocks of at most
 * {@link #B} sorted {@code long}s, and the blocks' first keys in one sorted array: a look is a
 * binary search of the first keys, then one of a block; an insert moves at most one block's
 * entries, and a full block splits in two halves (or, when the key comes after every other, as
 * a newly held queue's head does, a new last block takes it and the full one stays full); nothing
 * is boxed.
 *
 * <p>The invariant: the blocks {@code 0 .. blocks - 1} are non-empty, their keys ascend within
 * and across them, and {@code firsts[b]} is block {@code b}'s first key; any two neighbouring
 * blocks hold more than {@code B / 2} keys together, so the blocks are more than a quarter full
 * on average. A removal keeps that by dropping a block it empties and merging a block with a
 * neighbour when the two fit in half a block.
 *
 * <p>Example, with {@code B} = 64: the keys 1, 3, 5, ... 127 fill one block; putting 129 opens a
 * second block {@code [129]}; putting 64 into the full first block splits it in halves,
 * {@code [1, 3 .. 63]} and {@code [65, 67 .. 127]}, and 64 goes at the end of the first:
 * {@code higher(64)} finds the last block whose first key is at most 64, the first, no key above
 * 64 in it, and so answers the next block's first entry, 65.
 *
 * <p>Not thread-safe: a gate's index is guarded by the engine's lock.
 */
final class HeadIndex<V> {

  private static final int SHIFT = 6;
  /** The most keys a block holds; a power of two, so that a position splits into block and index by shifts. */
  static final int B = 1 << SHIFT;

  /** The blocks' keys; of {@code keys[b]}, the first {@code sizes[b]} are in use. */
  private long[][] keys = new long[2][];
  /** The blocks' values, beside their keys; null past a block's size, so that nothing removed is kept. */
  private @Nullable Object[][] values = new Object[2][];
  private int[] sizes = new int[2];
  /** Each block's first key, side by side so that finding a block reads one array. */
  private long[] firsts = new long[2];
  private int blocks;
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Maps {@code key} to {@code value}, replacing the value it had. */
  void put(long key, V value) {
    if (blocks == 0) {
      insertBlock(0);
      insert(0, 0, key, value);
      return;
    }
    int b = Math.max(blockOf(key), 0);
    int n = sizes[b];
    int i = Arrays.binarySearch(keys[b], 0, n, key);
    if (i >= 0) {
      values[b][i] = value;
      return;
    }
    i = -i - 1;
    if (n == B) {
      if (i == B && b == blocks - 1) { // after every key: a new last block, this one stays full
        insertBlock(++b);
        i = 0;
      } else {
        split(b);
        if (i > B / 2) {
          b++;
          i -= B / 2;
        }
      }
    }
    insert(b, i, key, value);
  }

  /** Removes {@code key}; whether it was there. */
  boolean remove(long key) {
    int b = blockOf(key);
    if (b < 0) {
      return false;
    }
    long[] k = keys[b];
    @Nullable Object[] v = values[b];
    int n = sizes[b];
    int i = Arrays.binarySearch(k, 0, n, key);
    if (i < 0) {
      return false;
    }
    System.arraycopy(k, i + 1, k, i, n - i - 1);
    System.arraycopy(v, i + 1, v, i, n - i - 1);
    v[--n] = null;
    sizes[b] = n;
    size--;
    if (n == 0) {
      dropBlock(b);
      return true;
    }
    firsts[b] = k[0];
    if (b > 0 && sizes[b - 1] + n <= B / 2) {
      merge(b - 1);
    } else if (b + 1 < blocks && n + sizes[b + 1] <= B / 2) {
      merge(b);
    }
    return true;
  }

  /**
   * The position of the entry with the least key above {@code key}, or -1 when there is none: for
   * {@link #keyAt} and {@link #valueAt}, until the index next changes.
   */
  int higher(long key) {
    int b = blockOf(key);
    if (b < 0) {
      return blocks > 0 ? 0 : -1;
    }
    int i = above(keys[b], sizes[b], key);
    if (i < sizes[b]) {
      return (b << SHIFT) | i;
    }
    return b + 1 < blocks ? (b + 1) << SHIFT : -1;
  }

  /** The key at {@code position}, from {@link #higher}. */
  long keyAt(int position) {
    return keys[position >>> SHIFT][position & (B - 1)];
  }

  /** The value at {@code position}, from {@link #higher}. */
  @SuppressWarnings("unchecked") // only put stores values, all of them Vs
  V valueAt(int position) {
    return (V) values[position >>> SHIFT][position & (B - 1)];
  }

  /** The last block whose first key is at most {@code key}; -1 when there is none. */
  private int blockOf(long key) {
    return above(firsts, blocks, key) - 1;
  }

  /** The index of the first of the {@code n} ascending {@code sorted} above {@code key}; {@code n} when none is. */
  private static int above(long[] sorted, int n, long key) {
    int low = 0;
    int high = n;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (sorted[mid] <= key) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /** Puts {@code key} and {@code value} at {@code i} of block {@code b}, which has room, moving the later ones up. */
  private void insert(int b, int i, long key, V value) {
    long[] k = keys[b];
    @Nullable Object[] v = values[b];
    int n = sizes[b];
    System.arraycopy(k, i, k, i + 1, n - i);
    System.arraycopy(v, i, v, i + 1, n - i);
    k[i] = key;
    v[i] = value;
    sizes[b] = n + 1;
    firsts[b] = k[0];
    size++;
  }

  /** Moves the upper half of the full block {@code b} to a new block after it. */
  private void split(int b) {
    insertBlock(b + 1);
    System.arraycopy(keys[b], B / 2, keys[b + 1], 0, B / 2);
    System.arraycopy(values[b], B / 2, values[b + 1], 0, B / 2);
    Arrays.fill(values[b], B / 2, B, null);
    sizes[b] = B / 2;
    sizes[b + 1] = B / 2;
    firsts[b + 1] = keys[b + 1][0];
  }

  /** Moves block {@code b + 1}'s entries to the end of block {@code b}, which has room for them, and drops it. */
  private void merge(int b) {
    int n = sizes[b];
    int m = sizes[b + 1];
    System.arraycopy(keys[b + 1], 0, keys[b], n, m);
    System.arraycopy(values[b + 1], 0, values[b], n, m);
    Arrays.fill(values[b + 1], 0, m, null);
    sizes[b] = n + m;
    sizes[b + 1] = 0;
    dropBlock(b + 1);
  }

  /**
   * Opens an empty block at {@code b}, moving the later ones up. The slot past the last block may
   * hold a dropped block's arrays, which it takes, so that an index that empties and fills again
   * does not make new ones each time.
   */
  private void insertBlock(int b) {
    if (blocks == sizes.length) {
      int capacity = 2 * blocks;
      keys = Arrays.copyOf(keys, capacity);
      values = Arrays.copyOf(values, capacity);
      sizes = Arrays.copyOf(sizes, capacity);
      firsts = Arrays.copyOf(firsts, capacity);
    }
    long @Nullable [] k = keys[blocks];
    @Nullable Object @Nullable [] v = values[blocks];
    System.arraycopy(keys, b, keys, b + 1, blocks - b);
    System.arraycopy(values, b, values, b + 1, blocks - b);
    System.arraycopy(sizes, b, sizes, b + 1, blocks - b);
    System.arraycopy(firsts, b, firsts, b + 1, blocks - b);
    keys[b] = k != null ? k : new long[B];
    values[b] = v != null ? v : new Object[B];
    sizes[b] = 0;
    blocks++;
  }

  /** Drops the empty block {@code b}, moving the later ones down; its arrays stay in the slot past the last block. */
  private void dropBlock(int b) {
    long[] k = keys[b];
    @Nullable Object[] v = values[b];
    System.arraycopy(keys, b + 1, keys, b, blocks - b - 1);
    System.arraycopy(values, b + 1, values, b, blocks - b - 1);
    System.arraycopy(sizes, b + 1, sizes, b, blocks - b - 1);
    System.arraycopy(firsts, b + 1, firsts, b, blocks - b - 1);
    blocks--;
    keys[blocks] = k;
    values[blocks] = v;
    if (blocks + 1 < keys.length) { // one block's arrays kept, not more
      keys[blocks + 1] = null;
      values[blocks + 1] = null;
    }
  }
}

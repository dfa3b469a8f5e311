package io.hostpace.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map in access order that lets go of its least recently used entry beyond its capacity: what
 * keeps a policy's memory bounded by the endpoints and kinds in use. Not thread-safe; its owner
 * guards it (a lookup reorders it, so reads need the lock too).
 */
public final class Lru<K, V> extends LinkedHashMap<K, V> {

  private final int capacity;

  /** A map that keeps at most {@code capacity} entries. */
  public Lru(int capacity) {
    super(16, 0.75f, true);
    this.capacity = capacity;
  }

  @Override
  protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
    return size() > capacity;
  }
}

package io.hostpace.spi;

/**
 * Where the engine keeps what hosts taught. The default keeps it in memory; a store shared
 * by several processes can back it (SPEC S2).
 *
 * <p>The engine opens a key's state when it first needs it and closes it when it holds
 * nothing for the key any more (no queue, no pause, no interval). Both are called under the
 * engine's lock and must not block.
 */
public interface HostStateStore {

  /** The state of {@code key}, as the store knows it, or a new one that knows nothing. */
  HostState open(String key);

  /** The engine holds nothing for {@code state}'s key any more. */
  void close(HostState state);

  /** The in-memory store: a state lives while the engine holds it. */
  static HostStateStore inMemory() {
    return InMemoryHostStateStore.INSTANCE;
  }
}

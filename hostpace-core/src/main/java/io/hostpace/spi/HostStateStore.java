package io.hostpace.spi;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where the engine keeps what hosts taught. The default keeps it in memory; a store shared
 * by several processes can back it (SPEC S2).
 *
 * <p>The engine opens a key's state when it first needs it and closes it when it holds
 * nothing for the key any more (no queue, no pause, no interval). Both are called under the
 * engine's lock and must not block.
 */
public interface HostStateStore {

  /**
   * The state of {@code key}, as the store knows it, or a new one that knows nothing. The engine
   * holds what it brings to the engine's own limits (SPEC S1): a pause longer than the retry delay
   * limit is cut to it, an interval or a quota's window past what the engine keeps is clamped.
   * What it throws fails the call that needed the state, and the engine holds nothing for the key.
   */
  HostState open(String key);

  /** The engine holds nothing for {@code state}'s key any more. */
  void close(HostState state);

  /** The in-memory store: a state lives while the engine holds it. */
  static HostStateStore inMemory() {
    return InMemoryHostStateStore.INSTANCE;
  }

  /**
   * An in-memory store whose states tell {@code onChange} after each change of what their host
   * taught (its pause, interval, in-flight limit or quota; not its starts, nor the rule's memory),
   * under the engine's lock: the base of a store that keeps or publishes what hosts taught, as
   * {@code io.hostpace.HostStateFile} does; such a store keeps the host's {@link HostState#pace()
   * pace}, not the interval of a start held back longer. {@code onChange} must not block. What it throws is
   * logged at {@code WARNING} on the logger {@code io.hostpace.spi.HostStateStore}, at most once a
   * minute per kind ({@link FailureLog}), and goes no further: the change stands, and the engine
   * goes on with the answer that made it.
   */
  static HostStateStore inMemory(Consumer<HostState> onChange) {
    return new InMemoryHostStateStore(Objects.requireNonNull(onChange, "onChange"));
  }
}

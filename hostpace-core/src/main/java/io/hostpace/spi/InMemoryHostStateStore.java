package io.hostpace.spi;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** States that live in the engine's own memory, as long as it holds them. */
final class InMemoryHostStateStore implements HostStateStore {

  static final InMemoryHostStateStore INSTANCE = new InMemoryHostStateStore(null);

  /** Told after each change of what a host taught; null for none. */
  private final @Nullable Consumer<HostState> onChange;

  InMemoryHostStateStore(@Nullable Consumer<HostState> onChange) {
    this(onChange, FailureLog.of(HostStateStore.class));
  }

  /** A store whose {@code onChange}, if it throws, is logged to {@code failures}. */
  InMemoryHostStateStore(@Nullable Consumer<HostState> onChange, FailureLog failures) {
    this.onChange = onChange == null ? null : guarded(onChange, failures);
  }

  /**
   * {@code onChange}, whose failure is logged and goes no further: it is told under the engine's
   * lock, in the middle of an answer's lessons, and what it throws would leave that answer half
   * made and its request's place held. The change it was told of stands.
   */
  private static Consumer<HostState> guarded(Consumer<HostState> onChange, FailureLog failures) {
    return state -> {
      try {
        onChange.accept(state);
      } catch (RuntimeException | Error e) {
        failures.failed(onChange.getClass().getName() + " " + e.getClass().getName(),
            () -> "a host state store's listener " + onChange.getClass().getName() + " threw "
                + e.getClass().getName() + " on a change of " + state.key()
                + "; the change stands and the engine went on",
            e);
      }
    };
  }

  @Override
  public HostState open(String key) {
    return new LocalHostState(key, onChange);
  }

  @Override
  public void close(HostState state) {}

  @Override
  public String toString() {
    return onChange == null ? "in-memory" : "in-memory, publishing";
  }
}

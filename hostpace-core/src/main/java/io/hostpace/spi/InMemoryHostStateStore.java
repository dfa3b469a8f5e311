package io.hostpace.spi;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** States that live in the engine's own memory, as long as it holds them. */
final class InMemoryHostStateStore implements HostStateStore {

  static final InMemoryHostStateStore INSTANCE = new InMemoryHostStateStore(null);

  /** Told after each change of what a host taught; null for none. */
  private final @Nullable Consumer<HostState> onChange;

  InMemoryHostStateStore(@Nullable Consumer<HostState> onChange) {
    this.onChange = onChange;
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

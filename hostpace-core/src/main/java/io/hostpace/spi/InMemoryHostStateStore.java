package io.hostpace.spi;


/** States that live in the engine's own memory, as long as it holds them. */
final class InMemoryHostStateStore implements HostStateStore {

  static final InMemoryHostStateStore INSTANCE = new InMemoryHostStateStore();

  private InMemoryHostStateStore() {}

  @Override
  public HostState open(String key) {
    return new LocalHostState(key);
  }

  @Override
  public void close(HostState state) {}

  @Override
  public String toString() {
    return "in-memory";
  }
}

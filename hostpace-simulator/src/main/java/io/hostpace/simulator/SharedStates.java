package io.hostpace.simulator;

import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.util.HashMap;
import java.util.Map;

/**
 * One state per host for all the engines of a client's processes: a model of what SPEC S2 shares
 * between processes (through Redis), without its latency. Safe only because the simulation runs
 * on one thread: the engines' locks do not guard a state another engine also writes.
 */
final class SharedStates implements HostStateStore {

  private final HostStateStore memory;
  private final Map<String, HostState> states = new HashMap<>();
  private final Map<String, Integer> users = new HashMap<>();

  /** Shares the states {@code underlying} opens (kept in memory, or in a file between runs). */
  SharedStates(HostStateStore underlying) {
    this.memory = underlying;
  }

  @Override
  public HostState open(String key) {
    users.merge(key, 1, Integer::sum);
    return states.computeIfAbsent(key, memory::open);
  }

  @Override
  public void close(HostState state) {
    if (users.merge(state.key(), -1, Integer::sum) == 0) {
      users.remove(state.key());
      states.remove(state.key());
      memory.close(state);
    }
  }

  @Override
  public String toString() {
    return "shared";
  }
}

package io.hostpace.spi;

import org.jspecify.annotations.Nullable;

/** States that live in the engine's own memory, as long as it holds them. */
final class InMemoryHostStateStore implements HostStateStore {

  static final InMemoryHostStateStore INSTANCE = new InMemoryHostStateStore();

  private InMemoryHostStateStore() {}

  @Override
  public HostState open(String key) {
    return new MemoryState(key);
  }

  @Override
  public void close(HostState state) {}

  @Override
  public String toString() {
    return "in-memory";
  }

  /** Plain fields; the engine's lock guards them. */
  private static final class MemoryState implements HostState {
    private final String key;
    private boolean paused;
    private long pausedUntil;
    private long interval;
    private long intervalChangedAt;
    private int inFlightLimit;
    private int quotaPermits;
    private long quotaWindow;
    private boolean started;
    private long lastStart;
    private @Nullable Object memory;

    MemoryState(String key) {
      this.key = key;
    }

    @Override
    public String key() {
      return key;
    }

    @Override
    public boolean paused() {
      return paused;
    }

    @Override
    public long pausedUntil() {
      return pausedUntil;
    }

    @Override
    public void pauseUntil(long until) {
      paused = true;
      pausedUntil = until;
    }

    @Override
    public void clearPause() {
      paused = false;
    }

    @Override
    public long interval() {
      return interval;
    }

    @Override
    public long intervalChangedAt() {
      return intervalChangedAt;
    }

    @Override
    public void interval(long interval, long now) {
      this.interval = interval;
      this.intervalChangedAt = now;
    }

    @Override
    public int inFlightLimit() {
      return inFlightLimit;
    }

    @Override
    public void inFlightLimit(int limit) {
      this.inFlightLimit = limit;
    }

    @Override
    public int quotaPermits() {
      return quotaPermits;
    }

    @Override
    public long quotaWindow() {
      return quotaWindow;
    }

    @Override
    public void quota(int permits, long window) {
      this.quotaPermits = permits;
      this.quotaWindow = permits > 0 ? window : 0;
    }

    @Override
    public boolean started() {
      return started;
    }

    @Override
    public long lastStart() {
      return lastStart;
    }

    @Override
    public void start(long now) {
      started = true;
      lastStart = now;
    }

    @Override
    public @Nullable Object memory() {
      return memory;
    }

    @Override
    public void memory(@Nullable Object memory) {
      this.memory = memory;
    }
  }
}

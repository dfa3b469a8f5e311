package io.hostpace.spi;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A host's state kept in plain fields, as the in-memory store keeps it; the engine's lock guards
 * them. After each change of what the host taught (its pause, interval, in-flight limit, quota)
 * it tells its store's listener, if any, so that a store that keeps what hosts taught reads a
 * whole change.
 */
final class LocalHostState implements HostState {
  private final String key;
  private final @Nullable Consumer<HostState> onChange;
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

  /** A state of {@code key} that knows nothing yet. */
  LocalHostState(String key, @Nullable Consumer<HostState> onChange) {
    this.key = key;
    this.onChange = onChange;
  }

  private void changed() {
    Consumer<HostState> onChange = this.onChange;
    if (onChange != null) {
      onChange.accept(this);
    }
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
    changed();
  }

  @Override
  public void clearPause() {
    paused = false;
    changed();
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
    changed();
  }

  @Override
  public int inFlightLimit() {
    return inFlightLimit;
  }

  @Override
  public void inFlightLimit(int limit) {
    this.inFlightLimit = limit;
    changed();
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
    changed();
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

  @Override
  public String toString() {
    return "LocalHostState{" + key + "}";
  }
}

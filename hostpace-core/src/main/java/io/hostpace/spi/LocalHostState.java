package io.hostpace.spi;

import org.jspecify.annotations.Nullable;

/**
 * A host's state kept in plain fields, as the in-memory store keeps it; the engine's lock guards
 * them. A store of its own can extend it and override {@link #changed()} to publish what the host
 * taught (as {@code io.hostpace.HostStateFile} does, to keep it across runs).
 */
public class LocalHostState implements HostState {
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

  /** A state of {@code key} that knows nothing yet. */
  public LocalHostState(String key) {
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

  /**
   * Called, under the engine's lock, after each change of what the host taught: its pause, its
   * interval, its in-flight limit, its quota (not its starts, nor the rule's memory). Does
   * nothing here; a store that publishes what was taught overrides it, and must not block.
   */
  protected void changed() {}

  @Override
  public String toString() {
    return "LocalHostState{" + key + "}";
  }
}

package io.hostpace.cli;

import io.hostpace.Clock;
import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The progress line of {@code hostpace fetch} on standard error ({@link ProgressLine}), drawn at
 * the start and redrawn in place ({@code \r}) four times a second from the engine's snapshot and
 * the URLs done, each time blanking what is left of the longer line before; cleared at the end,
 * so that the summary and any error start on a clean line.
 */
final class Progress {

  /** How often the line is redrawn. */
  static final Duration EVERY = Duration.ofMillis(250);

  private final Hostpace engine;
  private final int total;
  private final @Nullable PrintStream terminal;
  private final Clock clock;
  private final long start;
  private final int width;
  private final AtomicInteger done = new AtomicInteger();
  private final @Nullable ScheduledExecutorService ticker;
  /** The length of the line last drawn, to blank it out; only the ticker's thread and stop() draw. */
  private int drawn;

  private Progress(Hostpace engine, int total, @Nullable PrintStream terminal, Clock clock, int width) {
    this.engine = engine;
    this.total = total;
    this.terminal = terminal;
    this.clock = clock;
    this.start = clock.nanoTime();
    this.width = width;
    if (terminal == null) {
      ticker = null;
      return;
    }
    ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "hostpace-progress");
      thread.setDaemon(true);
      return thread;
    });
    draw(); // at once, so that even a run shorter than a redraw shows where it stands
    ticker.scheduleAtFixedRate(this::draw, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The progress of {@code total} URLs through {@code engine}, its line drawn on {@code terminal},
   * {@code width} columns wide at most; none drawn when {@code terminal} is null.
   */
  static Progress start(Hostpace engine, int total, @Nullable PrintStream terminal, Clock clock, int width) {
    return new Progress(engine, total, terminal, clock, width);
  }

  /** One URL more is done. */
  void done() {
    done.incrementAndGet();
  }

  /** The line as it stands now. */
  ProgressLine now() {
    int inFlight = 0;
    int waiting = 0;
    for (HostSnapshot host : engine.snapshot()) {
      if (!host.group()) {
        inFlight += host.inFlight();
        waiting += host.waiting();
      }
    }
    return new ProgressLine(done.get(), total, inFlight, waiting, Duration.ofNanos(clock.nanoTime() - start));
  }

  private synchronized void draw() {
    PrintStream terminal = this.terminal;
    if (terminal == null) {
      return; // only a terminal starts the ticker that calls this
    }
    String line = now().text(width);
    terminal.print("\r" + line + " ".repeat(Math.max(0, drawn - line.length())));
    terminal.flush();
    drawn = line.length();
  }

  /** Stops redrawing and blanks the line out, leaving the cursor at its start. */
  void stop() {
    PrintStream terminal = this.terminal;
    ScheduledExecutorService ticker = this.ticker;
    if (terminal == null || ticker == null) {
      return;
    }
    ticker.shutdownNow();
    try {
      ticker.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      if (drawn > 0) {
        terminal.print("\r" + " ".repeat(drawn) + "\r");
        terminal.flush();
        drawn = 0;
      }
    }
  }
}

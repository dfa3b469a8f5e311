package io.hostpace.testkit;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * What an adapter's live test reads of its engine while calls run (requests in flight and
 * waiting, over all hosts, groups left out; the attempts started), and a wait for what the engine
 * or a server shows.
 */
public final class EngineState {

  /** How long {@link #until} waits before it fails the test. */
  public static final Duration PATIENCE = Duration.ofSeconds(60);

  private EngineState() {}

  /** Requests in flight in {@code engine}, over all hosts. */
  public static int inFlight(Hostpace engine) {
    return engine.snapshot().stream().filter(h -> !h.group()).mapToInt(HostSnapshot::inFlight).sum();
  }

  /** Requests waiting in {@code engine}'s queues, over all hosts. */
  public static int waiting(Hostpace engine) {
    return engine.snapshot().stream().filter(h -> !h.group()).mapToInt(HostSnapshot::waiting).sum();
  }

  /** The attempts started among {@code events}, as {@code "/path 1"}. */
  public static List<String> started(List<HostpaceEvent> events) {
    return events.stream().filter(e -> e instanceof HostpaceEvent.Started).map(e -> (HostpaceEvent.Started) e)
        .map(e -> e.uri().getPath() + " " + e.attempt()).collect(Collectors.toList());
  }

  /** Waits until {@code condition} holds; fails the test if it does not within {@link #PATIENCE}. */
  public static void until(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached in 10 s");
      }
      Thread.sleep(5);
    }
  }
}

package io.hostpace.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

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

  /**
   * The engine's clock when each attempt at {@code path} (every path if null) started, among
   * {@code events}, in the order they started: listeners may hear two threads' decisions in
   * either order.
   */
  public static List<Long> startedAt(List<HostpaceEvent> events, @Nullable String path) {
    return events.stream()
        .filter(e -> e instanceof HostpaceEvent.Started
            && (path == null || ((HostpaceEvent.Started) e).uri().getPath().equals(path)))
        .map(HostpaceEvent::atNanos).sorted().collect(Collectors.toList());
  }

  /** The engine's clock when each attempt at {@code path} was refused, among {@code events}, in order. */
  public static List<Long> refusedAt(List<HostpaceEvent> events, String path) {
    return events.stream()
        .filter(e -> e instanceof HostpaceEvent.Refused && ((HostpaceEvent.Refused) e).uri().getPath().equals(path))
        .map(HostpaceEvent::atNanos).sorted().collect(Collectors.toList());
  }

  /**
   * Asserts that each attempt at {@code path} after the first started at least {@code pause}
   * after the refusal of the attempt before it, on the engine's clock (the times on its events):
   * a busy machine only makes the retry later.
   */
  public static void assertEachRetryWaited(List<HostpaceEvent> events, String path, Duration pause) {
    List<Long> starts = startedAt(events, path);
    List<Long> refusals = refusedAt(events, path);
    assertThat(refusals).as("refusals of %s in %s", path, events).hasSizeGreaterThanOrEqualTo(starts.size() - 1);
    for (int k = 1; k < starts.size(); k++) {
      assertThat(Duration.ofNanos(starts.get(k) - refusals.get(k - 1)))
          .as("attempt %d at %s after its refusal, in %s", k + 1, path, events).isGreaterThanOrEqualTo(pause);
    }
  }

  /** Waits until {@code condition} holds; fails the test if it does not within {@link #PATIENCE}. */
  public static void until(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached in " + PATIENCE);
      }
      Thread.sleep(5);
    }
  }
}

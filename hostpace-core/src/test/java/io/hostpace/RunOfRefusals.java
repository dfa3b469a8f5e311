package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import java.time.Duration;

/**
 * SPEC R14's wait, brought about through an engine: a host paced already (by what the builder's
 * store or fleet knows of it) that accepts, refuses, accepts, then refuses for a minute, sent five
 * requests at once. The refusals after its second accepted answer are a run after one accepted,
 * and at the run's second the next start waits two of the intervals the rule set.
 */
final class RunOfRefusals {

  static final String HOST = "run.test";

  private final VirtualTime time;
  private final Hostpace engine;
  private int refused;

  /** Builds the engine from {@code builder}, on {@code time}, and sends the five requests. */
  RunOfRefusals(VirtualTime time, Hostpace.Builder builder) {
    this.time = time;
    int[] arrivals = {0};
    long from = time.nanoTime();
    FakeServer host = new FakeServer(time, exchange -> {
      int arrival = arrivals[0]++;
      return (arrival == 0 || arrival == 2 || time.nanoTime() - from > 60_000_000_000L ? Reply.ok() : Reply.status(429))
          .after(Duration.ofMillis(50));
    });
    engine = builder.time(time).addListener(event -> refused += event instanceof HostpaceEvent.Refused ? 1 : 0).build();
    for (int i = 0; i < 5; i++) {
      engine.execute(host.get("http://" + HOST + "/" + i));
    }
  }

  /** Runs to the run's second refusal; the interval the engine holds the host to then, the wait, in nanoseconds. */
  long untilTheRunWaits() {
    for (int step = 0; refused < 3 && step < 6_000; step++) {
      time.advance(Duration.ofMillis(10));
    }
    assertThat(refused).as("refusals in the first minute").isEqualTo(3);
    return engine.snapshot().stream().filter(h -> h.key().equals(HOST)).findFirst().orElseThrow().interval().toNanos();
  }
}

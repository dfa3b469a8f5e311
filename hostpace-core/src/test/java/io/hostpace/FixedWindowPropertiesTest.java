package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.testing.FixedWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * SPEC R11 and R10 over random fixed windows: whatever a window's size, length and phase (where
 * its windows begin, against the engine's first start), and however the requests arrive, the
 * default engine loses none of them to its learning of the window, in virtual time. Windows last
 * at most 45 s, so that the host has always accepted a request within the retry delay limit.
 */
class FixedWindowPropertiesTest {

  /** {@code permits} accepted in each window of {@code lengthMillis}, the windows beginning {@code phaseMillis} into one. */
  record Window(int permits, int lengthMillis, int phaseMillis, int latencyMillis) {}

  /** How many windows' worth of requests, and over how long they arrive (0: all at once). */
  record Load(int windows, int spreadMillis, long seed) {}

  @Provide
  Arbitrary<Window> windows() {
    return Arbitraries.integers().between(1_000, 45_000).flatMap(length -> Combinators.combine(
            Arbitraries.integers().between(3, 40),
            Arbitraries.integers().between(0, length - 1),
            Arbitraries.integers().between(10, 800))
        .as((permits, phase, latency) -> new Window(permits, length, phase, latency)));
  }

  @Provide
  Arbitrary<Load> loads() {
    return Combinators.combine(
            Arbitraries.integers().between(2, 6), Arbitraries.of(0, 0, 10_000, 60_000), Arbitraries.longs())
        .as(Load::new);
  }

  @Property
  void R11_noRequestIsLostToFindingAWindowWhateverItsSizeLengthAndPhase(
      @ForAll("windows") Window window, @ForAll("loads") Load load) {
    VirtualTime time = VirtualTime.create();
    long origin = time.nanoTime();
    FixedWindow limit = FixedWindow.of(window.permits(), Duration.ofMillis(window.lengthMillis()),
        origin - Duration.ofMillis(window.phaseMillis()).toNanos());
    Duration latency = Duration.ofMillis(window.latencyMillis());
    FakeServer server = new FakeServer(time, exchange ->
        (limit.admit(time.nanoTime()) ? Reply.ok() : Reply.status(429)).after(latency));
    List<HostpaceEvent> events = new ArrayList<>();
    Hostpace engine = Hostpace.builder().time(time).addListener(events::add).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    Random random = new Random(load.seed());
    int requests = window.permits() * load.windows();
    for (int i = 0; i < requests; i++) {
      String uri = "http://window.test/" + i;
      int at = load.spreadMillis() == 0 ? 0 : random.nextInt(load.spreadMillis());
      time.schedule(() -> calls.add(engine.execute(server.get(uri))), Duration.ofMillis(at).toNanos());
    }
    time.runUntilIdle(Duration.ofHours(2));

    Statistics.label("quota learned").collect(events.stream().anyMatch(HostpaceEvent.QuotaChanged.class::isInstance));
    Statistics.label("quota learned").coverage(coverage -> coverage.check(true).percentage(p -> p > 10));
    assertThat(calls).hasSize(requests);
    assertThat(calls).allSatisfy(call -> assertThat(call.join().status()).isEqualTo(200));
    assertThat(events).noneMatch(HostpaceEvent.GaveUp.class::isInstance);
  }
}

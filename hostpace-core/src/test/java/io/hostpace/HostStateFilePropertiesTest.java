package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.HostState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Whatever hosts taught (a quota too), a saved file loads back to the same, and what taught nothing is not kept (SPEC S1). */
class HostStateFilePropertiesTest {

  record Taught(String key, long interval, int limit, long pauseMillis, int permits, long window) {
    boolean nothing() {
      return interval == 0 && limit == 0 && pauseMillis == 0 && permits == 0;
    }
  }

  @Provide
  Arbitrary<Taught> taught() {
    Arbitrary<String> keys = Combinators.combine(
            Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(12),
            Arbitraries.of("", ":8080", ".org"), Arbitraries.of("", "*."))
        // keys as the engine makes them: a group is a domain of two labels or more, without port
        .as((name, tail, group) -> group.isEmpty() ? name + tail : group + name + ".org");
    return Combinators.combine(keys,
            Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(1, 60_000_000_000L)),
            Arbitraries.oneOf(Arbitraries.just(0), Arbitraries.integers().between(1, 1000)),
            Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(1, Duration.ofHours(2).toMillis())),
            Arbitraries.oneOf(Arbitraries.just(0), Arbitraries.integers().between(1, 100_000)),
            Arbitraries.longs().between(1_000_000L, Duration.ofDays(1).toNanos()))
        // a quota's window is kept only with permits, as the engine's states keep it
        .as((key, interval, limit, pause, permits, window) ->
            new Taught(key, interval, limit, pause, permits, permits > 0 ? window : 0));
  }

  @Property
  void whatIsSavedLoadsBackAndWhatTaughtNothingIsNotKept(@ForAll @Size(max = 8) List<@net.jqwik.api.From("taught") Taught> hosts)
      throws IOException {
    Path dir = Files.createTempDirectory("host-state");
    try {
      VirtualTime time = VirtualTime.create();
      Path file = dir.resolve("state.tsv");
      HostStateFile first = HostStateFile.load(file, time, Duration.ofDays(1));
      java.util.Map<String, Taught> last = new java.util.TreeMap<>();
      for (Taught host : hosts) {
        HostState state = first.open(host.key());
        long now = time.nanoTime();
        state.interval(host.interval(), now);
        state.inFlightLimit(host.limit());
        state.quota(host.permits(), host.window());
        if (host.pauseMillis() > 0) {
          state.pauseUntil(now + host.pauseMillis() * 1_000_000L);
        }
        first.close(state);
        // A key taught again: its interval and limit are the last ones; a pause stays unless a new one replaces it.
        last.merge(host.key(), host, (before, now2) -> now2.pauseMillis() > 0 ? now2
            : new Taught(now2.key(), now2.interval(), now2.limit(), before.pauseMillis(), now2.permits(), now2.window()));
      }
      first.save();
      time.advance(Duration.ofSeconds(1));

      HostStateFile second = HostStateFile.load(file, time, Duration.ofDays(1));
      for (Taught host : last.values()) {
        HostState state = second.open(host.key());
        assertThat(state.interval()).as(host.toString()).isEqualTo(host.interval());
        assertThat(state.inFlightLimit()).as(host.toString()).isEqualTo(host.limit());
        assertThat(state.quotaPermits()).as(host.toString()).isEqualTo(host.permits());
        assertThat(state.quotaWindow()).as(host.toString()).isEqualTo(host.window());
        long pauseLeft = Math.max(0, host.pauseMillis() - 1000);
        if (pauseLeft > 0) {
          assertThat(state.paused()).as(host.toString()).isTrue();
          assertThat(state.pausedUntil() - time.nanoTime()).as(host.toString())
              .isBetween(pauseLeft * 1_000_000L - 1_000_000L, pauseLeft * 1_000_000L + 1_000_000L);
        } else {
          assertThat(state.paused() && state.pausedUntil() - time.nanoTime() > 0).as(host.toString()).isFalse();
        }
      }
      assertThat(second.keys()).containsExactlyElementsOf(last.values().stream()
          .filter(h -> h.interval() > 0 || h.limit() > 0 || h.permits() > 0 || h.pauseMillis() > 1000).map(Taught::key).sorted().toList());
    } finally {
      try (var files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
      Files.delete(dir);
    }
  }
}

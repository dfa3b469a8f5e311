package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.HostpaceEvent;
import io.hostpace.Rate;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The summary table fed the engine's events by hand: one row per host, what each column says. */
class HostSummaryTest {

  final HostSummary summary = new HostSummary();

  String printed() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aRowSaysWhatTheHostTaughtItsIntervalPauseLimitAndQuota() {
    URI uri = URI.create("http://gate.test/q");
    summary.onEvent(new HostpaceEvent.Queued("gate.test", uri, 1, 0));
    summary.onEvent(new HostpaceEvent.Refused("gate.test", uri, 1, 429, Duration.ofSeconds(1), 0));
    summary.onEvent(new HostpaceEvent.Paused("gate.test", Duration.ofSeconds(1), 0));
    summary.onEvent(new HostpaceEvent.InFlightLimitChanged("gate.test", 0, 4, 0));
    summary.onEvent(new HostpaceEvent.Queued("window.test", URI.create("http://window.test/q"), 1, 0));
    summary.onEvent(new HostpaceEvent.QuotaChanged("window.test", null, Rate.of(60, Duration.ofSeconds(60)), 0));
    summary.onEvent(new HostpaceEvent.QuotaChanged("window.test", Rate.of(60, Duration.ofSeconds(60)),
        Rate.of(61, Duration.ofMillis(63_200)), 0));
    summary.onEvent(new HostpaceEvent.IntervalChanged("window.test", Duration.ZERO, Duration.ofMillis(1042), 0));

    String table = printed();
    assertThat(table.lines().findFirst().orElseThrow()).contains("interval").contains("max pause")
        .contains("at once").contains("quota");
    String gate = table.lines().filter(l -> l.startsWith("gate.test ")).findFirst().orElseThrow();
    String window = table.lines().filter(l -> l.startsWith("window.test ")).findFirst().orElseThrow();
    assertThat(gate).matches("gate\\.test +1 +- +1 +0 +- +1000 ms +4 +-");
    assertThat(window).matches("window\\.test +1 +- +0 +0 +1042 ms +- +- +61 per 63\\.2 s");
  }

  @Test
  void aHostThatTaughtNothingShowsDashes() {
    summary.onEvent(new HostpaceEvent.Queued("plain.test", URI.create("http://plain.test/"), 1, 0));
    summary.onEvent(new HostpaceEvent.InFlightLimitChanged("plain.test", 4, 0, 0));   // forgotten
    String plain = printed().lines().filter(l -> l.startsWith("plain.test ")).findFirst().orElseThrow();
    assertThat(plain).matches("plain\\.test +1 +- +0 +0 +- +- +- +-");
  }
}

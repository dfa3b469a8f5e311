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
    return printed(132);
  }

  String printed(int width) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), width, Duration.ofMillis(41_230), 3);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** Three URLs: two hosts, one of them refused once and retried, one URL that got no answer. */
  void threeUrlsOfTwoHosts() {
    URI gate = URI.create("http://gate.test/q");
    URI long1 = URI.create("http://a-rather-long-host-name.example.org/one");
    URI long2 = URI.create("http://a-rather-long-host-name.example.org/two");
    String longKey = "a-rather-long-host-name.example.org";
    summary.onEvent(new HostpaceEvent.Queued("gate.test", gate, 1, 0));
    summary.onEvent(new HostpaceEvent.Refused("gate.test", gate, 1, 429, Duration.ofSeconds(1), 0));
    summary.onEvent(new HostpaceEvent.Retried("gate.test", gate, 1, Duration.ofSeconds(1), 0));
    summary.onEvent(new HostpaceEvent.Paused("gate.test", Duration.ofSeconds(1), 0));
    summary.onEvent(new HostpaceEvent.InFlightLimitChanged("gate.test", 0, 4, 0));
    summary.onEvent(new HostpaceEvent.Queued(longKey, long1, 1, 0));
    summary.onEvent(new HostpaceEvent.Queued(longKey, long2, 1, 0));
    summary.onEvent(new HostpaceEvent.IntervalChanged(longKey, Duration.ZERO, Duration.ofMillis(1042), 0));
    FetchRecord ok = new FetchRecord(gate.toString(), 200, 2, 1200, 1000, 5, null);
    FetchRecord ok2 = new FetchRecord(long1.toString(), 200, 1, 100, 0, 5, null);
    FetchRecord none = new FetchRecord(long2.toString(), FetchRecord.NO_ANSWER, 1, 100, 0, 0, "connection refused");
    for (FetchRecord record : new FetchRecord[] {ok, ok2, none}) {
      summary.outcome(URI.create(record.url()), record);
      summary.finished(record);
    }
  }

  /** What {@link #threeUrlsOfTwoHosts} prints at {@code width} columns, checked to fit in them. */
  String threeUrlsOfTwoHostsPrinted(int width) {
    threeUrlsOfTwoHosts();
    String printed = printed(width);
    assertThat(printed.lines()).as(printed).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(width));
    return printed;
  }

  @Test
  void at132ColumnsTheHostsAreATableAndTheTotalsALine() {
    assertThat(threeUrlsOfTwoHostsPrinted(132)).isEqualTo("""
        host                                 requests  answers       refusals  retries  interval  max pause  at once  quota
        a-rather-long-host-name.example.org         2  200:1 none:1         0        0   1042 ms          -        -      -
        gate.test                                   1  200:1                1        1         -    1000 ms        4      -
        total: 3 requests, 2 completed, 1 failed, 1 refusal, 1 retry, in 41.2 s
        """);
  }

  @Test
  void at80ColumnsEachHostHasALineAndWhatItTaughtIsWrappedBelow() {
    assertThat(threeUrlsOfTwoHostsPrinted(80)).isEqualTo("""
        a-rather-long-host-name.example.org
          requests 2, answers 200:1 none:1, refusals 0, retries 0, interval 1042 ms
        gate.test
          requests 1, answers 200:1, refusals 1, retries 1, max pause 1000 ms, at once 4
        total: 3 requests, 2 completed, 1 failed, 1 refusal, 1 retry, in 41.2 s
        """);
  }

  @Test
  void at60ColumnsTheSameIsWrappedNarrower() {
    assertThat(threeUrlsOfTwoHostsPrinted(60)).isEqualTo("""
        a-rather-long-host-name.example.org
          requests 2, answers 200:1 none:1, refusals 0, retries 0,
          interval 1042 ms
        gate.test
          requests 1, answers 200:1, refusals 1, retries 1,
          max pause 1000 ms, at once 4
        total: 3 requests, 2 completed, 1 failed, 1 refusal,
          1 retry, in 41.2 s
        """);
  }

  @Test
  void anInterruptedRunSaysHowManyOfItsUrlsWereDone() {
    FetchRecord ok = new FetchRecord("http://gate.test/q", 200, 1, 100, 0, 5, null);
    summary.finished(ok);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), 80, Duration.ofSeconds(75), 200);
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .isEqualTo("total: 1 of 200 requests done, 1 completed, 0 failed, 0 refusals, 0 retries,\n  in 1:15\n");
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

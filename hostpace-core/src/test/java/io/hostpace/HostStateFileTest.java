package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
import io.hostpace.spi.HostState;
import io.hostpace.testing.FixedWindow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC S1: what hosts taught, kept in a file, so that the next run does not pay for it again. */
class HostStateFileTest {

  final VirtualTime time = VirtualTime.create();
  /** One request a second, the rest refused with a bare 429 (QLever). */
  final FakeServer server = new FakeServer(time, oneASecond());
  @TempDir Path dir;

  FakeServer.Reply reply = Reply.ok();

  java.util.function.Function<FakeServer.FakeExchange, Reply> oneASecond() {
    long[] last = {Long.MIN_VALUE / 2};
    return exchange -> {
      long now = time.nanoTime();
      if (now - last[0] < 1_000_000_000L) {
        return Reply.status(429).after(Duration.ofMillis(50));
      }
      last[0] = now;
      return Reply.ok().after(Duration.ofMillis(50));
    };
  }

  HostStateFile load() throws IOException {
    return HostStateFile.load(dir.resolve("state.tsv"), time, Duration.ofDays(1));
  }

  /** A run of 30 requests at once; returns how many the host refused. */
  long run(HostStateFile kept) {
    java.util.concurrent.atomic.AtomicLong refused = new java.util.concurrent.atomic.AtomicLong();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(kept)
        .addListener(event -> {
          if (event instanceof HostpaceEvent.Refused) {
            refused.incrementAndGet();
          }
        })
        .build();
    for (int i = 0; i < 30; i++) {
      engine.execute(server.get("http://qlever.test/" + i));
    }
    time.runUntilIdle(Duration.ofHours(1));
    return refused.get();
  }

  @Test
  void S1_aSecondRunStartsAtThePaceTheFirstOneLearned() throws IOException {
    HostStateFile first = load();
    long refusedFirst = run(first);
    first.save();
    time.advance(Duration.ofMinutes(10));

    long refusedSecond = run(load());

    assertThat(refusedFirst).isGreaterThanOrEqualTo(29); // the opening burst of 30
    assertThat(refusedSecond).isLessThanOrEqualTo(3);    // only the rule's probes
  }

  @Test
  void S1_R14_aFileSavedWhileARunOfRefusalsHoldsAStartBackKeepsTheHostsPaceNotTheWait() throws IOException {
    HostStateFile kept = load();
    kept.open(RunOfRefusals.HOST).interval(1_000_000_000L, time.nanoTime()); // a pace a run before taught

    long waiting = new RunOfRefusals(time, Hostpace.builder().hostStateStore(kept)).untilTheRunWaits();
    kept.save();

    long pace = Long.parseLong(Files.readAllLines(kept.file()).get(1).split("\t")[2]);
    assertThat(pace).isPositive();
    assertThat(waiting).isEqualTo(2 * pace);
    assertThat(load().open(RunOfRefusals.HOST).interval()).isEqualTo(pace);
  }

  @Test
  void whatAHostBroughtFromTheFileIsHeardAsLearnedWhenTheEngineFirstHoldsIt() throws IOException {
    HostStateFile first = load();
    run(first);
    first.save();
    java.util.List<HostpaceEvent> events = new java.util.ArrayList<>();
    Hostpace next = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(load()).addListener(events::add).build();
    next.execute(server.get("http://qlever.test/again"));
    assertThat(events).filteredOn(HostpaceEvent.IntervalChanged.class::isInstance).first()
        .satisfies(e -> assertThat(((HostpaceEvent.IntervalChanged) e).from()).isZero())
        .satisfies(e -> assertThat(((HostpaceEvent.IntervalChanged) e).to()).isGreaterThan(Duration.ofMillis(900)));
  }

  @Test
  void S1_aPauseThatHasNotEndedIsKeptAsAWallClockTime() throws IOException {
    server.script(exchange -> Reply.refuse(429, "50").after(Duration.ZERO));
    HostStateFile first = load();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(first).build();
    engine.execute(server.get("http://kgf.test/1"));
    time.runDue();
    first.save();
    time.advance(Duration.ofSeconds(30));

    server.script(exchange -> Reply.ok().after(Duration.ZERO));
    Hostpace next = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(load()).build();
    next.execute(server.get("http://kgf.test/2"));
    time.advance(Duration.ofSeconds(19));   // paused until 50 s; the second run began at 30 s
    assertThat(server.startTimes("kgf.test/2")).isEmpty();
    time.advance(Duration.ofSeconds(1));
    assertThat(server.startTimes("kgf.test/2")).hasSize(1);
  }

  @Test
  void S1_whatAHostTaughtLongerAgoThanKeepForIsNotLoaded() throws IOException {
    HostStateFile first = load();
    run(first);
    first.save();
    assertThat(load().keys()).containsExactly("qlever.test");
    time.advance(Duration.ofDays(1).plusSeconds(1));
    assertThat(load().keys()).isEmpty();
  }

  @Test
  void S1_forgettingAHostForgetsItInTheFileToo() throws IOException {
    HostStateFile kept = load();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(kept).build();
    for (int i = 0; i < 3; i++) {
      engine.execute(server.get("http://qlever.test/" + i));
    }
    time.advance(Duration.ofSeconds(1));
    assertThat(kept.keys()).containsExactly("qlever.test");
    engine.forget("qlever.test");
    kept.save();
    // Kept as forgotten, with its time: a line of zeros, so that an older entry of another process does not come back.
    assertThat(Files.readAllLines(kept.file())).last().asString()
        .isEqualTo("qlever.test\t" + time.instant().toEpochMilli() + "\t0\t0\t0\t0\t0");
    assertThat(load().keys()).isEmpty();
  }

  @Test
  void theFileIsALinePerHostAndALineItDidNotWriteIsNamedWithWhatIsWrong() throws IOException {
    HostStateFile kept = load();
    run(kept);
    kept.save();
    List<String> lines = Files.readAllLines(kept.file());
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).startsWith("# hostpace host state, v2: ");
    assertThat(lines.get(1)).matches("qlever\\.test\\t\\d+\\t\\d+\\t0\\t0\\t0\\t0");

    Files.writeString(kept.file(), lines.get(0) + "\nqlever.test\t1\tfast\t0\t0\t0\t0\n");
    assertThatThrownBy(this::load).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host state file " + kept.file() + ", line 2: interval is not a whole number: 'fast'");
    Files.writeString(kept.file(), "qlever.test\t1\t2\n");
    assertThatThrownBy(this::load)
        .hasMessageEndingWith("line 1: expected 7 fields separated by tabs (5 in a file of version 1), got 3");
    Files.writeString(kept.file(), "qlever.test\t1\t" + Long.MAX_VALUE + "\t0\t0\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: interval " + Long.MAX_VALUE + " ns is more than a year");
    Files.writeString(kept.file(), "qlever.test\t1\t0\t0\t" + Long.MAX_VALUE + "\n");
    assertThatThrownBy(this::load).hasMessageContaining("line 1: paused until " + Long.MAX_VALUE + " is more than a year from now");
    // ASCII digits only, as everywhere else Hostpace reads a number: not a '+', not another script's digits.
    Files.writeString(kept.file(), "qlever.test\t1\t+5\t0\t0\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: interval is not a whole number: '+5'");
    Files.writeString(kept.file(), "qlever.test\t\u0663\t5\t0\t0\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: saved is not a whole number: '\u0663'");
    Files.writeString(kept.file(), "# hostpace host state, v\u0662: written by a test\nqlever.test\t1\t5\t0\t0\t0\t0\n");
    assertThatThrownBy(this::load).hasMessageContaining("line 1: version is not a whole number");
  }

  @Test
  void S1_aQuotaIsKeptBesideTheIntervalInFlightLimitAndPauseAndLoadsBack() throws IOException {
    HostStateFile first = load();
    long now = time.nanoTime();
    HostState state = first.open("api.test");
    state.interval(250_000_000L, now);
    state.inFlightLimit(4);
    state.quota(20, 30_000_000_000L);
    state.pauseUntil(now + 10_000_000_000L);
    first.save();
    long savedAt = time.instant().toEpochMilli();

    assertThat(Files.readAllLines(first.file())).containsExactly(
        "# hostpace host state, v2: key, saved (Unix ms), interval (ns), in-flight limit, paused until (Unix ms,"
            + " 0: none), quota permits (0: none), quota window (ns)",
        "api.test\t" + savedAt + "\t250000000\t4\t" + (savedAt + 10_000) + "\t20\t30000000000");
    time.advance(Duration.ofSeconds(4));
    HostState loaded = load().open("api.test");
    assertThat(loaded.interval()).isEqualTo(250_000_000L);
    assertThat(loaded.inFlightLimit()).isEqualTo(4);
    assertThat(loaded.quotaPermits()).isEqualTo(20);
    assertThat(loaded.quotaWindow()).isEqualTo(30_000_000_000L);
    assertThat(loaded.pausedUntil() - time.nanoTime()).isEqualTo(6_000_000_000L);

    // A quota alone is something taught: the host is kept for it.
    HostStateFile onlyAQuota = load();
    HostState quota = onlyAQuota.open("window.test");
    quota.quota(3, 10_000_000_000L);
    assertThat(onlyAQuota.keys()).containsExactly("api.test", "window.test");
  }

  @Test
  void S1_aFileOfVersion1StillLoadsWithNoQuota() throws IOException {
    long saved = time.instant().toEpochMilli() - 1000;
    Files.writeString(dir.resolve("state.tsv"), String.join("\n",
        "# hostpace host state, v1: key, saved (Unix ms), interval (ns), in-flight limit, paused until (Unix ms, 0: none)",
        "qlever.test\t" + saved + "\t1042000000\t3\t0", ""));

    HostState state = load().open("qlever.test");

    assertThat(state.interval()).isEqualTo(1_042_000_000L);
    assertThat(state.inFlightLimit()).isEqualTo(3);
    assertThat(state.quotaPermits()).isZero();
    assertThat(state.quotaWindow()).isZero();
  }

  @Test
  void S1_aQuotaFieldOrAVersionThisReleaseDoesNotReadIsNamedWithItsLine() throws IOException {
    Path file = dir.resolve("state.tsv");
    Files.writeString(file, "# hostpace host state, v2\nx.test\t1\t0\t0\t0\t3\tminute\n");
    assertThatThrownBy(this::load).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host state file " + file + ", line 2: quota window is not a whole number: 'minute'");
    Files.writeString(file, "x.test\t1\t0\t0\t0\t-3\t1000\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: quota permits must be zero or more, got -3");
    Files.writeString(file, "x.test\t1\t0\t0\t0\t3\t0\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: quota permits 3 without a quota window (0 ns)");
    Files.writeString(file, "x.test\t1\t0\t0\t0\t0\t1000\n");
    assertThatThrownBy(this::load)
        .hasMessageEndingWith("line 1: quota window 1000 ns without quota permits (0 permits: no quota, and a window of 0)");
    Files.writeString(file, "x.test\t1\t0\t0\t0\t" + (1L << 40) + "\t1000\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: quota permits " + (1L << 40) + " is too large");
    Files.writeString(file, "x.test\t1\t0\t0\t0\t3\t" + Long.MAX_VALUE + "\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: quota window " + Long.MAX_VALUE + " ns is more than a year");
    Files.writeString(file, "# hostpace host state, v3: what a later release keeps\nx.test\t1\t0\t0\t0\t0\t0\t7\n");
    assertThatThrownBy(this::load).hasMessage("host state file " + file
        + ", line 1: version 3 is not one this Hostpace reads (1 to 2): the file was written by another release");
  }

  @Test
  void S1_aKeptPauseOfADayUnderARetryDelayLimitOf5sPauses5s() throws IOException {
    long nowMillis = time.instant().toEpochMilli();
    Files.writeString(dir.resolve("state.tsv"),
        "kgf.test\t" + nowMillis + "\t0\t0\t" + (nowMillis + Duration.ofDays(1).toMillis()) + "\t0\t0\n");
    server.script(exchange -> Reply.ok().after(Duration.ZERO));
    List<HostpaceEvent> events = new java.util.ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(load())
        .retryDelayLimit(Duration.ofSeconds(5)).addListener(events::add).build();

    engine.execute(server.get("http://kgf.test/1"));
    time.advance(Duration.ofMillis(4999));
    assertThat(server.startTimes("kgf.test")).isEmpty();
    time.advance(Duration.ofMillis(1));
    assertThat(server.startTimes("kgf.test")).containsExactly("5.000");
    assertThat(events).filteredOn(HostpaceEvent.Paused.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((HostpaceEvent.Paused) e).pause()).isEqualTo(Duration.ofSeconds(5)));
  }

  @Test
  void S1_aLoadedQuotaHoldsTheFirstWindowsStartsAndIsHeardAsLearned() throws IOException {
    long nowMillis = time.instant().toEpochMilli();
    // Three a window of 10 s, kept by an earlier run.
    Files.writeString(dir.resolve("state.tsv"), "window.test\t" + nowMillis + "\t0\t0\t0\t3\t10000000000\n");
    server.script(exchange -> Reply.ok().after(Duration.ofMillis(50)));
    List<HostpaceEvent> events = new java.util.ArrayList<>();
    Hostpace engine = Hostpace.builder().time(time).hostStateStore(load()).addListener(events::add).build();

    for (int i = 0; i < 7; i++) {
      engine.execute(server.get("http://window.test/" + i));
    }
    time.advance(Duration.ofSeconds(25));

    // At 0 s the window's probe alone; at its answer, the window's other two; then a window each 10 s.
    assertThat(server.startTimes("window.test"))
        .containsExactly("0.000", "0.050", "0.050", "10.000", "10.050", "10.050", "20.000");
    assertThat(events).filteredOn(HostpaceEvent.QuotaChanged.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((HostpaceEvent.QuotaChanged) e).from()).isNull())
        .satisfies(e -> assertThat(((HostpaceEvent.QuotaChanged) e).to()).isEqualTo(Rate.of(3, Duration.ofSeconds(10))))
        .satisfies(e -> assertThat(e.atNanos()).isEqualTo(time.nanoTime() - Duration.ofSeconds(25).toNanos()));
  }

  @Test
  void S1_aQuotaLearnedInOneRunIsKeptAndHoldsTheNextRunFromItsFirstStart() throws IOException {
    // 20 requests in each window of 30 s from 0 s; beyond them a bare 429.
    FixedWindow twentyAWindow = FixedWindow.countingRefusals(20, Duration.ofSeconds(30), time.nanoTime());
    server.script(exchange -> twentyAWindow.admit(time.nanoTime())
        ? Reply.ok().after(Duration.ofMillis(50)) : Reply.status(429).after(Duration.ofMillis(50)));
    HostStateFile first = load();
    List<HostpaceEvent> firstRun = runOf(first, 300, "first");
    first.save();
    time.advance(Duration.ofMinutes(10));

    List<HostpaceEvent> nextRun = runOf(load(), 100, "next");

    assertThat(firstRun).filteredOn(HostpaceEvent.Refused.class::isInstance).as("the first run learned by refusals")
        .isNotEmpty();
    assertThat(nextRun).filteredOn(HostpaceEvent.QuotaChanged.class::isInstance).first()
        .satisfies(e -> assertThat(((HostpaceEvent.QuotaChanged) e).to()).isEqualTo(Rate.of(20, Duration.ofSeconds(30))));
    // From its first start: each window's probe alone, then the window's other 19 at its answer, 30 s apart; none refused.
    List<Double> starts = server.startTimes("/next/").stream().map(Double::parseDouble).toList();
    double from = starts.get(0);
    for (int window = 0; window < 5; window++) {
      List<Double> inWindow = starts.subList(20 * window, 20 * window + 20);
      assertThat(inWindow.get(0) - from).isCloseTo(30.0 * window, org.assertj.core.data.Offset.offset(0.001));
      assertThat(inWindow.get(19) - from).isCloseTo(30.0 * window + 0.05, org.assertj.core.data.Offset.offset(0.001));
    }
    assertThat(nextRun).noneMatch(HostpaceEvent.Refused.class::isInstance);
  }

  /** {@code count} requests at once to a host counting a fixed window, through an engine on {@code kept}; what the listener heard. */
  List<HostpaceEvent> runOf(HostStateFile kept, int count, String name) {
    List<HostpaceEvent> events = new java.util.ArrayList<>();
    Hostpace engine = Hostpace.builder().time(time).hostStateStore(kept).addListener(events::add).build();
    for (int i = 0; i < count; i++) {
      engine.execute(server.get("http://api.test/" + name + "/" + i));
    }
    time.runUntilIdle(Duration.ofHours(1));
    return events;
  }

  @Test
  void S1_aKeptKeyIsReadAsTheEngineKeysItAndOfTwoSpellingsOfOneHostTheLaterSavedHolds() throws IOException {
    long now = time.instant().toEpochMilli();
    Files.writeString(dir.resolve("state.tsv"), String.join("\n",
        "[0:0:0:0:0:0:0:1]:8080\t" + (now - 1000) + "\t2000000000\t0\t0",
        "[::1]:8080\t" + (now - 2000) + "\t1000000000\t0\t0",
        "Example.TEST.:443\t" + (now - 1000) + "\t500000000\t0\t0",
        "[::ffff:127.0.0.1]\t" + (now - 1000) + "\t300000000\t0\t0", ""));

    HostStateFile kept = load();

    assertThat(kept.keys()).containsExactly("127.0.0.1", "[::1]:8080", "example.test");
    assertThat(kept.open(HostKey.of(java.net.URI.create("http://[::1]:8080/"))).interval()).isEqualTo(2_000_000_000L);
    assertThat(kept.open(HostKey.of(java.net.URI.create("https://example.test/"))).interval()).isEqualTo(500_000_000L);
  }

  @Test
  void aKeptKeyThatIsNoHostsIsNamedWithItsLine() throws IOException {
    Files.writeString(dir.resolve("state.tsv"), "# header\nhttp://x.test/\t1\t0\t0\t0\n");
    assertThatThrownBy(this::load).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("host state file " + dir.resolve("state.tsv") + ", line 2: key 'http://x.test/' is not a host's:")
        .hasMessageContaining("has a scheme");
  }

  @Test
  void noFileYetIsAStoreThatKnowsNothing() throws IOException {
    HostStateFile kept = HostStateFile.load(dir.resolve("none/yet.tsv"), time, Duration.ofDays(1));
    assertThat(kept.keys()).isEmpty();
    kept.save();
    assertThat(Files.readAllLines(dir.resolve("none/yet.tsv"))).hasSize(1);
  }

  @Test
  void L2_aFileThatCannotBeSavedIsAWarningWithItsExceptionAndIsThrown() throws IOException {
    HostStateFile kept = HostStateFile.load(dir.resolve("plain/state.tsv"), time, Duration.ofDays(1));
    Files.writeString(dir.resolve("plain"), "a file where its folder should be");
    RecordingLogger log = new RecordingLogger(System.Logger.Level.INFO);

    assertThatThrownBy(() -> kept.save(log)).isInstanceOf(IOException.class);
    assertThat(log.at(System.Logger.Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.message()).startsWith("cannot save host state to " + dir.resolve("plain/state.tsv"));
      assertThat(line.thrown()).isInstanceOf(IOException.class);
    });
  }
}

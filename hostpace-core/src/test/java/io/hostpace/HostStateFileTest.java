package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.FakeServer.Reply;
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
        .listener(event -> {
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
  void whatAHostBroughtFromTheFileIsHeardAsLearnedWhenTheEngineFirstHoldsIt() throws IOException {
    HostStateFile first = load();
    run(first);
    first.save();
    java.util.List<HostpaceEvent> events = new java.util.ArrayList<>();
    Hostpace next = Hostpace.builder().widenFirstContact(false).time(time).hostStateStore(load()).listener(events::add).build();
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
    assertThat(Files.readAllLines(kept.file())).singleElement().asString().startsWith("#");
  }

  @Test
  void theFileIsALinePerHostAndALineItDidNotWriteIsNamedWithWhatIsWrong() throws IOException {
    HostStateFile kept = load();
    run(kept);
    kept.save();
    List<String> lines = Files.readAllLines(kept.file());
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1)).matches("qlever\\.test\\t\\d+\\t\\d+\\t0\\t0");

    Files.writeString(kept.file(), lines.get(0) + "\nqlever.test\t1\tfast\t0\t0\n");
    assertThatThrownBy(this::load).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host state file " + kept.file() + ", line 2: interval is not a whole number: 'fast'");
    Files.writeString(kept.file(), "qlever.test\t1\t2\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: expected 5 fields separated by tabs, got 3");
    Files.writeString(kept.file(), "qlever.test\t1\t" + Long.MAX_VALUE + "\t0\t0\n");
    assertThatThrownBy(this::load).hasMessageEndingWith("line 1: interval " + Long.MAX_VALUE + " ns is more than a year");
    Files.writeString(kept.file(), "qlever.test\t1\t0\t0\t" + Long.MAX_VALUE + "\n");
    assertThatThrownBy(this::load).hasMessageContaining("line 1: paused until " + Long.MAX_VALUE + " is more than a year from now");
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
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SPEC L1 and L2: the engine's decisions at DEBUG, and what its listeners threw at WARNING. */
class EventLogTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, RefusalTest.refuseFirst(1, Reply.status(429)));

  @Test
  void L1_eachDecisionIsADebugLineWithItsHostKeyAndWhatWasDecidedEvenWithNoListener() {
    RecordingLogger log = new RecordingLogger(Level.DEBUG);
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(log.messagesAt(Level.DEBUG)).containsExactly(
        "a.test: attempt 1 of http://a.test/ queued",
        "a.test: attempt 1 of http://a.test/ started after waiting 0 ms",
        "a.test: attempt 1 of http://a.test/ refused with 429, no Retry-After",
        "a.test: interval between starts 0 ms -> 250 ms",
        "a.test: attempt 2 of http://a.test/ queued again after 0 ms",
        "a.test: attempt 2 of http://a.test/ queued",
        "a.test: attempt 2 of http://a.test/ started after waiting 150 ms",
        "a.test: interval between starts 250 ms -> 210 ms");
  }

  @Test
  void L1_aLineShowsNoPasswordOfAUriAndSaysAPauseAndAGivingUp() {
    RecordingLogger log = new RecordingLogger(Level.DEBUG);
    server.script(exchange -> Reply.refuse(429, "2"));
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).retries(0).logger(log).build();
    engine.execute(server.get("http://user:secret@b.test/x"));
    time.advance(Duration.ofSeconds(1));

    assertThat(log.messagesAt(Level.DEBUG))
        .contains("b.test: attempt 1 of http://***@b.test/x refused with 429, Retry-After 2 s",
            "b.test: paused: starts nothing for 2 s")
        .anyMatch(line -> line.startsWith("b.test: gave up on http://***@b.test/x after 1 attempts, last refused with 429: "))
        .noneMatch(line -> line.contains("secret"));
  }

  @Test
  void L1_withDebugOffNoLineIsBuiltThoughAListenerHearsEveryEvent() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    List<HostpaceEvent> heard = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).addListener(heard::add).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(heard).hasSize(8);
    assertThat(log.lines).isEmpty(); // the logger keeps even what it would not log: nothing was asked
  }

  @Test
  void L1_withDebugOffAndNoListenerNoEventIsBuilt() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(new RecordingLogger(Level.INFO)).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(engine.scheduler().outbox.eventsBuilt()).isZero();
  }

  @Test
  void L2_aListenerThatThrowsIsAWarningWithItsExceptionOnceAMinuteSayingHowManyWereNot() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    IllegalStateException boom = new IllegalStateException("boom");
    List<String> heard = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log)
        .addListener(event -> {
          throw boom;
        })
        .addListener(event -> heard.add(event.getClass().getSimpleName()))
        .build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(heard).hasSize(8); // the one after it still hears every event
    assertThat(log.at(Level.WARNING)).singleElement().satisfies(line -> {
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("threw java.lang.IllegalStateException").doesNotContain("more like it");
    });

    time.advance(Duration.ofMinutes(1));
    engine.execute(server.get("http://a.test/again"));
    time.advance(Duration.ofSeconds(1));

    assertThat(log.messagesAt(Level.WARNING)).hasSize(2).last().asString().contains("(and 7 more like it");
  }

  @Test
  void L2_anAttemptListenerThatThrowsIsAWarningWithItsException() {
    RecordingLogger log = new RecordingLogger(Level.INFO);
    IllegalStateException boom = new IllegalStateException("boom");
    AttemptListener throwing = new AttemptListener() {
      @Override
      public void sent(URI uri, int attempt) {
        throw boom;
      }
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(log).build();
    var call = engine.execute(server.get("http://a.test/"), CallContext.builder().attemptListener(throwing).build());
    time.advance(Duration.ofSeconds(1));

    assertThat(call.join().status()).isEqualTo(200);
    assertThat(log.at(Level.WARNING)).singleElement().extracting(RecordingLogger.Line::thrown).isSameAs(boom);
  }
}

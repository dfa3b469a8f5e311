package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** SPEC A1 and U1, the engine's decision events, and its snapshot. */
class ListenersTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, RefusalTest.refuseFirst(1, Reply.status(429)));
  /** For the listeners that throw: what they throw is logged (EventLogTest), not printed here. */
  final RecordingLogger quiet = new RecordingLogger(System.Logger.Level.INFO);

  @Test
  void A1_theAttemptListenerHearsSentSettledAndRetryingSoACallerCanTimeTheServerAlone() {
    List<String> heard = new ArrayList<>();
    AttemptListener listener = new AttemptListener() {
      @Override
      public void sent(URI uri, int attempt) {
        heard.add(server.now() + " sent " + attempt);
      }

      @Override
      public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
        heard.add(server.now() + " settled " + attempt + " " + status);
      }

      @Override
      public void retrying(URI uri, int attempt) {
        heard.add(server.now() + " retrying " + attempt);
      }
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    engine.execute(server.get("http://a.test/"), CallContext.builder().attemptListener(listener).build());
    time.advance(Duration.ofSeconds(1));

    assertThat(heard).containsExactly(
        "0.000 sent 1", "0.100 settled 1 429", "0.100 retrying 1", "0.250 sent 2", "0.350 settled 2 200");
  }

  @Test
  void A1_aListenerThatThrowsCannotBreakTheCall() {
    AttemptListener throwing = new AttemptListener() {
      @Override
      public void sent(URI uri, int attempt) {
        throw new IllegalStateException("boom");
      }
    };
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(quiet).addListener(event -> {
      throw new IllegalStateException("boom");
    }).build();
    CompletableFuture<Response> call =
        engine.execute(server.get("http://a.test/"), CallContext.builder().attemptListener(throwing).build());
    time.advance(Duration.ofSeconds(1));
    assertThat(call.join().status()).isEqualTo(200);
  }

  @Test
  void everyDecisionIsAnEventInOrder() {
    List<HostpaceEvent> events = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(events::add).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(events).extracting(event -> event.getClass().getSimpleName()).containsExactly(
        "Queued", "Started", "Refused", "IntervalChanged", "Retried", "Queued", "Started", "IntervalChanged");
    assertThat(events.get(3)).isEqualTo(new HostpaceEvent.IntervalChanged(
        "a.test", Duration.ZERO, Duration.ofMillis(250), events.get(3).atNanos()));
  }

  @Test
  void severalListenersEachHearEveryEventInTheOrderAddedAndOneThatThrowsStopsNone() {
    List<String> heard = new ArrayList<>();
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).logger(quiet)
        .addListener(event -> heard.add("first " + event.getClass().getSimpleName()))
        .addListener(event -> {
          throw new IllegalStateException("a broken listener");
        })
        .addListener(event -> heard.add("third " + event.getClass().getSimpleName()))
        .build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));

    assertThat(heard).hasSize(16).startsWith("first Queued", "third Queued", "first Started", "third Started");
  }

  @Test
  void noEventIsBuiltWhenNobodyListens() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    engine.execute(server.get("http://a.test/"));
    time.advance(Duration.ofSeconds(1));
    // The scheduler builds events through a factory only when a listener is installed; with none,
    // the outbox of events stays empty (checked through the package-private hook).
    assertThat(engine.scheduler().outbox.eventsBuilt()).isZero();
  }

  @Test
  void theSnapshotTellsWhatTheEngineKnowsPerHostAndGroup() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addLimit("*.example.org", Limits.inFlight(1)).build();
    server.script(exchange -> exchange.uri.getPath().equals("/refused")
        ? Reply.refuse(429, "30").after(Duration.ZERO)
        : Reply.ok().after(Duration.ofSeconds(5)));
    engine.execute(server.get("http://a.example.org/1"));
    engine.execute(server.get("http://a.example.org/2"));
    engine.execute(server.get("http://b.test/refused"));
    time.advance(Duration.ofSeconds(1));

    assertThat(engine.snapshot()).containsExactly(
        new HostSnapshot("*.example.org", true, 1, 1, 1, Duration.ZERO, Duration.ZERO, 0, null, 1, 0, 0, 0),
        new HostSnapshot("a.example.org", false, 1, 1, 1, Duration.ZERO, Duration.ZERO, 0, null, 1, 0, 0, 0),
        new HostSnapshot("b.test", false, 1, 0, 1, Duration.ofSeconds(29), Duration.ZERO, 0, null, 1, 1, 1, 0));
  }

  @Test
  void U1_theDefaultUserAgentNamesHostpaceItsVersionAndTheProject() {
    assertThat(Hostpace.create().userAgent())
        .matches("hostpace/[0-9][^ ]* \\(\\+https://[^ )]+\\)")
        .isEqualTo(Hostpace.DEFAULT_USER_AGENT);
    assertThat(Hostpace.builder().widenFirstContact(false).userAgent("my-crawler/1.0 (ops@example.org)").build().userAgent())
        .isEqualTo("my-crawler/1.0 (ops@example.org)");
  }
}

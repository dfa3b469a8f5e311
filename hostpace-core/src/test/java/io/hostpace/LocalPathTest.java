package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import io.hostpace.testing.ScriptedExchange;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SPEC P14, which calls take the local path: a host's calls that start at once and are accepted; the lock
 * adopts a host while one of its calls waits and hands it back once none does; an engine set up
 * with something the local path cannot keep to (a store or a rule of its own) never takes it; a
 * listener hears a call of the local path as one of the lock's.
 */
class LocalPathTest {

  private final VirtualTime time = VirtualTime.startingAt(0, java.time.Instant.parse("2026-01-01T00:00:00Z"));

  private static ScriptedExchange<Integer> answeredBy(CompletableFuture<Integer> answer) {
    return ScriptedExchange.statuses("http://one.test/").answers(number -> answer).build();
  }

  private static ScriptedExchange<Integer> ok() {
    return ScriptedExchange.statuses("http://one.test/").answers(ScriptedExchange.inTurn(List.of(200))).build();
  }

  @Test
  void P14_aHostIsTheLocksWhileACallOfItWaitsAndTheLocalPathsAgainOnceNoneDoes() {
    Hostpace engine = Hostpace.builder().time(time).limitsForEveryHost(Limits.inFlight(1)).widenFirstContact(false).build();
    CompletableFuture<Integer> first = new CompletableFuture<>();
    CompletableFuture<Integer> second = new CompletableFuture<>();
    CompletableFuture<Integer> firstCall = engine.execute(answeredBy(first));
    CompletableFuture<Integer> secondCall = engine.execute(answeredBy(second));
    assertThat(engine.localStarts()).as("the first starts at once, the second waits for its place").isEqualTo(1);
    assertThat(engine.snapshot()).singleElement().satisfies(host -> assertThat(host.waiting()).isEqualTo(1));

    first.complete(200); // its place goes to the second, which the lock starts
    assertThat(firstCall).isCompletedWithValue(200);
    assertThat(engine.snapshot()).singleElement().satisfies(host -> {
      assertThat(host.inFlight()).isEqualTo(1);
      assertThat(host.waiting()).isZero();
    });
    second.complete(200);
    assertThat(secondCall).isCompletedWithValue(200);

    CompletableFuture<Integer> third = engine.execute(ok());
    assertThat(third).isCompletedWithValue(200);
    assertThat(engine.localStarts()).as("handed back, the host's next call starts on the local path").isEqualTo(2);
    assertThat(engine.readinessChecks()).as("each call looked at as it came, the second again as it started").isEqualTo(4);
  }

  @Test
  void P14_aCallAnsweredAsItIsSentNeverTakesTheEnginesLock() {
    Hostpace engine = Hostpace.builder().time(time).build();
    for (int i = 0; i < 20; i++) {
      URI uri = URI.create("http://h" + i % 4 + ".test/" + i);
      ScriptedExchange<Integer> exchange = ScriptedExchange.statuses(uri.toString()).answers(ScriptedExchange.inTurn(List.of(200))).build();
      assertThat(engine.execute(exchange)).isCompletedWithValue(200);
    }
    assertThat(engine.localStarts()).isEqualTo(20);
    // Its future is done as the engine finishes queueing it, which looks whether the caller gave
    // up meanwhile: a call that ended holds nothing to free, and is not taken to the lock for it.
    assertThat(engine.lockTurns()).as("turns of the engine's lock").isZero();
  }

  @Test
  void P14_anEngineWithAStoreOrRuleOfItsOwnNeverTakesTheLocalPath() {
    List<Hostpace> engines = List.of(
        Hostpace.builder().time(time).hostStateStore(HostStateStore.inMemory(state -> {})).build(),
        Hostpace.builder().time(time).learningRule(new RandomWorkload.SparingNoRetries(LearningRule.hostpace())).build(),
        Hostpace.builder().time(time).learningRule(LearningRule.seed()).build(),
        Hostpace.builder().time(time).build());
    for (Hostpace engine : engines) {
      assertThat(engine.execute(ok())).isCompletedWithValue(200);
    }
    assertThat(engines.stream().map(Hostpace::localStarts)).containsExactly(0L, 0L, 1L, 1L);
  }

  @Test
  void P14_aListenerHearsACallOfTheLocalPathAsItHearsOneOfTheLocks() {
    List<HostpaceEvent> heard = new ArrayList<>();
    Hostpace engine = Hostpace.builder().time(time).addListener(heard::add).build();
    assertThat(engine.execute(ok())).isCompletedWithValue(200);
    assertThat(engine.localStarts()).isEqualTo(1);
    assertThat(heard).extracting(event -> event.getClass().getSimpleName()).containsExactly("Queued", "Started");
  }
}

package io.hostpace.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.RecordingLogger;
import io.hostpace.VirtualTime;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-memory store, and the one that tells a listener what each change taught (SPEC S1's base). */
class HostStateStoreTest {

  @Test
  void S1_aPublishingStoreTellsEachChangeOfWhatAHostTaughtAndNothingElse() {
    List<String> told = new ArrayList<>();
    HostState state = HostStateStore.inMemory(changed ->
        told.add(changed.key() + " interval " + changed.interval() + " limit " + changed.inFlightLimit()
            + " paused " + changed.paused() + " quota " + changed.quotaPermits())).open("a.test");

    state.start(5);
    state.memory("the rule's own");
    state.interval(250, 10);
    state.inFlightLimit(4);
    state.pauseUntil(99);
    state.clearPause();
    state.quota(60, 1_000);

    assertThat(told).containsExactly(
        "a.test interval 250 limit 0 paused false quota 0",
        "a.test interval 250 limit 4 paused false quota 0",
        "a.test interval 250 limit 4 paused true quota 0",
        "a.test interval 250 limit 4 paused false quota 0",
        "a.test interval 250 limit 4 paused false quota 60");
    assertThat(state.lastStart()).isEqualTo(5);
    assertThat(state.memory()).isEqualTo("the rule's own");
  }

  @Test
  void theInMemoryStoreOpensAStateThatKnowsNothing() {
    HostState state = HostStateStore.inMemory().open("b.test");
    assertThat(state.key()).isEqualTo("b.test");
    assertThat(state.started()).isFalse();
    assertThat(state.paused()).isFalse();
    assertThat(state.interval()).isZero();
    assertThat(state.inFlightLimit()).isZero();
    assertThat(state.memory()).isNull();
  }

  @Test
  void L2_aListenerThatThrowsIsAWarningAndTheChangeStands() {
    RecordingLogger logger = new RecordingLogger(Level.INFO);
    IllegalStateException boom = new IllegalStateException("a store's fault");
    HostState state = new InMemoryHostStateStore(changed -> {
      throw boom;
    }, new FailureLog(logger, VirtualTime.create(), Duration.ofMinutes(1))).open("a.test");

    state.interval(250, 10);
    state.inFlightLimit(4);

    assertThat(state.interval()).isEqualTo(250);
    assertThat(state.inFlightLimit()).isEqualTo(4);
    assertThat(logger.lines).singleElement().satisfies(line -> {
      assertThat(line.level()).isEqualTo(Level.WARNING);
      assertThat(line.thrown()).isSameAs(boom);
      assertThat(line.message()).contains("threw java.lang.IllegalStateException on a change of a.test");
    });
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SPEC S1: what any store opens, not only a state file, is held to this run's limits before the host's first start. */
class OpenedStateTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok().after(Duration.ofMillis(50)));
  final List<HostpaceEvent> events = new ArrayList<>();

  /** A store that opens {@code far.test} knowing more than this run allows: a pause of a day, an interval past the clamp, a negative in-flight limit. */
  final HostStateStore beyondTheLimits = new HostStateStore() {
    final HostStateStore memory = HostStateStore.inMemory();

    @Override
    public HostState open(String key) {
      HostState state = memory.open(key);
      if (key.equals("far.test")) {
        state.pauseUntil(time.nanoTime() + Duration.ofDays(1).toNanos());
        state.interval(Long.MAX_VALUE, time.nanoTime());
        state.inFlightLimit(-2);
      }
      return state;
    }

    @Override
    public void close(HostState state) {
      memory.close(state);
    }
  };

  @Test
  void S1_aStoresPauseOfADayIsHeldTo5sAndItsIntervalToTheClamp() {
    Hostpace engine = Hostpace.builder().time(time).hostStateStore(beyondTheLimits)
        .retryDelayLimit(Duration.ofSeconds(5)).addListener(events::add).build();

    engine.execute(server.get("http://far.test/1"));
    time.advance(Duration.ofSeconds(6));

    assertThat(server.startTimes("far.test")).containsExactly("5.000");
    assertThat(events).filteredOn(HostpaceEvent.Paused.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((HostpaceEvent.Paused) e).pause()).isEqualTo(Duration.ofSeconds(5)));
    assertThat(events).filteredOn(HostpaceEvent.IntervalChanged.class::isInstance).first()
        .satisfies(e -> assertThat(((HostpaceEvent.IntervalChanged) e).to()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE / 4)));
    // A negative in-flight limit is none: the request went, and the listener never heard it change from -2.
    assertThat(events).noneMatch(HostpaceEvent.InFlightLimitChanged.class::isInstance);
  }
}

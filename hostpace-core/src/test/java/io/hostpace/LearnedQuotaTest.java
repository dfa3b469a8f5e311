package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.OnceRefused;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The default rule recognises a quota counted in fixed windows from bare refusals, and the engine
 * then spaces the host's starts by it (the simulator's fixed-window scenario, smaller).
 */
class LearnedQuotaTest {

  final VirtualTime time = VirtualTime.create();
  final long origin = time.nanoTime();
  final List<HostpaceEvent> events = new ArrayList<>();
  final FixedWindow twentyAWindow = FixedWindow.countingRefusals(20, Duration.ofSeconds(30), origin);
  final FakeServer server = new FakeServer(time, exchange -> fixedWindow());

  /** 20 requests in each window of 30 s from 0 s; beyond them a bare 429. */
  Reply fixedWindow() {
    return twentyAWindow.admit(time.nanoTime()) ? Reply.ok().after(Duration.ofMillis(50)) : Reply.status(429).after(Duration.ofMillis(50));
  }

  @Test
  void afterTheFirstWindowTheEngineStartsAWindowsQuotaAtOnceAndFindsWhereTheWindowsBegin() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(events::add).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      calls.add(engine.execute(server.get("http://api.test/" + i)));
    }
    time.advance(Duration.ofMinutes(10));

    HostpaceEvent.QuotaChanged learned = (HostpaceEvent.QuotaChanged) events.stream()
        .filter(HostpaceEvent.QuotaChanged.class::isInstance).findFirst().orElseThrow();
    assertThat(learned.from()).isNull();
    // 20 a window, and in the first window one more, to see whether the quota holds.
    assertThat(learned.to().permits()).isEqualTo(21);
    // Learned when the wall ended: its probes came from 3 s after it began (a run of twenty: SPEC
    // R11), at twice the time each, the last refused at 15.4 s.
    assertThat(seconds(learned.atNanos())).isBetween(30.0, 31.0);
    assertThat(engine.snapshot().get(0).quota().per().toMillis()).isBetween(29_700L, 30_300L);

    // Ten windows for 200 requests: the last starts within half a second of 270 s.
    List<String> starts = server.startTimes("api.test");
    assertThat(Double.parseDouble(starts.get(starts.size() - 1))).isBetween(270.0, 270.5);
    // Once learned, the tries of one more than the quota are refused (in the first and fifth
    // windows), and one probe more: the wall's probes bound the first boundary between 15.4 s and
    // 30.8 s, which allows windows shorter than 30 s; the probe where the first length taken put the
    // next boundary, at 40.1 s, is refused, and the windows are learned again from it (SPEC R11);
    // then a start 22.5 s after the window found began, the check that 30 s is not longer than the
    // host's windows (which would accept every probe of such a count), is refused too. Each probe
    // after that is accepted.
    long refusedAfter = events.stream()
        .filter(e -> e instanceof HostpaceEvent.Refused && e.atNanos() - learned.atNanos() > 0).count();
    assertThat(refusedAfter).isEqualTo(4);
    // None lost (SPEC R10): the oldest request, refused in the opening burst and then at each of
    // the wall's probes (SPEC T1: the oldest goes first), spent no retry on those refusals, the
    // host having accepted the window's others since it came.
    assertThat(events).noneMatch(HostpaceEvent.GaveUp.class::isInstance);
    assertThat(calls.stream().filter(call -> call.join().status() == 200).count()).isEqualTo(200);
  }

  @Test
  void aWallThatWasAnOutageTeachesAQuotaThatTheNextWindowDisprovesAtOnce() {
    VirtualTime clock = time;
    FakeServer healthy = new FakeServer(clock, exchange -> {
      double at = seconds(clock.nanoTime());
      // Down from 5 s to 35 s, refusing everything; before and after, it takes all we send.
      return Reply.status(at >= 5 && at < 35 ? 503 : 200).after(Duration.ofMillis(50));
    });
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).addListener(events::add).build();
    for (int i = 0; i < 1200; i++) {
      String uri = "http://api.test/" + i;
      time.schedule(() -> engine.execute(healthy.get(uri)), Duration.ofMillis(50L * i).toNanos()); // 20 a second
    }
    time.advance(Duration.ofMinutes(5));

    List<HostpaceEvent.QuotaChanged> quotas = events.stream()
        .filter(HostpaceEvent.QuotaChanged.class::isInstance).map(HostpaceEvent.QuotaChanged.class::cast).toList();
    // The 100 accepted in the first 5 s, then a wall of 30 s: it looks like 100 a window ...
    assertThat(quotas).hasSize(2);
    assertThat(quotas.get(0).to().permits()).isEqualTo(101); // 100, and one more tried
    // ... until the 101st of the first window is accepted: no quota.
    assertThat(quotas.get(1).to()).isNull();
    assertThat(quotas.get(1).atNanos() - quotas.get(0).atNanos()).isLessThan(Duration.ofSeconds(10).toNanos());
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.quota()).isNull());
  }

  @Test
  void R7_forgettingTheHostForgetsItsQuota() {
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    for (int i = 0; i < 200; i++) {
      engine.execute(server.get("http://api.test/" + i));
    }
    time.advance(Duration.ofSeconds(50));
    assertThat(engine.snapshot().get(0).quota()).isNotNull();

    engine.forget("api.test");

    assertThat(engine.snapshot().get(0).quota()).isNull();
  }

  @Test
  void aRefusalWithinAWindowStopsTheHostsStartsUntilItEndsThoughTheEngineCountedFewerThanTheQuota() {
    // The host takes 2 a minute from 0 s (others use the rest); the rule holds it to 5 a minute.
    int[] taken = new int[16];
    FakeServer shared = new FakeServer(time, exchange -> {
      int minute = (int) ((time.nanoTime() - origin) / 60_000_000_000L);
      return ++taken[minute] <= 2 ? Reply.ok().after(Duration.ofMillis(50)) : Reply.status(429).after(Duration.ofMillis(50));
    });
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).learningRule(OnceRefused.quota(5, Duration.ofMinutes(1))).build();
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String uri = "http://api.test/r" + i;
      time.schedule(() -> calls.add(engine.execute(shared.get(uri))), Duration.ofSeconds(i).toNanos());
    }
    time.advance(Duration.ofMinutes(3));

    assertThat(calls).hasSize(3).allSatisfy(call -> assertThat(call.join().status()).isEqualTo(200));
    // r2, refused at 2 s, taught the quota, its window counted from its start; its retry, refused
    // too, says the window is full: nothing more starts in it, though the engine counted 2 of 5.
    assertThat(shared.startTimes("/r2")).containsExactly("2.000", "2.050", "62.000");
  }

  double seconds(long at) {
    return (at - origin) / 1e9;
  }
}

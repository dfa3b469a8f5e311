package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.testing.TokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SPEC R13 in virtual time: a host counts requests as they arrive, not as they were started, and
 * on a network two requests started an interval apart arrive closer when the first was slow on its
 * way and the second fast. The default rule's intervals leave room for the spread of the host's
 * round trips.
 */
class TripMarginTest {

  final VirtualTime time = VirtualTime.create();
  final FakeServer server = new FakeServer(time, exchange -> Reply.ok().after(Duration.ofMillis(50)));

  /**
   * Scripts the server as a token bucket of one a second, burst 1, bare 429 beyond it, that judges
   * each request when it arrives: the requests' ways there take {@code slowMs}, then {@code fastMs}
   * twice, in turn (so that the accepted ones take both, however refusals fall between them), their
   * answers {@code backMs} more. Returns the times it refused at, in seconds.
   */
  List<Double> oneASecondOnAJitteryWay(long slowMs, long fastMs, long backMs) {
    TokenBucket bucket = TokenBucket.of(1, 1, time.nanoTime());
    long from = time.nanoTime();
    List<Double> refused = new ArrayList<>();
    int[] sent = {0};
    server.script(exchange -> {
      long way = sent[0]++ % 3 == 0 ? slowMs : fastMs;
      long arrival = time.nanoTime() + Duration.ofMillis(way).toNanos();
      // Arrivals a second apart keep the order of their starts, so the bucket sees its times in order.
      Duration trip = Duration.ofMillis(way + backMs);
      if (bucket.admit(arrival)) {
        return Reply.ok().after(trip);
      }
      refused.add((arrival - from) / 1e9);
      return Reply.status(429).after(trip);
    });
    return refused;
  }

  @Test
  void R13_aHostsPaceLeavesRoomForTheSpreadOfItsRoundTrips() {
    List<Double> refused = oneASecondOnAJitteryWay(35, 5, 5);
    Hostpace engine = Hostpace.builder().time(time).build();
    List<CompletableFuture<FakeServer.Response>> calls = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      calls.add(engine.execute(server.get("http://jittery.test/" + i)));
    }
    time.advance(Duration.ofMinutes(5));

    assertThat(calls).allSatisfy(call -> assertThat(call).isCompletedWithValueMatching(r -> r.status() == 200));
    // First contact's three in its first second (SPEC P12, R12) and the bracket's try of its lower
    // end, then none while the bracket narrows: its last gaps, a little over a second between
    // starts, would otherwise arrive under a second apart after a slow way and a fast one. Then the
    // rule's probes beyond its plateau, about a minute apart.
    assertThat(refused).hasSize(6);
    assertThat(refused.subList(0, 3)).allSatisfy(at -> assertThat(at).isLessThan(1));
    assertThat(refused.get(3)).isLessThan(5);
    assertThat(refused.get(4)).isGreaterThan(20);
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.RefusingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * SPEC R8 under random windows, loads and in-flight limits, in virtual time: a server counts
 * {@code limit} requests in each fixed window and says on every answer what is left and when the
 * window ends. Once an answer of a window has arrived, the engine never starts a request that the
 * window refuses: it starts no more than remain. Every call ends, and nothing is left in flight.
 */
class AnnouncedQuotaPropertiesTest {

  @Property
  void onceAWindowHasAnsweredNothingStartedInItIsRefused(
      @ForAll @IntRange(min = 1, max = 12) int limit,
      @ForAll @IntRange(min = 1, max = 10) int windowSeconds,
      @ForAll @IntRange(min = 1, max = 40) int inFlight,
      @ForAll @IntRange(min = 10, max = 900) int latencyMillis,
      @ForAll @IntRange(min = 1, max = 120) int requests,
      @ForAll @LongRange(min = 0, max = 30_000) long spreadMillis,
      @ForAll long seed) {
    VirtualTime time = VirtualTime.create();
    long windowNanos = windowSeconds * 1_000_000_000L;
    long latency = latencyMillis * 1_000_000L;
    Map<Long, Long> firstStart = new HashMap<>();
    List<String> refusedAfterAnAnswer = new ArrayList<>();
    RefusingServer quota = new RefusingServer(
        FixedWindow.countingRefusals(limit, Duration.ofNanos(windowNanos), time.nanoTime()), 429,
        RefusingServer.RetryAfter.none(), true, List.of());
    FakeServer[] server = new FakeServer[1];
    server[0] = new FakeServer(time, exchange -> {
      long elapsed = time.nanoTime() - server[0].origin();
      long window = elapsed / windowNanos;
      firstStart.putIfAbsent(window, elapsed);
      RefusingServer.Answer answer = quota.answer(time.nanoTime());
      if (!answer.accepted() && elapsed > firstStart.get(window) + latency + 1_000_000L) {
        refusedAfterAnAnswer.add(exchange.uri.getPath() + " at " + elapsed / 1e9 + " s in window " + window);
      }
      return Reply.status(answer.status()).after(Duration.ofNanos(latency)).header("RateLimit", answer.rateLimit());
    });
    Hostpace engine = Hostpace.builder().time(time).limitsForEveryHost(Limits.inFlight(inFlight)).retries(1_000).build();
    Random random = new Random(seed);
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      String uri = "http://api.test/" + i;
      long at = spreadMillis == 0 ? 0 : (long) (random.nextDouble() * spreadMillis) * 1_000_000L;
      time.schedule(() -> calls.add(engine.execute(server[0].get(uri))), at);
    }

    time.runUntilIdle(Duration.ofHours(6));

    assertThat(refusedAfterAnAnswer).isEmpty();
    assertThat(calls).hasSize(requests).allSatisfy(call -> assertThat(call).isDone());
    assertThat(engine.snapshot()).allSatisfy(host -> assertThat(host.inFlight()).isZero());
  }
}

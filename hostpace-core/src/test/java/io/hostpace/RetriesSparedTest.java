package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SPEC R10 in virtual time: with the default rule a refusal spends no retry once the host has
 * accepted others since the call came (at most a retry count of times), so no request is lost to
 * the pacing's own probing; the seed's rule spends one on every refusal (SPEC T1). The default
 * retry count, 5; answers 100 ms after their start.
 */
class RetriesSparedTest {

  final VirtualTime time = VirtualTime.create();

  /** A host that refuses {@code /unlucky} its first {@code refusals} times and accepts every other request. */
  FakeServer refusingTheUnlucky(int refusals) {
    int[] refused = {0};
    return new FakeServer(time, exchange -> exchange.uri.getPath().equals("/unlucky") && refused[0]++ < refusals
        ? Reply.status(429).after(Duration.ofMillis(100))
        : Reply.ok().after(Duration.ofMillis(100)));
  }

  CompletableFuture<Response> runWithOthers(Hostpace engine, FakeServer server) {
    CompletableFuture<Response> unlucky = engine.execute(server.get("http://host.test/unlucky"));
    for (int i = 0; i < 40; i++) {
      int n = i;
      time.schedule(() -> engine.execute(server.get("http://host.test/other/" + n)), Duration.ofMillis(250L * i).toNanos());
    }
    time.runUntilIdle(Duration.ofHours(1));
    return unlucky;
  }

  @Test
  void R10_aRequestRefusedWhileTheHostAcceptsOthersIsNotLostToItsRetries() {
    FakeServer server = refusingTheUnlucky(8); // more than the 5 retries
    CompletableFuture<Response> unlucky = runWithOthers(Hostpace.builder().widenFirstContact(false).time(time).build(), server);

    assertThat(unlucky).isCompleted();
    assertThat(unlucky.join().status()).isEqualTo(200);
    assertThat(server.startTimes("/unlucky")).hasSize(9);
  }

  @Test
  void R10_refusalsAreSparedOnlyWhileTheHostAcceptedAnotherWithinTheRetryDelayLimit() {
    FakeServer server = refusingTheUnlucky(Integer.MAX_VALUE);
    CompletableFuture<Response> unlucky = runWithOthers(Hostpace.builder().widenFirstContact(false).time(time).build(), server);

    // The others are accepted until 9.85 s. Its refusals until 58 s spend no retry; the one at
    // 83 s, 73 s after the host last accepted any, does, and its retries being spent, that refusal
    // is returned as it is (SPEC T3).
    assertThat(unlucky.join().status()).isEqualTo(429);
    List<String> starts = server.startTimes("/unlucky");
    assertThat(starts).hasSize(14).endsWith("58.086", "83.372");
  }

  @Test
  void R10_aHostThatAcceptsOthersButNeverThisOneIsTriedForAtMostTheRetriesPlusOneRetryDelayLimits() {
    // Another process of a fleet (SPEC S2) is accepted by the host every 250 ms for ten minutes;
    // this one's request is refused every time. What the other's acceptances tell keeps sparing
    // its refusals, but only for six retry delay limits of 60 s from its first refusal.
    FakeServer server = refusingTheUnlucky(Integer.MAX_VALUE);
    io.hostpace.testing.LocalFleet fleet = new io.hostpace.testing.LocalFleet(time, time, Duration.ofMillis(1));
    Hostpace here = Hostpace.builder().widenFirstContact(false).time(time).fleet(fleet.join()).build();
    Hostpace other = Hostpace.builder().widenFirstContact(false).time(time).fleet(fleet.join()).build();
    CompletableFuture<Response> unlucky = here.execute(server.get("http://host.test/unlucky"));
    for (int i = 0; i < 4 * 60 * 10; i++) {
      int n = i;
      time.schedule(() -> other.execute(server.get("http://host.test/other/" + n)), Duration.ofMillis(250L * i).toNanos());
    }
    time.runUntilIdle(Duration.ofHours(1));

    assertThat(unlucky.join().status()).isEqualTo(429);
    List<String> starts = server.startTimes("/unlucky");
    assertThat(Double.parseDouble(starts.get(starts.size() - 2))).as("%s", starts).isLessThan(360);
    assertThat(Double.parseDouble(starts.get(starts.size() - 1))).as("%s", starts).isGreaterThan(300).isLessThan(480);
  }

  @Test
  void R10_aHostThatAcceptsNobodySpendsARetryOnEveryRefusal() {
    FakeServer server = new FakeServer(time, exchange -> Reply.status(429).after(Duration.ofMillis(100)));
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    CompletableFuture<Response> call = engine.execute(server.get("http://host.test/unlucky"));
    time.runUntilIdle(Duration.ofHours(1));

    assertThat(call.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/unlucky")).hasSize(6);
  }

  @Test
  void T1_theSeedsRuleSpendsARetryOnEveryRefusalWhateverTheHostAccepts() {
    FakeServer server = refusingTheUnlucky(8);
    CompletableFuture<Response> unlucky =
        runWithOthers(Hostpace.builder().widenFirstContact(false).time(time).learningRule(LearningRule.seed()).build(), server);

    assertThat(unlucky.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/unlucky")).hasSize(6);
  }
}

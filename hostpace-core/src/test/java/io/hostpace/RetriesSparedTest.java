package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.FakeServer.Response;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
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
  void R10_atMostARetryCountOfRefusalsIsSpared() {
    FakeServer server = refusingTheUnlucky(Integer.MAX_VALUE);
    CompletableFuture<Response> unlucky = runWithOthers(Hostpace.builder().widenFirstContact(false).time(time).build(), server);

    // 1 + 5 retries + 5 spared, then its last refusal is returned as it is (SPEC T3).
    assertThat(unlucky.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/unlucky")).hasSize(11);
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

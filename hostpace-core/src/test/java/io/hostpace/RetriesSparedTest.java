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
 * accepted others since the call came (at most a retry count of times), or while it accepted one
 * within the retry delay limit; where it accepted none that recently, a retry that the pace,
 * slowed by the refusals before it, made wait longer than the attempt before it counts for none.
 * So no request is lost to the pacing's own probing and learning; the seed's rule spends one on
 * every refusal (SPEC T1). The default retry count, 5; answers 100 ms after their start.
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

    // The others are accepted until 9.85 s. Its refusals until 56 s spend no retry, as the host
    // accepted another within 60 s. From 82 s, when it had accepted none for longer, its retries
    // count but for those its pace, slowed by each refusal (each start after the second refusal
    // waiting three intervals of it, R14), made wait longer than the one before: until the pace is
    // one a minute, at 172 s. The five refused at that pace spend its retries, and the last refusal
    // is returned as it is (SPEC T3).
    assertThat(unlucky.join().status()).isEqualTo(429);
    List<String> starts = server.startTimes("/unlucky");
    assertThat(starts).hasSize(19).containsSubsequence("55.749", "81.769", "118.940", "172.042", "232.042")
        .endsWith("292.042", "352.042", "412.042", "472.042", "532.042");
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
  void R10_aHostThatAcceptsNobodyEndsTheCallOnceRefusedItsRetriesAtThePaceItsRefusalsSlowedTo() {
    // Bare refusals: each slows the pace, from 4 a second to one a minute (at 173 s), each start
    // after the second refusal waiting two, then three, intervals of it (R14). The retries that pace
    // made wait longer than the attempt before them count for none: the host is being learned. At
    // one a minute it slows no more, and five refusals there spend the retries.
    FakeServer server = new FakeServer(time, exchange -> Reply.status(429).after(Duration.ofMillis(100)));
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    CompletableFuture<Response> call = engine.execute(server.get("http://host.test/unlucky"));
    time.runUntilIdle(Duration.ofHours(1));

    assertThat(call.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/unlucky")).hasSize(19).startsWith("0.000", "0.250", "1.250")
        .endsWith("233.257", "293.257", "353.257", "413.257", "473.257", "533.257");
  }

  @Test
  void R10_aRetryCountTheUserGaveCapsTheAttemptsOnAHostThatAcceptsNobody() {
    // The same host, bare refusals: given a count, by the builder or by the context, the call
    // ends once refused that many times more, however the pace slowed.
    FakeServer server = new FakeServer(time, exchange -> Reply.status(429).after(Duration.ofMillis(100)));
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).retries(5).build();
    CompletableFuture<Response> byBuilder = engine.execute(server.get("http://host.test/builder"));
    time.runUntilIdle(Duration.ofHours(1));
    Hostpace another = Hostpace.builder().widenFirstContact(false).time(time).build();
    CompletableFuture<Response> byContext = another.execute(server.get("http://other.test/context"),
        CallContext.builder().retries(1).build());
    time.runUntilIdle(Duration.ofHours(1));

    assertThat(byBuilder.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/builder")).hasSize(6);
    assertThat(byContext.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/context")).hasSize(2);
  }

  @Test
  void R10_aRetryCountTheBuilderWasGivenIsKeptToOnAHostThatAcceptsOthers() {
    // The others are accepted while this call is refused every time. Given 2 retries by the
    // builder (as the command line's --retries gives them), the call ends after twice that and
    // one attempts (while the host accepted others since it came), not after a minute of them.
    FakeServer server = refusingTheUnlucky(Integer.MAX_VALUE);
    CompletableFuture<Response> unlucky = runWithOthers(
        Hostpace.builder().widenFirstContact(false).time(time).retries(2).build(), server);

    assertThat(unlucky.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/unlucky")).hasSize(5);
  }

  @Test
  void R10_aHostThatPausesEveryRequestSpendsARetryOnEveryRefusal() {
    // Refusals with Retry-After: the pause paces the retries and the pace learned is not slowed
    // (nothing was accepted to measure), so every refusal spends a retry.
    FakeServer server = new FakeServer(time, exchange -> Reply.refuse(429, "2"));
    Hostpace engine = Hostpace.builder().widenFirstContact(false).time(time).build();
    CompletableFuture<Response> call = engine.execute(server.get("http://host.test/unlucky"));
    time.runUntilIdle(Duration.ofHours(1));

    assertThat(call.join().status()).isEqualTo(429);
    assertThat(server.startTimes("/unlucky")).hasSize(6);
  }

  @Test
  void R10_retriesSlowedByThePaceCountForNoneOnlyForTheRetriesPlusOneRetryDelayLimits() {
    // A rule that spares retries and slows the pace by a second more on every refusal, without
    // end, against a host that refuses everything: every retry waits longer than the one before
    // (starts at 0, 1, 3, 6, 10 s ...). Such retries count for none only for six limits of 60 s
    // from the first refusal; from then every refusal spends a retry, and the call ends: no call
    // is retried forever.
    LearningRule slowing = new LearningRule() {
      @Override
      public long onRefusal(long now, long startedAt, long interval, long changedAt) {
        return interval + Duration.ofSeconds(1).toNanos();
      }

      @Override
      public long onAnswer(long now, long startedAt, long interval, long changedAt) {
        return interval;
      }

      @Override
      public boolean sparesRetries() {
        return true;
      }
    };
    FakeServer server = new FakeServer(time, exchange -> Reply.status(429).after(Duration.ZERO));
    Hostpace engine = Hostpace.builder().learningRule(slowing).time(time).build();
    CompletableFuture<Response> call = engine.execute(server.get("http://host.test/unlucky"));
    time.runUntilIdle(Duration.ofHours(2));

    assertThat(call.join().status()).isEqualTo(429);
    List<String> starts = server.startTimes("/unlucky");
    // The retries up to 351 s are slowed within the six limits; the five after them spend the retries.
    assertThat(starts).hasSize(32).startsWith("0.000", "1.000", "3.000", "6.000", "10.000")
        .endsWith("351.000", "378.000", "406.000", "435.000", "465.000", "496.000");
  }

  /**
   * A token bucket of {@code perSecond} with room for one: a request that finds a token takes it
   * and is accepted, any other is refused with a bare 429. Answers after 50 ms.
   */
  FakeServer tokenBucket(double perSecond) {
    long[] full = {time.nanoTime()}; // when the bucket holds a token again
    long refill = Math.round(1e9 / perSecond);
    return new FakeServer(time, exchange -> {
      long now = time.nanoTime();
      if (now - full[0] < 0) {
        return Reply.status(429).after(Duration.ofMillis(50));
      }
      full[0] = now + refill;
      return Reply.ok().after(Duration.ofMillis(50));
    });
  }

  @Test
  void R10_processesThatShareAHostWithoutCoordinatingLoseNoRequest() {
    // Four processes, each its own engine learning alone, send 30 requests each at 0 s to a host
    // that accepts 3 a second from all of them together. Each refusal slows the pace of the
    // process that met it; a process the others crowd out is refused at every pace it tries, its
    // pace slowed to one a minute, while the host accepts the others'. Those refusals are the
    // learning's cost: no request is returned refused.
    FakeServer server = tokenBucket(3);
    List<CompletableFuture<Response>> calls = new java.util.ArrayList<>();
    for (int p = 0; p < 4; p++) {
      Hostpace engine = Hostpace.builder().time(time).limitsForEveryHost(Limits.inFlight(16)).build();
      for (int i = 0; i < 30; i++) {
        calls.add(engine.execute(server.get("http://shared.test/" + p + "/" + i)));
      }
    }
    time.runUntilIdle(Duration.ofHours(1));

    assertThat(calls.stream().filter(call -> call.join().status() != 200).map(call -> call.join().uri())).isEmpty();
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

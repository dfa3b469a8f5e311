package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A busy host down for 30 s (every request refused with a bare 503, at once), then well again:
 * the cuts the default rule made while it was down say nothing of the host, so once it accepts
 * again the rule starts over from the pace before, where the seed's climbs back a tenth per answer.
 * A host that a burst put in debt has no pace before: the rule doubles from the pace that was
 * accepted.
 */
class OutageRecoveryTest {

  /** 3000 requests, one every 20 ms from 0 s to 60 s; returns the last start, in seconds. */
  static double lastStart(LearningRule rule) {
    VirtualTime time = VirtualTime.create();
    long origin = time.nanoTime();
    FakeServer server = new FakeServer(time, exchange -> {
      double at = (time.nanoTime() - origin) / 1e9;
      return at >= 5 && at < 35 ? Reply.status(503).after(Duration.ofMillis(20)) : Reply.ok().after(Duration.ofMillis(50));
    });
    Hostpace engine = Hostpace.builder().time(time).learningRule(rule).build();
    for (int i = 0; i < 3000; i++) {
      String uri = "http://api.test/" + i;
      time.schedule(() -> engine.execute(server.get(uri)), Duration.ofMillis(20L * i).toNanos());
    }
    time.runUntilIdle(Duration.ofHours(1));
    List<String> starts = server.startTimes("api.test");
    return Double.parseDouble(starts.get(starts.size() - 1));
  }

  @Test
  void afterAnOutageTheDefaultRuleIsBackAtTheHostsPaceWithinSecondsAndTheSeedsWithinMinutes() {
    // The last request arrives at 59.98 s: started then, nothing was left waiting.
    assertThat(lastStart(LearningRule.hostpace())).isLessThan(60.5);
    assertThat(lastStart(LearningRule.seed())).isGreaterThan(120);
  }

  /**
   * 200 requests at once to a host that accepts the first and refuses every other with a bare 429
   * for 40 s (the burst put it in debt), then accepts everything; returns the seconds from the
   * first accepted start after the debt to the last start.
   */
  static double afterTheFirstAccepted(LearningRule rule) {
    VirtualTime time = VirtualTime.create();
    long origin = time.nanoTime();
    AtomicInteger seen = new AtomicInteger();
    FakeServer server = new FakeServer(time, exchange -> seen.getAndIncrement() > 0
        && time.nanoTime() - origin < Duration.ofSeconds(40).toNanos() ? Reply.status(429) : Reply.ok());
    Hostpace engine = Hostpace.builder().time(time).learningRule(rule).build();
    List<CompletableFuture<FakeServer.Response>> calls = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      calls.add(engine.execute(server.get("http://indebt.test/" + i)));
    }
    time.runUntilIdle(Duration.ofHours(1));
    List<String> starts = server.startTimes("indebt.test");
    double first = starts.stream().mapToDouble(Double::parseDouble).filter(at -> at >= 40).min().orElseThrow();
    double last = Double.parseDouble(starts.get(starts.size() - 1));
    assertThat(calls).allMatch(CompletableFuture::isDone);
    return last - first;
  }

  @Test
  void aHostInDebtIsBackToFullSpeedWithinSecondsOfAcceptingAgain() {
    // The first accepted probe goes at the long interval the refusals left (about 17 s here);
    // doubling per answer from it, everything has started some 17 s later. Climbing from it as
    // after any drop took 88 s, the seed's tenth per answer 91 s.
    assertThat(afterTheFirstAccepted(LearningRule.hostpace())).isLessThan(25);
    assertThat(afterTheFirstAccepted(LearningRule.seed())).isGreaterThan(60);
  }
}

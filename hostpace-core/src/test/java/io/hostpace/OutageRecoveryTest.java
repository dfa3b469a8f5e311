package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.FakeServer.Reply;
import io.hostpace.spi.LearningRule;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A busy host down for 30 s (every request refused with a bare 503, at once), then well again:
 * the cuts the default rule made while it was down say nothing of the host, so once it accepts
 * again the rule starts over from the pace before, where the seed's climbs back a tenth per answer.
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
}

package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.jdk.PacedHttpClient;
import io.hostpace.testkit.TestServer;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RobotsPace} against a server on 127.0.0.1, its delays handed to the test rather than to a
 * clock: when a host's URLs are let go after its robots.txt answered, and with which context. The
 * robots.txt went with the run's context and the URLs go with a slower one whose pace counts from
 * its own first start, so the first URL waits the delay after the robots.txt's answer (SPEC I5).
 */
class RobotsPaceTest {

  private final Hostpace engine = Hostpace.builder().build();
  private final PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
  /** The delays the pace asked to wait, and what it asked to run after each. */
  private final List<Duration> delays = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Runnable> due = new LinkedBlockingQueue<>();
  /** Done once the pace asked to wait a delay. */
  private final CompletableFuture<Void> askedToWait = new CompletableFuture<>();
  /** What it handed over to be cancelled on Ctrl-C. */
  private final List<CompletableFuture<?>> sent = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    engine.close();
  }

  RobotsPace pace(CallContext context) {
    return new RobotsPace(engine, client, context, Duration.ofSeconds(30),
        (hostAndPort, rate) -> CallContext.builder().addLimit(hostAndPort, new Limits(null, rate)).build(), sent::add,
        (delay, task) -> {
          delays.add(delay);
          due.add(task);
          askedToWait.complete(null);
        });
  }

  static TestServer serving(@Nullable String robots) throws java.io.IOException {
    return FetchRobotsTest.serving(robots);
  }

  @Test
  void I5_aHostsFirstUrlWaitsItsCrawlDelayAfterTheRobotsTxtAnswered() throws Exception {
    try (TestServer server = serving(FetchRobotsTest.ANYONE_TWO_SECONDS)) {
      RobotsPace robots = pace(CallContext.DEFAULT);
      CompletableFuture<CallContext> first = robots.contextOf(server.uri("/1").toString());
      CompletableFuture<CallContext> second = robots.contextOf(server.uri("/2").toString());

      CompletableFuture.anyOf(askedToWait, first).join(); // the robots.txt answered
      assertThat(delays).containsExactly(Duration.ofSeconds(2));
      Runnable release = due.remove();
      assertThat(first).isNotDone();
      assertThat(second).isNotDone();

      release.run();
      assertThat(first).isCompleted();
      assertThat(second).isCompleted();
      assertThat(engine.effectiveLimits(server.uri("/1"), first.join()).rate()).isEqualTo(Rate.of(1, Duration.ofSeconds(2)));
      assertThat(server.requests()).extracting(TestServer.Request::path).containsExactly("/robots.txt");
    }
  }

  @Test
  void I5_aWaitCancelledByCtrlCLetsTheHostsUrlsGoAtOnce() throws Exception {
    try (TestServer server = serving(FetchRobotsTest.ANYONE_TWO_SECONDS)) {
      RobotsPace robots = pace(CallContext.DEFAULT);
      CompletableFuture<CallContext> first = robots.contextOf(server.uri("/1").toString());

      CompletableFuture.anyOf(askedToWait, first).join();
      assertThat(first).isNotDone();
      sent.forEach(call -> call.cancel(true)); // what Ctrl-C does to everything handed over

      assertThat(first).isCompleted(); // the command then sends nothing, as it was interrupted
    }
  }

  @Test
  void I5_noDelayIsWaitedWhenTheRobotsTxtAsksNoneOrTheLimitsGivenAreAsSlow() throws Exception {
    try (TestServer none = serving("User-agent: *\nDisallow: /private\n"); TestServer missing = serving(null);
        TestServer slow = serving(FetchRobotsTest.ANYONE_TWO_SECONDS)) {
      CallContext slowGiven = CallContext.builder().addLimit(slow.hostKey(), Limits.perSecond(0.4)).build();
      List<CompletableFuture<CallContext>> urls = List.of(
          pace(CallContext.DEFAULT).contextOf(none.uri("/1").toString()),
          pace(CallContext.DEFAULT).contextOf(missing.uri("/1").toString()),
          pace(slowGiven).contextOf(slow.uri("/1").toString()));

      CompletableFuture.allOf(urls.toArray(new CompletableFuture<?>[0])).join();
      assertThat(delays).isEmpty();
      assertThat(urls.get(2).join()).isSameAs(slowGiven);
    }
  }
}

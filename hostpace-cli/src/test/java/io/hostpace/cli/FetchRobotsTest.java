package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code hostpace fetch --respect-robots}, in this process, against servers on 127.0.0.1 that
 * serve a robots.txt: what each server saw (its robots.txt asked once, before any other request)
 * and the limits the run says with {@code --verbose} it gave the host; never how long it took.
 * Isolated: {@code --verbose} sets the level of the JVM's logger {@code io.hostpace} (as in
 * VerboseTest).
 */
@Isolated
class FetchRobotsTest extends CommandTest {

  static final String ANYONE_TWO_SECONDS = "User-agent: *\nCrawl-delay: 2\n";

  /** A server that answers {@code /robots.txt} with {@code robots} (404 when null) and any other path with 200. */
  static TestServer serving(@Nullable String robots) throws IOException {
    return TestServer.start((request, exchange) -> {
      if (request.path().equals("/robots.txt")) {
        TestServer.reply(exchange, robots == null ? 404 : 200, robots == null ? "no such thing" : robots);
      } else {
        TestServer.reply(exchange, 200, "hello " + request.path());
      }
    });
  }

  List<String> paths(TestServer server) {
    return server.requests().stream().map(TestServer.Request::path).toList();
  }

  /** The lines --verbose printed for the host {@code key}. */
  List<String> verbose(String key) {
    return Arrays.stream(err.split("\n")).filter(line -> line.matches("\\S+ DEBUG " + key.replace(".", "\\.") + ": .+"))
        .toList();
  }

  @Test
  void I5_aCrawlDelayForAnyonePacesEachHostAtOneRequestPerDelayAfterItsRobotsTxtAskedOnceAndFirst() throws IOException {
    try (TestServer a = serving(ANYONE_TWO_SECONDS); TestServer b = serving(ANYONE_TWO_SECONDS)) {
      List<String> urls = List.of(a.uri("/1").toString(), b.uri("/1").toString(), a.uri("/2").toString(),
          b.uri("/2").toString());
      List<String> args = new ArrayList<>(List.of("fetch", "--respect-robots", "--verbose", "--quiet"));
      args.addAll(urls);

      assertThat(run(args.toArray(new String[0]))).as(err).isZero();

      for (TestServer server : List.of(a, b)) {
        assertThat(paths(server)).as("what %s saw", server).containsExactly("/robots.txt", "/1", "/2");
        assertThat(verbose(server.hostKey())).as(err)
            .anyMatch(line -> line.endsWith(": robots.txt asks a Crawl-delay of 2 s: paced at {inFlight: 32, rate: 0.5/s}, its first URL 2 s after this answer"));
      }
      // A record per URL, none for a robots.txt.
      assertThat(out.split("\n")).hasSize(4).allMatch(line -> line.contains("\"status\":200"))
          .noneMatch(line -> line.contains("robots.txt"));
    }
  }

  @Test
  void I5_withoutTheOptionNoRobotsTxtIsAskedFor() throws IOException {
    try (TestServer server = serving(ANYONE_TWO_SECONDS)) {
      assertThat(run("fetch", "--quiet", server.uri("/1").toString(), server.uri("/2").toString())).as(err).isZero();

      assertThat(paths(server)).containsExactlyInAnyOrder("/1", "/2");
    }
  }

  @Test
  void I5_aMissingRobotsTxtChangesNothingAndEveryUrlIsFetched() throws IOException {
    try (TestServer server = serving(null)) {
      List<String> args = new ArrayList<>(List.of("fetch", "--respect-robots", "--verbose", "--quiet"));
      for (int i = 1; i <= 5; i++) {
        args.add(server.uri("/" + i).toString());
      }

      assertThat(run(args.toArray(new String[0]))).as(err).isZero();

      assertThat(paths(server)).first().isEqualTo("/robots.txt");
      assertThat(paths(server)).containsExactlyInAnyOrder("/robots.txt", "/1", "/2", "/3", "/4", "/5");
      assertThat(out.split("\n")).hasSize(5).allMatch(line -> line.contains("\"status\":200"));
      assertThat(verbose(server.hostKey())).as(err)
          .anyMatch(line -> line.endsWith("/robots.txt answered 404: no Crawl-delay"))
          .noneMatch(line -> line.contains("paced at"));
    }
  }

  @Test
  void I5_theGroupThatNamesOurProductTokenHoldsOverTheGroupOfAnyone() throws IOException {
    String robots = "User-agent: *\nCrawl-delay: 30\n\nUser-agent: Crawler\nCrawl-delay: 1\n";
    try (TestServer server = serving(robots)) {
      assertThat(run("fetch", "--respect-robots", "--verbose", "--quiet", "--user-agent", "crawler/2.0 (ops@example.org)",
          server.uri("/1").toString())).as(err).isZero();

      assertThat(paths(server)).containsExactly("/robots.txt", "/1");
      assertThat(server.requests().get(0).header("User-Agent")).isEqualTo("crawler/2.0 (ops@example.org)");
      assertThat(verbose(server.hostKey())).as(err)
          .anyMatch(line -> line.endsWith(": robots.txt asks a Crawl-delay of 1 s: paced at {inFlight: 32, rate: 1/s}, its first URL 1 s after this answer"));
    }
  }

  @Test
  void I5_aHostLimitGivenForTheSameKeyLendsItsOtherFieldsAndTheRunIsNotRefused() throws IOException {
    try (TestServer server = serving(ANYONE_TWO_SECONDS)) {
      assertThat(run("fetch", "--respect-robots", "--verbose", "--quiet", "--host", server.hostKey() + "=inFlight:1",
          server.uri("/1").toString())).as(err).isZero();

      assertThat(paths(server)).containsExactly("/robots.txt", "/1");
      assertThat(verbose(server.hostKey())).as(err)
          .anyMatch(line -> line.endsWith(": robots.txt asks a Crawl-delay of 2 s: paced at {inFlight: 1, rate: 0.5/s}, its first URL 2 s after this answer"));
    }
  }

  @Test
  void I5_aSlowerRateGivenForTheHostHoldsOverTheCrawlDelay() throws IOException {
    try (TestServer server = serving(ANYONE_TWO_SECONDS)) {
      assertThat(run("fetch", "--respect-robots", "--verbose", "--quiet", "--host", "127.0.0.1=perSecond:0.4",
          server.uri("/1").toString())).as(err).isZero();

      assertThat(paths(server)).containsExactly("/robots.txt", "/1");
      assertThat(verbose(server.hostKey())).as(err)
          .anyMatch(line -> line.endsWith(": robots.txt asks a Crawl-delay of 2 s; the limits given, "
              + "{inFlight: 32, rate: 0.4/s}, are as slow and hold"))
          .noneMatch(line -> line.contains("paced at"));
    }
  }

  @Test
  void I5_aFasterMaxRateGivesWayToTheCrawlDelay() throws IOException {
    try (TestServer server = serving(ANYONE_TWO_SECONDS)) {
      assertThat(run("fetch", "--respect-robots", "--verbose", "--quiet", "--max-rate", "5",
          server.uri("/1").toString())).as(err).isZero();

      assertThat(verbose(server.hostKey())).as(err)
          .anyMatch(line -> line.endsWith(": robots.txt asks a Crawl-delay of 2 s: paced at {inFlight: 32, rate: 0.5/s}, its first URL 2 s after this answer"));
    }
  }
}

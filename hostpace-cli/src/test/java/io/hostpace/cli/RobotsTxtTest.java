package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Crawl-delay a robots.txt asks of a crawler, read by its product token or else for anyone. */
class RobotsTxtTest {

  @Test
  void I5_theTokenIsTheUserAgentsProductNameInLowerCase() {
    assertThat(RobotsTxt.token("Crawler/2.0 (+https://example.org/crawler; ops@example.org)")).isEqualTo("crawler");
    assertThat(RobotsTxt.token("hostpace")).isEqualTo("hostpace");
  }

  @Test
  void I5_theGroupThatNamesTheCrawlerHoldsElseTheGroupOfAnyone() {
    String robots = """
        User-agent: *
        Crawl-delay: 10

        # the crawler, and another
        User-agent: other
        User-agent: Crawler
        Disallow: /private
        Crawl-delay: 2.5
        """;
    assertThat(RobotsTxt.crawlDelay(robots, "crawler")).isEqualTo(Duration.ofMillis(2500));
    assertThat(RobotsTxt.crawlDelay(robots, "somebody")).isEqualTo(Duration.ofSeconds(10));
    // A group that names the crawler without a delay: the group of anyone is not its.
    assertThat(RobotsTxt.crawlDelay("User-agent: *\nCrawl-delay: 10\nUser-agent: crawler\nDisallow: /x\n", "crawler"))
        .isNull();
  }

  @Test
  void I5_ofSeveralDelaysThatApplyTheLongestHolds() {
    assertThat(RobotsTxt.crawlDelay("User-agent: *\r\nCrawl-delay: 1\r\nCrawl-delay: 3\r\n", "crawler"))
        .isEqualTo(Duration.ofSeconds(3));
    assertThat(RobotsTxt.crawlDelay("User-agent: crawler\nCrawl-delay: 1\n\nUser-agent: CRAWLER\ncrawl-delay: 4 # slow\n",
        "crawler")).isEqualTo(Duration.ofSeconds(4));
  }

  @Test
  void I5_noDelayOrJunkAsksForNothingAndADelayOfMoreThanADayIsADay() {
    assertThat(RobotsTxt.crawlDelay("", "crawler")).isNull();
    assertThat(RobotsTxt.crawlDelay("User-agent: *\nDisallow: /\n", "crawler")).isNull();
    assertThat(RobotsTxt.crawlDelay("Crawl-delay: 5\n", "crawler")).isNull(); // in no group
    for (String junk : new String[] {"soon", "-1", "0", "1e3", ".5", "", "1,5"}) {
      assertThat(RobotsTxt.crawlDelay("User-agent: *\nCrawl-delay: " + junk + "\n", "crawler")).as(junk).isNull();
    }
    assertThat(RobotsTxt.crawlDelay("User-agent: *\nCrawl-delay: 999999999\n", "crawler")).isEqualTo(Duration.ofDays(1));
    assertThat(RobotsTxt.crawlDelay("<html>not found</html>", "crawler")).isNull();
    assertThat(RobotsTxt.crawlDelay("User-agent:\nCrawl-delay: 5\n", "")).isNull();
  }
}

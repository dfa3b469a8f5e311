package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testkit.BucketServer;
import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hostpace fetch}, in this process, against rate limiters on 127.0.0.1 (the testkit's
 * {@link BucketServer}), on the wall clock because a real server is (SPEC P1, P12, R9).
 *
 * <p>The default run holds what no machine's speed changes: every URL completed exactly once, and
 * every refusal the server counted is an attempt a record counts. What a run costs the server in
 * refusals and how long it takes are figures of the wall clock and of the machine's load: those
 * tests are tagged {@code wall-clock} and run by the profile {@code thorough}. The same behaviours
 * are held in virtual time in the core (PausedRateTest's R9_ tests, FirstContactTest's P12_ tests,
 * PacingTest's P1_ tests) and by the simulator (PacingSimulationTest).
 *
 * <p>Hosts of a {@code *.domain} group need names that resolve to 127.0.0.1, which the JDK's
 * resolver cannot be told from inside a running JVM: those runs are a JVM of their own started
 * with {@code -Djdk.net.hosts.file}, which resolves names from that file alone.
 */
class FetchPacingTest {

  /** A record's URL and status; a record without a status got no answer. */
  static final Pattern RECORD = Pattern.compile("^\\{\"url\":\"([^\"]*)\",(?:\"status\":(\\d+),)?");

  /** What one run of {@code hostpace fetch} printed, its exit status and how long it took. */
  record Run(int status, List<String> records, String err, Duration took) {}

  /** Runs {@code hostpace fetch args}, and measures how long it took (a figure, for the wall-clock tests). */
  static Run fetch(List<String> args) {
    long start = System.nanoTime();
    CommandRun fetch = CommandRun.of(args.toArray(new String[0]));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    String out = fetch.out();
    return new Run(fetch.status(), out.isEmpty() ? List.of() : Arrays.asList(out.split("\n")), fetch.err(), took);
  }

  /** {@code n} distinct URLs on {@code server}. */
  static List<String> urls(TestServer server, int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> server.uri("/u/" + i).toString()).collect(Collectors.toList());
  }

  static List<String> args(List<String> options, List<String> urls) {
    List<String> args = new ArrayList<>();
    args.add("fetch");
    args.addAll(options);
    args.addAll(urls);
    return args;
  }

  /**
   * Every URL completed: the run exited 0, printed one record per URL with status 200, and the
   * server accepted each URL's path exactly once and nothing else.
   */
  static void assertEveryUrlCompleted(Run run, List<String> urls, BucketServer bucket) {
    String what = "records " + run.records() + "\n" + run.err() + "server " + bucket.answers();
    assertThat(run.status()).as(what).isZero();
    Map<String, String> statusByUrl = run.records().stream().map(RECORD::matcher).filter(Matcher::find)
        .collect(Collectors.toMap(m -> m.group(1), m -> String.valueOf(m.group(2)), (a, b) -> a + "," + b));
    assertThat(run.records()).as(what).hasSameSizeAs(urls);
    assertThat(statusByUrl).as(what).containsOnlyKeys(urls)
        .allSatisfy((url, status) -> assertThat(status).as("%s's status in %s", url, what).isEqualTo("200"));
    List<String> paths = urls.stream().map(url -> url.substring(url.indexOf("/u/"))).collect(Collectors.toList());
    Map<String, Long> acceptedByPath = bucket.answers().stream().filter(BucketServer.Answer::accepted)
        .collect(Collectors.groupingBy(BucketServer.Answer::path, Collectors.counting()));
    assertThat(acceptedByPath).as(what).containsOnlyKeys(paths).allSatisfy((path, n) -> assertThat(n).isOne());
    assertThat(bucket.accepted()).as(what).isEqualTo(urls.size());
  }

  /**
   * Every refusal the server counted is an attempt of some URL's record: the attempts of all the
   * records are the server's answers, accepted and refused, whatever the pace the run kept.
   */
  static void assertEveryRefusalWasRetried(Run run, BucketServer bucket) {
    Pattern attempts = Pattern.compile("\"attempts\":(\\d+),");
    int counted = run.records().stream().map(attempts::matcher).filter(Matcher::find)
        .mapToInt(m -> Integer.parseInt(m.group(1))).sum();
    assertThat(counted).as("the records' attempts against the server's %s", bucket.answers())
        .isEqualTo(bucket.accepted() + bucket.refused());
  }

  /** The run's figures, as the server counted them and as measured. */
  static String figures(Run run, BucketServer bucket) {
    List<BucketServer.Answer> answers = bucket.answers();
    Duration span = answers.isEmpty() ? Duration.ZERO : answers.get(answers.size() - 1).at().minus(answers.get(0).at());
    return String.format(Locale.ROOT, "%d accepted, %d refused, run %.1f s, first to last arrival %.1f s",
        bucket.accepted(), bucket.refused(), run.took().toMillis() / 1e3, span.toMillis() / 1e3);
  }

  /**
   * Fetches {@code urls} with {@code options}, tells the run's figures to JUnit's report (whatever
   * the assertions then find), and expects every URL completed and every refusal retried.
   */
  static Run fetchAll(TestReporter reporter, BucketServer bucket, List<String> options, List<String> urls) {
    return checked(reporter, bucket, fetch(args(options, urls)), urls);
  }

  /**
   * {@link #fetchAll} in a JVM of its own that resolves the {@link #GROUPED} hosts to 127.0.0.1
   * from a hosts file in {@code dir}.
   */
  static Run fetchAllGrouped(TestReporter reporter, BucketServer bucket, Path dir, List<String> options,
      List<String> urls) throws IOException, InterruptedException {
    return checked(reporter, bucket, fetchResolvingFrom(hostsFile(dir, GROUPED), dir, args(options, urls)), urls);
  }

  /**
   * Tells {@code run}'s figures to JUnit's report (whatever the assertions then find), and expects
   * every URL completed and every refusal retried.
   */
  static Run checked(TestReporter reporter, BucketServer bucket, Run run, List<String> urls) {
    reporter.publishEntry("figures", figures(run, bucket));
    assertEveryUrlCompleted(run, urls, bucket);
    assertEveryRefusalWasRetried(run, bucket);
    return run;
  }

  /** The hosts of the group {@code *.pace.test} that the tests' hosts files name. */
  static final List<String> GROUPED = List.of("a.pace.test", "b.pace.test", "c.pace.test");

  /** A hosts file in {@code dir} that resolves each of {@code names} to 127.0.0.1, and nothing else. */
  static Path hostsFile(Path dir, List<String> names) throws IOException {
    return Files.writeString(dir.resolve("hosts"), "127.0.0.1 " + String.join(" ", names) + "\n");
  }

  /** {@code n} distinct URLs on {@code server}'s port, their hosts taken from {@code hosts} in turn. */
  static List<String> urls(TestServer server, List<String> hosts, int n) {
    int port = server.uri("/").getPort();
    return IntStream.rangeClosed(1, n).mapToObj(i -> "http://" + hosts.get((i - 1) % hosts.size()) + ":" + port + "/u/" + i)
        .collect(Collectors.toList());
  }

  /**
   * Runs {@code hostpace fetch args} as a JVM of its own that resolves host names from the hosts
   * file {@code hosts} alone, its standard error kept in {@code dir}, and measures how long it took
   * (a figure, for the wall-clock tests).
   */
  static Run fetchResolvingFrom(Path hosts, Path dir, List<String> args) throws IOException, InterruptedException {
    Path err = Files.createTempFile(dir, "err", ".txt");
    long start = System.nanoTime();
    Process process = CommandRun.process(List.of("-Djdk.net.hosts.file=" + hosts), args.toArray(new String[0]))
        .redirectError(err.toFile()).start();
    process.getOutputStream().close();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int status = process.waitFor();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    return new Run(status, out.isEmpty() ? List.of() : Arrays.asList(out.split("\n")), Files.readString(err), took);
  }

  /**
   * A host that refuses with a bare 429 and that nothing was said of: however the engine paces it
   * and however many refusals that costs on this machine, each URL completes exactly once and each
   * refusal is retried. Retries enough for any pace: the count of refusals is the wall-clock
   * tests' figure, not this one's.
   */
  @Test
  void P12_R9_urlsToARateLimiterThatRefusesWithABare429AllCompleteExactlyOnceAndEachRefusalIsRetried(
      TestReporter reporter) throws IOException {
    BucketServer bucket = new BucketServer(20, 1, 429, RetryAfter.none());
    try (TestServer server = TestServer.start(bucket)) {
      List<String> urls = urls(server, 12);

      fetchAll(reporter, bucket, List.of("--retries", "100"), urls);
    }
  }

  /**
   * The target is at most four refusals: two of the opening (widened to two at once by its first
   * answer), the slow start's first, and the first gap of the bracket that then closes in on the
   * host's interval (SPEC R12). On the wall clock a bucket of exactly one a second refuses a start
   * that a timer's jitter brings a little early, so one more is allowed here. BENCHMARKS.md ("First
   * contact bracketed by its gaps") gives the figures.
   */
  @Test
  @Tag("wall-clock")
  void P12_R12_twentyUrlsToAHostOfOneASecondThatRefusesWithABare429AllCompleteWithAtMostFiveRefused(TestReporter reporter)
      throws IOException {
    // One token a second, holding one: what QLever's Wikidata endpoint accepts, with no slack.
    BucketServer bucket = new BucketServer(1, 1, 429, RetryAfter.none());
    try (TestServer server = TestServer.start(bucket)) {
      List<String> urls = urls(server, 20);

      // Nothing configured: the engine has to learn the host's pace from its refusals.
      Run run = fetchAll(reporter, bucket, List.of(), urls);

      assertThat(bucket.refused()).as("%s: %s", figures(run, bucket), bucket.answers()).isLessThanOrEqualTo(5);
    }
  }

  /**
   * The target is 1.3 times the ideal with at most eight refusals; on the wall clock a limiter of
   * exactly five a second with no burst refuses any start that a timer's jitter brings closer than
   * 200 ms, and each such refusal costs its second of pause, so what is reached varies by machine
   * and load: 1.5 times the ideal is pinned. BENCHMARKS.md ("The targets") gives the runs.
   */
  @Test
  @Tag("wall-clock")
  void R9_eightyUrlsToALimiterOfFiveASecondThatSaysRetryAfterOneCompleteWithin1point5TimesTheIdealWithAtMostEightRefused(
      TestReporter reporter) throws IOException {
    // Five a second, one at a time (no burst): 80 take 80 / 5 s at best.
    BucketServer bucket = new BucketServer(5, 1, 429, RetryAfter.seconds(1));
    try (TestServer server = TestServer.start(bucket)) {
      List<String> urls = urls(server, 80);
      Duration ideal = Duration.ofSeconds(80 / 5);
      Duration target = ideal.multipliedBy(15).dividedBy(10);

      Run run = fetchAll(reporter, bucket, List.of(), urls);

      assertThat(run.took()).as(figures(run, bucket)).isLessThanOrEqualTo(target);
      assertThat(bucket.refused()).as("%s: %s", figures(run, bucket), bucket.answers()).isLessThanOrEqualTo(8);
    }
  }

  @Test
  @Tag("wall-clock")
  void P1_aConfiguredRateOfOneASecondOneAtATimeIsRefusedAtMostOnceByABucketOfExactlyOneASecond(TestReporter reporter)
      throws IOException {
    // Told the bucket's rate exactly: arrivals a hair under a second apart are refused.
    BucketServer bucket = new BucketServer(1, 1, 429, RetryAfter.none());
    try (TestServer server = TestServer.start(bucket)) {
      List<String> urls = urls(server, 20);
      List<String> options = List.of("--host", server.hostKey() + "=inFlight:1,perSecond:1");

      // Ideally 19 s: the first start at once, then one a second.
      Run run = fetchAll(reporter, bucket, options, urls);

      assertThat(bucket.refused()).as("%s: %s", figures(run, bucket), bucket.answers()).isLessThanOrEqualTo(1);
    }
  }

  /**
   * Hosts of a group that the group paces, each refused with a bare 429 by a limiter that they
   * share: whatever the pace on this machine, each URL completes exactly once and each refusal is
   * retried. Retries enough for any pace: the count of refusals is the wall-clock tests' figure.
   */
  @Test
  void P1_P5_urlsToHostsOfAGroupThatShareARateLimiterAllCompleteExactlyOnceAndEachRefusalIsRetried(
      TestReporter reporter, @TempDir Path dir) throws IOException, InterruptedException {
    BucketServer bucket = new BucketServer(20, 1, 429, RetryAfter.none());
    try (TestServer server = TestServer.start(bucket)) {
      List<String> urls = urls(server, GROUPED, 12);
      List<String> options = List.of("--retries", "100", "--host", "*.pace.test=inFlight:1,perSecond:20");

      fetchAllGrouped(reporter, bucket, dir, options, urls);
    }
  }

  /**
   * The group's rate is what the server sees of all its hosts together: arrivals from any of them
   * no closer than a second, each host's first request counted from its answer, as it pays its
   * connection's set-up (P1). The control below shows the bucket tells the difference.
   */
  @Test
  @Tag("wall-clock")
  void P1_hostsOfAGroupConfiguredAtOneASecondAreRefusedAtMostOnceByABucketOfExactlyOneASecond(
      TestReporter reporter, @TempDir Path dir) throws IOException, InterruptedException {
    // One bucket behind three names: what a server of several names with one limit sees.
    BucketServer bucket = new BucketServer(1, 1, 429, RetryAfter.none());
    try (TestServer server = TestServer.start(bucket)) {
      List<String> urls = urls(server, GROUPED, 20);
      // Retries enough that the count of refusals, not a URL left undone, is what a bad pace shows.
      List<String> options = List.of("--retries", "100", "--host", "*.pace.test=inFlight:1,perSecond:1");

      // Ideally 19 s: the first start at once, then one a second, whichever host is next.
      Run run = fetchAllGrouped(reporter, bucket, dir, options, urls);

      assertThat(bucket.refused()).as("%s: %s", figures(run, bucket), bucket.answers()).isLessThanOrEqualTo(1);
    }
  }

  /**
   * The control of the test above: the same hosts each given the rate on its own, no group, reach
   * the one bucket up to three times as often as it allows, and it refuses many; so the group's
   * rate is what keeps the server's view right, and the bucket is a test that can fail.
   */
  @Test
  @Tag("wall-clock")
  void P1_hostsEachConfiguredAtOneASecondOnTheirOwnAreRefusedOftenByTheBucketThatTheyShare(
      TestReporter reporter, @TempDir Path dir) throws IOException, InterruptedException {
    BucketServer bucket = new BucketServer(1, 1, 429, RetryAfter.none());
    try (TestServer server = TestServer.start(bucket)) {
      List<String> urls = urls(server, GROUPED, 20);
      int port = server.uri("/").getPort();
      List<String> options = new ArrayList<>(List.of("--retries", "100"));
      GROUPED.forEach(host -> options.addAll(List.of("--host", host + ":" + port + "=inFlight:1,perSecond:1")));

      Run run = fetchAllGrouped(reporter, bucket, dir, options, urls);

      assertThat(bucket.refused()).as("%s: %s", figures(run, bucket), bucket.answers()).isGreaterThanOrEqualTo(5);
    }
  }
}

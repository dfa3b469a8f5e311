package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.redis.testing.RedisCluster;
import io.hostpace.redis.testing.RedisServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every rule of {@code hostpace fetch}, run in this process against a server on 127.0.0.1 (SPEC I5). */
class FetchCommandTest extends ServedCommandTest {

  /**
   * A state file in {@code dir} that keeps, of the test server's host as a run before kept it now,
   * the fields after the host's name and the time.
   */
  Path keptState(Path dir, String fields) throws IOException {
    Path state = dir.resolve("state.tsv");
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    Files.writeString(state, host + "\t" + System.currentTimeMillis() + "\t" + fields + "\n");
    return state;
  }

  List<String> records() {
    return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
  }

  @Test
  void I5_printsOneJsonRecordPerUrlAndExitsZeroWhenEveryUrlGotAnAnswer() {
    int status = run("fetch", server.url("/ok"), server.url("/missing"));

    assertThat(status).isZero();
    assertThat(records()).hasSize(2);
    assertThat(records()).anySatisfy(line -> assertThat(line)
        .startsWith("{\"url\":\"" + server.url("/ok") + "\",\"status\":200,\"attempts\":1,\"elapsedMs\":")
        .contains("\"waitedMs\":").endsWith("\"bytes\":5}"));
    assertThat(records()).anySatisfy(line -> assertThat(line).contains("\"status\":404"));
  }

  @Test
  void aRefusedUrlIsRetriedAndItsRecordCountsTheAttempts() {
    assertThat(run("fetch", server.url("/refuse-once"))).isZero();
    assertThat(out).contains("\"status\":200,\"attempts\":2");
    assertThat(server.seen.get("/refuse-once").get()).isEqualTo(2);
  }

  @Test
  void urlsComeFromAFileOrStandardInputSkippingBlankLinesAndComments(@TempDir Path dir) throws IOException {
    Path list = dir.resolve("urls.txt");
    Files.writeString(list, "# a comment\n\n" + server.url("/a") + "\n   \n" + server.url("/b") + "\n");
    assertThat(run("fetch", "--input", list.toString())).isZero();
    assertThat(records()).hasSize(2);

    stdin = server.url("/c") + "\n#" + server.url("/skipped") + "\n";
    assertThat(run("fetch", "--input", "-", server.url("/d"))).isZero();
    assertThat(records()).hasSize(2);
    assertThat(server.requests).containsExactlyInAnyOrder("GET /a", "GET /b", "GET /c", "GET /d");
  }

  @Test
  void aUrlWithNoAnswerHasAnErrorAndNoStatusAndTheExitStatusIsOne() throws IOException {
    String refused = "http://127.0.0.1:" + CommandRun.closedPort() + "/";
    int status = run("fetch", refused, server.url("/ok"));

    assertThat(status).isEqualTo(1);
    assertThat(records()).anySatisfy(line -> assertThat(line)
        .startsWith("{\"url\":\"" + refused + "\",\"attempts\":1,")
        .doesNotContain("\"status\"")
        .endsWith("\"error\":\"connection refused\"}"));
    assertThat(records()).anySatisfy(line -> assertThat(line).contains("\"status\":200"));
  }

  @Test
  void aBadUrlIsReportedInItsRecordAndDoesNotStopTheOthers() {
    int status = run("fetch", "ht tp://broken", "ftp://example.org/file", "not-a-url", server.url("/ok"));

    assertThat(status).isEqualTo(1);
    assertThat(records()).hasSize(4);
    assertThat(out).contains("\"url\":\"ht tp://broken\",\"attempts\":0,\"elapsedMs\":0,\"waitedMs\":0,\"bytes\":0,\"error\":\"invalid URL: ");
    assertThat(out).contains("\"error\":\"unsupported scheme 'ftp': expected http or https\"");
    assertThat(out).contains("\"url\":\"not-a-url\"");
    assertThat(server.requests).containsExactly("GET /ok");
  }

  /**
   * A URL whose host Java's client does not take (it says only "unsupported URI"): its record
   * says what is wrong in the user's terms, and nothing is sent for it.
   */
  @Test
  void aUrlWhoseHostJavaDoesNotTakeSaysWhatToWriteInItsRecord() {
    int status = run("fetch", "--quiet", "http://127.1:8080/a", "http://b\u00fccher.example/", "http://a_b.example.org/",
        server.url("/ok"));

    assertThat(status).isEqualTo(1);
    assertThat(out).contains("{\"url\":\"http://127.1:8080/a\",\"attempts\":0,\"elapsedMs\":0,\"waitedMs\":0,"
        + "\"bytes\":0,\"error\":\"invalid URL: the host '127.1' is not one Java's HTTP client accepts: write the IP "
        + "address in full, four numbers such as 127.0.0.1\"}");
    assertThat(out).contains("\"error\":\"invalid URL: the host 'b\u00fccher.example' is not one Java's HTTP client "
        + "accepts: write the name in its ASCII form (xn--...)\"}");
    assertThat(out).contains("\"error\":\"invalid URL: the host 'a_b.example.org' is not one Java's HTTP client "
        + "accepts: a host name is letters, digits and '-' between dots, its last part starting with a letter\"}");
    assertThat(server.requests).containsExactly("GET /ok");
  }

  @Test
  void aUsageErrorPrintsOneLineNamingTheOptionAndFetchesNothing() {
    assertThat(run("fetch", "--max-in-flight", "0", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --max-in-flight must be at least 1, got 0");

    assertThat(run("fetch", "--host", "x.org=inFlight:zero", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --host 'x.org=inFlight:zero': inFlight 'zero' is not a whole number");

    assertThat(run("fetch", "--host", "x.org=rate:99999999999/1s", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --host 'x.org=rate:99999999999/1s': rate '99999999999/1s' allows too "
        + "many starts: at most 2147483647");

    assertThat(run("fetch", "--host", "x.org=inFlight:99999999999", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --host 'x.org=inFlight:99999999999': inFlight 99999999999 is too large: "
        + "at most 2147483647");

    assertThat(run("fetch", "--frobnicate", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: Unknown option: '--frobnicate'");

    assertThat(run("fetch", "--max-rate", "fast", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --max-rate 'fast' is not a decimal number");

    assertThat(run("fetch", "--host", "*.wikidata=inFlight:1", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).startsWith("hostpace: --host '*.wikidata=inFlight:1': host limit '*.wikidata' is not a domain");

    assertThat(run("fetch", "--timeout", "0", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --timeout must be more than zero seconds, got 0");

    assertThat(run("fetch")).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: no URL to fetch: give URLs as arguments or --input FILE");

    assertThat(err.lines()).hasSize(1);
    assertThat(out).isEmpty();
    assertThat(server.requests).isEmpty();
  }

  @Test
  void maxInFlightHoldsEachHostToThatManyRequestsAtOnce() {
    String[] args = new String[8];
    args[0] = "fetch";
    args[1] = "--max-in-flight";
    args[2] = "1";
    for (int i = 3; i < args.length; i++) {
      args[i] = server.url("/slow");
    }
    assertThat(run(args)).isZero();
    assertThat(server.maxInFlight.get()).isEqualTo(1);
  }

  @Test
  void hostLimitsApplyToTheirHost() {
    String key = "127.0.0.1:" + server.server.getAddress().getPort();
    assertThat(run("fetch", "--host", key + "=inFlight:1", server.url("/slow"), server.url("/slow"), server.url("/slow")))
        .isZero();
    assertThat(server.maxInFlight.get()).isEqualTo(1);
  }

  /**
   * {@code --max-rate} is the rate of every host of the run's context, and a run paced by it
   * fetches each URL once. How the engine spaces starts at a rate is held in virtual time in the
   * core (PacingTest.P1_aRateSpacesStartsWhenPlacesAreFree).
   */
  @Test
  void I5_maxRateSetsEveryHostsRateAndEachUrlIsFetchedOnce() {
    assertThat(run("fetch", "--max-rate", "10", server.url("/1"), server.url("/2"), server.url("/3"))).isZero();

    assertThat(records()).hasSize(3).allSatisfy(line -> assertThat(line).contains("\"status\":200,\"attempts\":1,"));
    assertThat(server.requests).containsExactlyInAnyOrder("GET /1", "GET /2", "GET /3");
    assertThat(contextOf("--max-rate", "10", "--host", "a.test=inFlight:2")).hasToString(io.hostpace.CallContext.builder()
        .limitsForEveryHost(io.hostpace.Limits.perSecond(10)).addLimit("a.test", io.hostpace.Limits.inFlight(2)).build().toString());
  }

  /** The context {@code hostpace fetch args} would send its calls with. */
  static io.hostpace.CallContext contextOf(String... args) {
    FetchCommand command = new FetchCommand(new Main.Streams(new ByteArrayInputStream(new byte[0]), System.out, System.err));
    new picocli.CommandLine(command).parseArgs(args);
    return command.pacing.context();
  }

  @Test
  void methodHeadersAndBodyAreSentAndTheDefaultUserAgentNamesHostpace(@TempDir Path dir) throws IOException {
    assertThat(run("fetch", "--header", "X-Test: yes", "--data", "q=1", server.url("/echo"))).isZero();
    assertThat(server.requests).containsExactly("POST /echo");
    assertThat(out).contains("\"bytes\":" + ("POST|" + Hostpace.DEFAULT_USER_AGENT + "|yes|q=1").length());

    Path body = dir.resolve("query.rq");
    Files.writeString(body, "SELECT * {}");
    assertThat(run("fetch", "--method", "put", "--user-agent", "test-agent/1", "--data", "@" + body, server.url("/echo")))
        .as(out + err).isZero();
    assertThat(out).contains("\"bytes\":" + "PUT|test-agent/1|null|SELECT * {}".length());
  }

  @Test
  void outputGoesToAFileWhenAsked(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("out.jsonl");
    assertThat(run("fetch", "--output", file.toString(), server.url("/ok"))).isZero();
    assertThat(out).isEmpty();
    assertThat(Files.readAllLines(file)).singleElement().satisfies(line -> assertThat(line).contains("\"status\":200"));

    // '-' is standard output, as it is standard input for --input: no file of that name.
    assertThat(run("fetch", "--output", "-", server.url("/ok"))).isZero();
    assertThat(records()).singleElement().satisfies(line -> assertThat(line).contains("\"status\":200"));
    assertThat(Path.of("-")).doesNotExist();
  }

  /** As --state and --save do, --output makes the folders it names that do not exist yet. */
  @Test
  void outputMakesItsMissingFolders(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("runs/2024/out.jsonl");

    assertThat(run("fetch", "--output", file.toString(), server.url("/ok"))).as(err).isZero();
    assertThat(Files.readAllLines(file)).singleElement().satisfies(line -> assertThat(line).contains("\"status\":200"));
  }

  /** A folder a message names is the one the user wrote, relative as written, not made absolute. */
  @Test
  void aFileOptionsMessageNamesItsFolderAsWritten() {
    assertThat(run("simulate", "pacing", BadInputTest.SCENARIO.toString(), "--chart", "pom.xml/chart.png")).isEqualTo(2);
    assertThat(err).isEqualTo("hostpace: --chart 'pom.xml/chart.png': 'pom.xml' is not a folder\n");
    assertThat(run("fetch", "--output", "pom.xml/out.jsonl", server.url("/ok"))).isEqualTo(2);
    assertThat(err).isEqualTo("hostpace: --output 'pom.xml/out.jsonl': 'pom.xml' is not a folder\n");
    assertThat(server.requests).isEmpty();
  }

  @Test
  void theSummaryTablePerHostGoesToStandardErrorUnlessQuiet() {
    assertThat(run("fetch", server.url("/refuse-once"), server.url("/ok"))).isZero();
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    // At the width the tests run with (no COLUMNS: 80), the host's line, then what it counted.
    assertThat(err).contains(host + "\n  requests 2, answers 200:2, refusals 1, retries 1\n")
        .contains("total: 2 requests, 2 completed, 0 failed, 1 refusal, 1 retry, in ");

    assertThat(run("fetch", "--quiet", server.url("/ok"))).isZero();
    assertThat(err).isEmpty();
  }

  @Test
  void timeoutEndsAnAttemptThatGetsNoHeadersInTime() {
    assertThat(run("fetch", "--timeout", "0.3", server.url("/hang"))).isEqualTo(1);
    assertThat(out).contains("\"attempts\":1").contains("\"error\":\"timeout: no response headers within --timeout 0.3 s\"");
    assertThat(server.seen.get("/hang").get()).isEqualTo(1);
  }

  @Test
  void retriesZeroReturnsTheFirstRefusalAsItIs() {
    assertThat(run("fetch", "--retries", "0", server.url("/refuse-once"))).isZero();
    assertThat(out).contains("\"status\":429,\"attempts\":1");
  }

  @Test
  void aRetryAfterPastTheDelayLimitReturnsTheRefusalAtOnce() {
    assertThat(run("fetch", "--retry-delay-limit", "1", server.url("/come-back-later"))).isZero();
    assertThat(out).contains("\"status\":503,\"attempts\":1");
  }

  @Test
  void D3_withTheAdaptiveTimeoutPolicyAnEndpointThatRefusesConnectionsFailsFast() throws IOException {
    String dead = "http://127.0.0.1:" + CommandRun.closedPort() + "/";
    int status = run("fetch", "--timeout-policy", "adaptive", "--max-in-flight", "1",
        dead + "1", dead + "2", dead + "3", dead + "4", dead + "5");

    assertThat(status).isEqualTo(1);
    assertThat(records()).filteredOn(line -> line.contains("\"error\":\"connection refused\"")).hasSize(3);
    assertThat(records()).filteredOn(line -> line.contains("is unreachable: failing fast")).hasSize(2);
  }

  @Test
  void anUnknownTimeoutPolicyIsAUsageError() {
    assertThat(run("fetch", "--timeout-policy", "psychic", server.url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).startsWith("hostpace: Invalid value for option '--timeout-policy'");
    assertThat(server.requests).isEmpty();
  }

  @Test
  void stateKeepsWhatHostsTaughtInAFileAcrossRuns(@TempDir Path dir) throws IOException {
    Path state = dir.resolve("state.tsv");
    String host = "127.0.0.1:" + server.server.getAddress().getPort();

    assertThat(run("fetch", "--state", state.toString(), server.url("/come-back-later"))).isZero();

    // Asked to come back in 120 s, past the 60 s limit: the request gave up, the host is paused 60 s.
    assertThat(Files.readAllLines(state)).hasSize(2).last().asString()
        .matches(java.util.regex.Pattern.quote(host) + "\\t\\d+\\t0\\t0\\t\\d{13}\\t0\\t0");
  }

  @Test
  void S1_aKeptPauseOfADayIsWaitedOutForAtMostThisRunsRetryDelayLimit(@TempDir Path dir) throws IOException {
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    long aDayOn = System.currentTimeMillis() + Duration.ofDays(1).toMillis();
    Path state = keptState(dir, "0\t0\t" + aDayOn + "\t0\t0"); // paused until a day on

    int status = run("fetch", "--state", state.toString(), "--retry-delay-limit", "1", server.url("/ok"));

    assertThat(status).isZero();
    assertThat(records()).singleElement().asString().contains("\"status\":200,\"attempts\":1,");
    // The pause the engine held the host to, as it reports it: the limit's second, not the day.
    assertThat(err).as(err).contains(host + "\n").contains("max pause " + "1000 ms");
    // Ended, so not written back, as the day or at all: the file keeps the host as having taught nothing.
    assertThat(Files.readAllLines(state)).hasSize(2).last().asString()
        .matches(java.util.regex.Pattern.quote(host) + "\\t\\d+\\t0\\t0\\t0\\t0\\t0");
  }

  @Test
  void S1_aKeptQuotaHoldsTheNextRunFromItsFirstStartAndIsKeptAgain(@TempDir Path dir) throws IOException {
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    Path state = keptState(dir, "0\t0\t0\t2\t2000000000"); // two a window of 2 s, as a run before learned it

    int status = run("fetch", "--state", state.toString(), server.url("/a"), server.url("/b"), server.url("/c"));

    assertThat(status).isZero();
    assertThat(server.requests).containsExactlyInAnyOrder("GET /a", "GET /b", "GET /c");
    // The engine holds the host to the kept quota from its first start, and reports it as what the
    // host taught; how it holds the third start to the window's end is held in virtual time in the
    // core (HostStateFileTest.S1_aLoadedQuotaHoldsTheFirstWindowsStartsAndIsHeardAsLearned).
    assertThat(err).as(err).contains(host + "\n").contains("quota 2 per 2 s");
    assertThat(Files.readAllLines(state)).last().asString()
        .matches(java.util.regex.Pattern.quote(host) + "\\t\\d+\\t0\\t0\\t0\\t2\\t2000000000");
  }

  /**
   * A run of a fleet claims its paced host's start in the fleet's Redis, under the fleet's name,
   * where the fleet's other processes find it: at one start each thousand seconds, the claim stays
   * long past the run. What the claim makes another process of
   * the fleet wait is held in virtual time in the core (FleetTest.S2_theFleetSpacesAPacedHostsStartsAcrossItsProcesses)
   * and measured by the wall-clock tests below.
   */
  @Test
  void S2_aRunOfAFleetClaimsItsPacedHostsStartInTheFleetsRedis() throws Exception {
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    try (RedisServer redis = RedisServer.start()) {
      assertThat(run("fetch", "--fleet", "nightly", "--redis", redis.uri(), "--host", host + "=perSecond:0.001",
          server.url("/a"))).as(err).isZero();
      assertThat(out).contains("\"status\":200,\"attempts\":1,");

      io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
      try (var connection = client.connect()) {
        assertThat(connection.sync().keys("hostpace:*:last:*"))
            .as("the fleets' last starts").containsExactly("hostpace:nightly:last:{127.0.0.1}:" + host);
      } finally {
        client.shutdown();
      }
    }
  }

  /**
   * SPEC S4: {@code --fleet-lease} is the lease of the places the run holds in the fleet's Redis,
   * renewed while it runs: a place held while its request is at the server ends 30 s from Redis's
   * look, where the default lease would end it within 10 s.
   */
  @Test
  void S4_aRunOfAFleetHoldsItsPlacesOnTheLeaseOfFleetLease() throws Exception {
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    try (RedisServer redis = RedisServer.start()) {
      io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
      try (var connection = client.connect()) {
        var plain = connection.sync();
        java.util.concurrent.CompletableFuture<Integer> ran = java.util.concurrent.CompletableFuture.supplyAsync(
            () -> run("fetch", "--fleet", "nightly", "--redis", redis.uri(), "--fleet-lease", "30s",
                "--host", host + "=inFlight:1", "--timeout", "3s", "--retries", "0", server.url("/hang")));
        String places = "hostpace:nightly:places:{127.0.0.1}:" + host;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // a guard against a hang
        List<io.lettuce.core.ScoredValue<String>> held = List.of();
        while (held.isEmpty() && System.nanoTime() - deadline < 0 && !ran.isDone()) {
          held = plain.zrangeWithScores(places, 0, -1);
          Thread.sleep(5);
        }
        List<String> time = plain.time();
        long redisMicros = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
        assertThat(held).as("the run's place, while /hang holds its request").hasSize(1);
        // More than the default lease of 10 s could leave, and at most the 30 s asked: the place is
        // read as soon as it is written, and a pause of the machine up to 20 s between the two is
        // allowed for.
        assertThat((long) held.get(0).getScore() - redisMicros).as("what is left of its lease, in microseconds")
            .isGreaterThan(10_000_000L).isLessThanOrEqualTo(30_000_000L);
        ran.get(30, java.util.concurrent.TimeUnit.SECONDS);
      } finally {
        client.shutdown();
      }
    }
  }

  /**
   * A figure of the wall clock across processes and a real Redis: how long the second run waits.
   * The fleet's spacing of starts is held in virtual time in the core
   * (FleetTest.S2_theFleetSpacesAPacedHostsStartsAcrossItsProcesses).
   */
  @Test
  @Tag("wall-clock")
  void S2_runsOfOneFleetShareAPacedHostsStartsThroughRedis() throws Exception {
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    try (RedisServer redis = RedisServer.start()) {
      String[] fleet = {"fetch", "--fleet", "nightly", "--redis", redis.uri(), "--host", host + "=perSecond:0.1"};
      assertThat(run(concat(fleet, server.url("/a")))).isZero();
      assertThat(out).contains("\"attempts\":1");

      // A second process of the fleet, at once after the first: one start each 10 s for the fleet,
      // so its first waits for the first's start to be 10 s old (here at least 5 s of it are left).
      assertThat(run(concat(fleet, server.url("/b")))).isZero();
      long waited = Long.parseLong(out.replaceAll("(?s).*\"waitedMs\":(\\d+).*", "$1"));
      assertThat(waited).isGreaterThanOrEqualTo(5_000);

      // Another fleet's run does not wait for this one's.
      assertThat(run("fetch", "--fleet", "other", "--redis", redis.uri(), "--host", host + "=perSecond:0.1",
          server.url("/c"))).isZero();
      assertThat(Long.parseLong(out.replaceAll("(?s).*\"waitedMs\":(\\d+).*", "$1"))).isLessThan(5_000);
    }
  }

  /** A figure of the wall clock, as {@link #S2_runsOfOneFleetShareAPacedHostsStartsThroughRedis()}. */
  @Test
  @Tag("wall-clock")
  void S5_runsOfOneFleetShareAPacedHostsStartsThroughARedisCluster() throws Exception {
    String host = "127.0.0.1:" + server.server.getAddress().getPort();
    try (RedisCluster cluster = RedisCluster.start()) {
      String seeds = String.join(",", cluster.uris().subList(0, 2)); // the third is found from these
      String[] fleet = {"fetch", "--fleet", "nightly", "--redis-cluster", seeds, "--host", host + "=perSecond:0.1"};
      assertThat(run(concat(fleet, server.url("/a")))).as(err).isZero();
      assertThat(run(concat(fleet, server.url("/b")))).as(err).isZero();
      long waited = Long.parseLong(out.replaceAll("(?s).*\"waitedMs\":(\\d+).*", "$1"));
      assertThat(waited).as("the second run waits for the fleet's start of the first").isGreaterThanOrEqualTo(5_000);
    }
  }

  @Test
  void S5_aRedisClusterOptionThatCannotBeUsedIsAUsageErrorThatSaysWhy() throws IOException {
    assertThat(run("fetch", "--redis-cluster", "redis://127.0.0.1:7000", server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("--redis-cluster needs --fleet NAME");
    assertThat(run("fetch", "--fleet", "nightly", "--redis", "redis://127.0.0.1:6379", "--redis-cluster",
        "redis://127.0.0.1:7000", server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("--redis and --redis-cluster both name the fleet's Redis");
    assertThat(run("fetch", "--fleet", "nightly", "--redis-cluster", "redis://:secret@127.0.0.1:" + CommandRun.closedPort(),
        server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("--redis-cluster 'redis://").contains("cannot be reached").doesNotContain("secret");
    assertThat(run("fetch", "--fleet", "nightly", "--redis-cluster", "http://127.0.0.1:7000", server.url("/ok")))
        .isEqualTo(2);
    assertThat(err).contains("--redis-cluster: ");
  }

  @Test
  void S5_aRedisClusterThatCannotBeReachedIsOneLineInTheCommandsOwnProcessButWithVerbose()
      throws IOException, InterruptedException {
    String seeds = "redis://127.0.0.1:" + CommandRun.closedPort() + ",redis://127.0.0.1:" + CommandRun.closedPort();
    String[] fetch = {"fetch", "--fleet", "nightly", "--redis-cluster", seeds, server.url("/ok")};

    String quiet = process(fetch);
    assertThat(quiet.lines()).as(quiet).hasSize(1);
    assertThat(quiet).startsWith("hostpace: --redis-cluster '" + seeds + "' cannot be reached");
    String verbose = process(concat(fetch, "--verbose"));
    assertThat(verbose).as("Lettuce's own lines, with --verbose").contains("Unable to connect");
  }

  /** Runs the command as a process of its own, as bin/hostpace does; its exit status is 2 and its output is returned. */
  static String process(String... args) throws IOException, InterruptedException {
    CommandRun.Exited exited = CommandRun.inProcessOfItsOwn(Map.of(), args);
    assertThat(exited.status()).as(exited.output()).isEqualTo(2);
    return exited.output();
  }

  static String[] concat(String[] first, String last) {
    String[] all = Arrays.copyOf(first, first.length + 1);
    all[first.length] = last;
    return all;
  }

  @Test
  void aFleetWhoseRedisCannotBeReachedOrWhoseNameIsBadIsAUsageError() throws IOException {
    String unreachable = "redis://127.0.0.1:" + CommandRun.closedPort();
    assertThat(run("fetch", "--fleet", "nightly", "--redis", unreachable, server.url("/ok"))).isEqualTo(2);
    // In fetch's words for a URL's failure, not the Redis client's ("Unable to connect to 127.0.0.1/<unresolved>:1").
    assertThat(err).contains("--redis '" + unreachable + "' cannot be reached: connection refused");

    assertThat(run("fetch", "--fleet", "night:ly", server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("--fleet: fleet name 'night:ly'");

    assertThat(run("fetch", "--redis", unreachable, server.url("/ok"))).isEqualTo(2);
    assertThat(err).contains("--redis needs --fleet NAME");
    assertThat(server.seen).doesNotContainKey("/ok");
  }

  @Test
  void aStateFileItDidNotWriteIsAUsageErrorThatNamesTheLine(@TempDir Path dir) throws IOException {
    Path state = dir.resolve("state.tsv");
    Files.writeString(state, "# mine\nqlever.dev\tyesterday\t0\t0\t0\n");

    assertThat(run("fetch", "--state", state.toString(), server.url("/ok"))).isEqualTo(2);

    assertThat(err).contains("--state: host state file " + state + ", line 2: saved is not a whole number: 'yesterday'");
    assertThat(server.seen).doesNotContainKey("/ok");
  }}

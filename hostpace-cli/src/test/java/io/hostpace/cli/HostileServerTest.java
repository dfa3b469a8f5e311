package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.hostpace.testkit.RawServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code hostpace fetch} and {@code hostpace sparql}, in this process, against the testkit's
 * {@link RawServer} on 127.0.0.1, whose answers stall, trickle, never end or are not HTTP: each
 * ends within its limits with a record, or a line, that says what happened (SPEC T7), and a body
 * that was cut leaves the server with its connection closed. Each run is bounded a little over
 * what its limits allow, so a regression fails instead of hanging.
 */
class HostileServerTest {

  final RawServer server;
  String out = "";
  String err = "";

  HostileServerTest() throws IOException {
    server = RawServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  /** Runs {@code hostpace args}; fails the test if it has not ended within {@code bound}. */
  int run(Duration bound, String... args) {
    return assertTimeoutPreemptively(bound, () -> {
      ByteArrayOutputStream stdout = new ByteArrayOutputStream();
      ByteArrayOutputStream stderr = new ByteArrayOutputStream();
      int status = Main.run(args, new ByteArrayInputStream(new byte[0]),
          new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));
      out = stdout.toString(StandardCharsets.UTF_8);
      err = stderr.toString(StandardCharsets.UTF_8);
      return status;
    }, () -> "hostpace " + String.join(" ", args) + " did not end within " + bound);
  }

  String url(String path) {
    return server.uri(path).toString();
  }

  /** The record of {@code path}'s URL. */
  String record(String path) {
    String prefix = "{\"url\":\"" + url(path) + "\",";
    List<String> found = out.lines().filter(line -> line.startsWith(prefix)).toList();
    assertThat(found).as("the records of %s in %s", path, out).hasSize(1);
    return found.get(0);
  }

  /** Waits, a bounded while, for the server to see the client close {@code path}'s connection. */
  void assertAbandoned(String path) {
    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
      while (!server.abandoned().contains(path)) {
        Thread.sleep(10);
      }
    }, () -> "the client still holds the connection of " + path + "; abandoned: " + server.abandoned());
  }

  // ------------------------------------------------------------------- fetch: the body's deadline

  @Test
  void T7_aBodyThatStallsAfterItsHeadersIsCutAtTheTimeoutAndItsRecordSaysHowMuchHadCome() {
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "1", url("/stall"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/stall"))
        .contains("\"status\":200,\"attempts\":1,")
        .endsWith("\"bytes\":0,\"error\":\"timeout: the body was not complete within --timeout 1 s: "
            + "0 of 1048576 bytes had come\"}");
    assertAbandoned("/stall");
  }

  @Test
  void T7_aBodyThatTricklesIsCutAtTheTimeoutCountedFromTheSendNotFromTheLastByte() {
    int status = run(Duration.ofSeconds(5), "fetch", "--quiet", "--timeout", "2", url("/trickle"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/trickle")).containsPattern(
        "\"status\":200,\"attempts\":1,\"elapsedMs\":2\\d\\d\\d,\"waitedMs\":\\d+,\"bytes\":([12]),"
            + "\"error\":\"timeout: the body was not complete within --timeout 2 s: \\1 of 1048576 bytes had come\"}$");
    assertAbandoned("/trickle");
  }

  @Test
  void T7_anEndlessChunkedBodyIsCutAtTheTimeoutWhenTheCapIsNotReachedFirst() {
    // 1 GiB is more than the loopback carries in a second here; the deadline ends it first.
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "1", "--max-body", "1000GiB", url("/endless"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/endless")).contains("\"status\":200,")
        .containsPattern("\"bytes\":[1-9]\\d*,\"error\":\"timeout: the body was not complete within --timeout 1 s: "
            + "[1-9]\\d* bytes had come\"}$");
    assertAbandoned("/endless");
  }

  // ------------------------------------------------------------------- fetch: the body's size cap

  @Test
  void T7_anEndlessBodyIsCutPastMaxBodyWithARecordThatSaysSo() {
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "2", "--max-body", "4KiB", url("/endless"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/endless")).contains("\"status\":200,")
        .containsPattern("\"bytes\":\\d+,\"error\":\"body too large: more than --max-body 4 KiB \\(4096 bytes\\) came; "
            + "the rest was not read\"}$");
    long bytes = Long.parseLong(record("/endless").replaceFirst(".*\"bytes\":(\\d+),.*", "$1"));
    assertThat(bytes).isGreaterThan(4096).isLessThanOrEqualTo(4096 + 1024 * 1024);
    assertAbandoned("/endless");
  }

  @Test
  void T7_aBodyDeclaredLongerThanMaxBodyIsNotReadAtAll() {
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "2", "--max-body", "500k", url("/huge"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/huge")).contains("\"status\":200,").endsWith("\"bytes\":0,\"error\":\"body too large: "
        + "the server declared 1073741824 bytes, over --max-body 500 KiB (512000 bytes); none was read\"}");
    assertAbandoned("/huge");
  }

  @Test
  void T7_theLengthAHeadAnswerDeclaresIsNotABodyToCap() {
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "2", "--max-body", "4KiB",
        "--method", "HEAD", url("/huge"));

    assertThat(status).isZero();
    assertThat(record("/huge")).contains("\"status\":200,").endsWith("\"bytes\":0}");
  }

  @Test
  void T7_aBodyWithinTheCapAndTheDeadlineIsReadWhole() {
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "1", "--max-body", "2", url("/ok"));

    assertThat(status).isZero();
    assertThat(record("/ok")).contains("\"status\":200,").endsWith("\"bytes\":2}");
  }

  @Test
  void T7_maxBodyThatIsNotASizeIsAUsageErrorOfOneLine() {
    assertThat(run(Duration.ofSeconds(4), "fetch", "--max-body", "lots", url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --max-body 'lots' is not a size: expected bytes, or a number with "
        + "k, M or G (powers of 1024), such as 64MiB or 500k");
    assertThat(err.lines()).hasSize(1);

    assertThat(run(Duration.ofSeconds(4), "fetch", "--max-body", "0", url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --max-body '0' is less than one byte");

    assertThat(run(Duration.ofSeconds(4), "sparql", "--max-body", "12 parsecs", "--endpoint", url("/sparql"),
        "--query", "ASK {}")).isEqualTo(2);
    assertThat(err.strip()).startsWith("hostpace: --max-body '12 parsecs' is not a size");
    assertThat(server.paths()).isEmpty();
  }

  // ------------------------------------------------------------------- fetch: the whole bound

  /**
   * With {@code --timeout 2 --retries 2 --retry-delay-limit 5} a URL takes at most three
   * attempts of 2 s and two pauses of 5 s: 16 s. None of these is retried (a body cut, a timeout
   * or a reset is not a refusal, SPEC T6), so they end sooner; the bound is what the options allow.
   */
  @Test
  void T7_withTimeout2Retries2AndRetryDelayLimit5EveryHostileUrlEndsWithin16Seconds() {
    List<String> paths = List.of("/stall", "/trickle", "/endless", "/hang", "/reset");
    List<String> args = new ArrayList<>(List.of("fetch", "--quiet", "--timeout", "2", "--retries", "2",
        "--retry-delay-limit", "5", "--max-body", "2MiB", "--host", server.hostKey() + "=inFlight:8"));
    paths.forEach(path -> args.add(url(path)));

    int status = run(Duration.ofSeconds(17), args.toArray(new String[0]));

    assertThat(status).isEqualTo(1);
    assertThat(out.lines()).hasSize(paths.size());
    assertThat(record("/stall")).contains("\"attempts\":1,").contains("timeout: the body was not complete within --timeout 2 s");
    assertThat(record("/trickle")).contains("\"attempts\":1,").contains("timeout: the body was not complete within --timeout 2 s");
    assertThat(record("/endless")).contains("\"attempts\":1,").contains("body too large: more than --max-body 2 MiB");
    assertThat(record("/hang")).contains("\"attempts\":1,")
        .endsWith("\"error\":\"timeout: no response headers within --timeout 2 s\"}");
    assertThat(record("/reset")).contains("\"attempts\":1,").endsWith("\"error\":\"connection reset by the server\"}");
    // Each sent once by the engine; the JDK client itself sends a GET again, once, when its
    // connection closed without a byte of answer, as /reset's does.
    assertThat(server.paths()).containsOnlyOnce("/stall", "/trickle", "/endless", "/hang");
  }

  @Test
  void T7_theDeadlineIsEachAttemptsCountedFromItsOwnSendNotFromTheFirst() throws IOException {
    try (LocalServer local = new LocalServer()) {
      String url = local.url("/refuse-then-stall");
      int status = run(Duration.ofSeconds(5), "fetch", "--quiet", "--timeout", "1", "--retries", "2", url);

      assertThat(status).isEqualTo(1);
      // Refused at once, paused 1 s, then the second attempt's headers and a stall: cut 1 s after it was sent.
      assertThat(out.strip()).startsWith("{\"url\":\"" + url + "\",\"status\":200,\"attempts\":2,")
          .endsWith("\"error\":\"timeout: the body was not complete within --timeout 1 s: 0 of 1048576 bytes had come\"}");
      long elapsed = Long.parseLong(out.replaceFirst("(?s).*\"elapsedMs\":(\\d+),.*", "$1"));
      long waited = Long.parseLong(out.replaceFirst("(?s).*\"waitedMs\":(\\d+),.*", "$1"));
      assertThat(waited).isGreaterThanOrEqualTo(900);
      assertThat(elapsed).isGreaterThanOrEqualTo(waited + 950).isLessThan(waited + 2000);
      assertThat(local.seen.get("/refuse-then-stall").get()).isEqualTo(2);
    }
  }

  // ------------------------------------------------------------------- fetch: what the messages say

  @Test
  void answersThatAreNotHttpAreNamedAsSuch() {
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "2", url("/bad-status"), url("/huge-headers"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/bad-status")).doesNotContain("\"status\"")
        .endsWith("\"error\":\"not a valid HTTP answer: Invalid status line: \\\"HTTP/1.1 two hundred\\\"\"}");
    assertThat(record("/huge-headers")).doesNotContain("\"status\"")
        .containsPattern("\"error\":\"the server's headers are too large: over \\d+ bytes, the client's limit\"}$");
  }

  @Test
  void aRefusalWithAJunkRetryAfterIsRetriedAndItsStatusReportedAsTheServersAnswer() {
    int status = run(Duration.ofSeconds(8), "fetch", "--quiet", "--timeout", "2", "--retries", "1", url("/junk-retry-after"));

    assertThat(status).isZero();
    assertThat(record("/junk-retry-after")).contains("\"status\":429,\"attempts\":2,").endsWith("\"bytes\":4}");
  }

  @Test
  void eachKindOfFailureIsNamedByWhatHappenedNotByTheExceptionThatCarriesIt() {
    Duration timeout = Duration.ofMillis(1500);
    // The JDK's shape for a host name that does not resolve: a ConnectException around the cause.
    Throwable dns = new java.net.ConnectException();
    dns.initCause(new java.nio.channels.UnresolvedAddressException());
    assertThat(FailureMessage.describe(new java.util.concurrent.CompletionException(dns), timeout))
        .isEqualTo("DNS failure: the host name does not resolve");
    Throwable refused = new java.net.ConnectException();
    refused.initCause(new java.nio.channels.ClosedChannelException());
    assertThat(FailureMessage.describe(refused, timeout)).isEqualTo("connection refused");
    assertThat(FailureMessage.describe(new java.net.ConnectException("No route to host"), timeout))
        .isEqualTo("cannot connect: No route to host");
    assertThat(FailureMessage.describe(new java.net.http.HttpConnectTimeoutException("HTTP connect timed out"), timeout))
        .isEqualTo("connect timeout: no connection within --timeout 1.5 s");
    assertThat(FailureMessage.describe(new java.net.http.HttpTimeoutException("request timed out"), timeout))
        .isEqualTo("timeout: no response headers within --timeout 1.5 s");
    assertThat(FailureMessage.describe(new IOException("HTTP/1.1 header parser received no bytes",
        new java.net.SocketException("Connection reset")), timeout)).isEqualTo("connection reset by the server");
    assertThat(FailureMessage.describe(new IOException("HTTP/1.1 header parser received no bytes"), timeout))
        .isEqualTo("the server closed the connection without an answer");
    assertThat(FailureMessage.describe(new IOException(new java.io.EOFException("EOF reached while reading")), timeout))
        .isEqualTo("the server closed the connection before the answer was complete");
  }

  @Test
  void aUrlWithAnAnswerAndOneWithoutEachGetTheirRecord() {
    int status = run(Duration.ofSeconds(4), "fetch", "--quiet", "--timeout", "1", url("/ok"), url("/reset"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/ok")).contains("\"status\":200,").endsWith("\"bytes\":2}");
    assertThat(record("/reset")).doesNotContain("\"status\"").endsWith("\"error\":\"connection reset by the server\"}");
  }

  // ------------------------------------------------------------------- sparql

  int sparql(Duration bound, String path, String... options) {
    List<String> args = new ArrayList<>(List.of("sparql", "--endpoint", url(path), "--query", "SELECT * { ?s ?p ?o }"));
    args.addAll(Arrays.asList(options));
    return run(bound, args.toArray(new String[0]));
  }

  @Test
  void T7_sparqlEndsAStalledResultAtTheTimeoutWithOneLine() {
    int status = sparql(Duration.ofSeconds(4), "/stall", "--timeout", "1");

    assertThat(status).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: timeout: the body was not complete within "
        + "--timeout 1 s: 0 of 1048576 bytes had come");
    assertAbandoned("/stall");
    // Jena's default client, bounded for the query, is Jena's own again.
    assertThat(org.apache.jena.http.HttpEnv.getDftHttpClient()).isNotInstanceOf(BoundedHttpClient.class);
  }

  @Test
  void T7_sparqlEndsAResultPastMaxBodyWithOneLine() {
    int status = sparql(Duration.ofSeconds(4), "/endless", "--timeout", "2", "--max-body", "4KiB");

    assertThat(status).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: body too large: more than --max-body 4 KiB "
        + "(4096 bytes) came; the rest was not read");
    assertAbandoned("/endless");
  }

  @Test
  void sparqlSaysItsOwnTimeoutIsOneNotThatTheEndpointAnsweredMinusOne() {
    int status = sparql(Duration.ofSeconds(4), "/hang", "--timeout", "1");

    assertThat(status).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: timeout: no response headers within --timeout 1 s");
  }

  @Test
  void sparqlNamesAResetConnectionAndAnAnswerThatIsNotHttp() {
    assertThat(sparql(Duration.ofSeconds(4), "/reset", "--timeout", "1")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: connection reset by the server");

    assertThat(sparql(Duration.ofSeconds(4), "/bad-status", "--timeout", "1")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: not a valid HTTP answer: "
        + "Invalid status line: \"HTTP/1.1 two hundred\"");
  }

  @Test
  void T7_sparqlEndsATrickleAtTheTimeoutAndAResultDeclaredTooLongAtOnce() {
    assertThat(sparql(Duration.ofSeconds(5), "/trickle", "--timeout", "2")).isEqualTo(1);
    assertThat(err.strip()).matches("hostpace: the query failed: timeout: the body was not complete within "
        + "--timeout 2 s: [12] of 1048576 bytes had come");
    assertAbandoned("/trickle");

    assertThat(sparql(Duration.ofSeconds(4), "/huge", "--timeout", "2", "--max-body", "2MiB")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: body too large: the server declared 1073741824 "
        + "bytes, over --max-body 2 MiB (2097152 bytes); none was read");
    assertAbandoned("/huge");
  }

  @Test
  void sparqlNamesTheServersStatusAndHeadersTooLargeForTheClient() {
    assertThat(sparql(Duration.ofSeconds(8), "/junk-retry-after", "--timeout", "2", "--retries", "1")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the endpoint answered 429: slow");
    assertThat(server.paths()).containsExactly("/junk-retry-after", "/junk-retry-after");

    assertThat(sparql(Duration.ofSeconds(4), "/huge-headers", "--timeout", "2")).isEqualTo(1);
    assertThat(err.strip()).matches("hostpace: the query failed: the server's headers are too large: "
        + "over \\d+ bytes, the client's limit");
  }

  @Test
  void sparqlSaysAnAnswerItCannotReadIsNotResultsAndWhereWithoutTheParsersOwnWords() throws IOException {
    assertThat(sparql(Duration.ofSeconds(4), "/ok", "--timeout", "2")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the endpoint's answer cannot be read as the query's results (line 1, column 1)");

    try (LocalServer local = new LocalServer()) {
      assertThat(run(Duration.ofSeconds(4), "sparql", "--endpoint", local.url("/junk-results"), "--query", "SELECT * { ?s ?p ?o }"))
          .isEqualTo(1);
      assertThat(err.strip()).isEqualTo("hostpace: the endpoint's answer cannot be read as the query's results (line 1, column 26)");

      assertThat(run(Duration.ofSeconds(4), "sparql", "--endpoint", local.url("/junk-turtle"), "--query",
          "CONSTRUCT WHERE { ?s ?p ?o }")).isEqualTo(1);
      assertThat(err.strip()).isEqualTo("hostpace: the endpoint's answer cannot be read as the query's results (line 1, column 47)");
      assertThat(err.lines()).hasSize(1);
    }
  }
}

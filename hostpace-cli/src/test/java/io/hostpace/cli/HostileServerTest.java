package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.testkit.RawServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code hostpace fetch} and {@code hostpace sparql}, in this process, against the testkit's
 * {@link RawServer} on 127.0.0.1, whose answers stall, trickle, never end or are not HTTP: each
 * ends within its limits with a record, or a line, that says what happened (SPEC T7), and a body
 * that was cut leaves the server with its connection closed. Each timeout is as short as the
 * behaviour allows: a stall is a stall at half a second as at two. A run that hangs is failed by
 * the build's default timeout. {@code sparql} sets Jena's default client for its query, so this
 * class holds that lock.
 */
@ResourceLock(SparqlCommandTest.JENA_DEFAULT_CLIENT)
class HostileServerTest extends CommandTest {

  final RawServer server;

  HostileServerTest() throws IOException {
    server = RawServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  /** Runs {@code hostpace args}. */

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

  /**
   * Waits for the server to see the client close {@code path}'s connection: a client that keeps
   * it fails the test at the build's default timeout.
   */
  void assertAbandoned(String path) throws InterruptedException {
    while (!server.abandoned().contains(path)) {
      Thread.sleep(10); // polling the server's count, not timing anything
    }
  }

  /** Fetches {@code path} alone and quietly with {@code options}, expects the run to fail, and gives the path's record. */
  String failedFetch(String path, String... options) {
    List<String> args = new ArrayList<>(List.of("fetch", "--quiet"));
    args.addAll(List.of(options));
    args.add(url(path));
    assertThat(run(args.toArray(new String[0]))).as("exit status").isEqualTo(1);
    return record(path);
  }

  // ------------------------------------------------------------------- fetch: the body's deadline

  @Test
  void T7_aBodyThatStallsAfterItsHeadersIsCutAtTheTimeoutAndItsRecordSaysHowMuchHadCome() throws InterruptedException {
    // A duration with a unit, as Spring's properties take it: 500ms is 0.5 s.
    assertThat(failedFetch("/stall", "--timeout", "500ms"))
        .contains("\"status\":200,\"attempts\":1,")
        .endsWith("\"bytes\":0,\"error\":\"timeout: the body was not complete within --timeout 0.5 s: "
            + "0 of 1048576 bytes had come\"}");
    assertAbandoned("/stall");
  }

  @Test
  void T7_aBodyThatTricklesIsCutAtTheTimeoutCountedFromTheSendNotFromTheLastByte() throws InterruptedException {
    // A byte each second, so no read waits as long as the timeout: only a deadline counted from
    // the send ends it, and the record counts what had come.
    assertThat(failedFetch("/trickle", "--timeout", "1.5")).containsPattern(
        "\"status\":200,\"attempts\":1,\"elapsedMs\":\\d+,\"waitedMs\":\\d+,\"bytes\":(\\d+),"
            + "\"error\":\"timeout: the body was not complete within --timeout 1.5 s: \\1 of 1048576 bytes had come\"}$");
    assertAbandoned("/trickle");
  }

  @Test
  void T7_anEndlessChunkedBodyIsCutAtTheTimeoutWhenTheCapIsNotReachedFirst() throws InterruptedException {
    // 1000 GiB is more than the loopback carries in half a second; the deadline ends it first.
    assertThat(failedFetch("/endless", "--timeout", "0.5", "--max-body", "1000GiB")).contains("\"status\":200,")
        .containsPattern("\"bytes\":[1-9]\\d*,\"error\":\"timeout: the body was not complete within --timeout 0.5 s: "
            + "[1-9]\\d* bytes had come\"}$");
    assertAbandoned("/endless");
  }

  // ------------------------------------------------------------------- fetch: the body's size cap

  @Test
  void T7_anEndlessBodyIsCutPastMaxBodyWithARecordThatSaysSo() throws InterruptedException {
    String record = failedFetch("/endless", "--timeout", "2", "--max-body", "4KiB");

    assertThat(record).contains("\"status\":200,")
        .containsPattern("\"bytes\":\\d+,\"error\":\"body too large: more than --max-body 4 KiB \\(4096 bytes\\) came; "
            + "the rest was not read\"}$");
    long bytes = Long.parseLong(record.replaceFirst(".*\"bytes\":(\\d+),.*", "$1"));
    assertThat(bytes).isGreaterThan(4096).isLessThanOrEqualTo(4096 + 1024 * 1024);
    assertAbandoned("/endless");
  }

  @Test
  void T7_aBodyDeclaredLongerThanMaxBodyIsNotReadAtAll() throws InterruptedException {
    assertThat(failedFetch("/huge", "--timeout", "2", "--max-body", "500k")).contains("\"status\":200,").endsWith("\"bytes\":0,\"error\":\"body too large: "
        + "the server declared 1073741824 bytes, over --max-body 500 KiB (512000 bytes); none was read\"}");
    assertAbandoned("/huge");
  }

  @Test
  void T7_theLengthAHeadAnswerDeclaresIsNotABodyToCap() {
    int status = run("fetch", "--quiet", "--timeout", "2", "--max-body", "4KiB",
        "--method", "HEAD", url("/huge"));

    assertThat(status).isZero();
    assertThat(record("/huge")).contains("\"status\":200,").endsWith("\"bytes\":0}");
  }

  @Test
  void T7_aBodyWithinTheCapAndTheDeadlineIsReadWhole() {
    int status = run("fetch", "--quiet", "--timeout", "1", "--max-body", "2", url("/ok"));

    assertThat(status).isZero();
    assertThat(record("/ok")).contains("\"status\":200,").endsWith("\"bytes\":2}");
  }

  @Test
  void T7_maxBodyThatIsNotASizeIsAUsageErrorOfOneLine() {
    assertThat(run("fetch", "--max-body", "lots", url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --max-body 'lots' is not a size: expected bytes, or a number with "
        + "k, M or G (powers of 1024), such as 64MiB or 500k");
    assertThat(err.lines()).hasSize(1);

    assertThat(run("fetch", "--max-body", "0", url("/ok"))).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --max-body '0' is less than one byte");

    assertThat(run("sparql", "--max-body", "12 parsecs", "--endpoint", url("/sparql"),
        "--query", "ASK {}")).isEqualTo(2);
    assertThat(err.strip()).startsWith("hostpace: --max-body '12 parsecs' is not a size");
    assertThat(server.paths()).isEmpty();
  }

  // ------------------------------------------------------------------- fetch: the whole bound

  /**
   * With {@code --retries 2} still none of these is retried (a body cut, a timeout or a reset is
   * not a refusal, SPEC T6): each URL ends after one attempt, cut at its timeout or its cap, so
   * what a hostile URL costs is bounded by the options, one {@code --timeout}, whatever it sends.
   */
  @Test
  void T6_T7_noHostileUrlIsRetriedSoEachEndsAfterOneAttemptCutAtTheTimeoutOrTheCap() {
    List<String> paths = List.of("/stall", "/trickle", "/endless", "/hang", "/reset");
    List<String> args = new ArrayList<>(List.of("fetch", "--quiet", "--timeout", "1.5", "--retries", "2",
        "--retry-delay-limit", "5", "--max-body", "2MiB", "--host", server.hostKey() + "=inFlight:8"));
    paths.forEach(path -> args.add(url(path)));

    int status = run(args.toArray(new String[0]));

    assertThat(status).isEqualTo(1);
    assertThat(out.lines()).hasSize(paths.size());
    assertThat(record("/stall")).contains("\"attempts\":1,").contains("timeout: the body was not complete within --timeout 1.5 s");
    assertThat(record("/trickle")).contains("\"attempts\":1,").contains("timeout: the body was not complete within --timeout 1.5 s");
    assertThat(record("/endless")).contains("\"attempts\":1,").contains("body too large: more than --max-body 2 MiB");
    assertThat(record("/hang")).contains("\"attempts\":1,")
        .endsWith("\"error\":\"timeout: no response headers within --timeout 1.5 s\"}");
    assertThat(record("/reset")).contains("\"attempts\":1,").endsWith("\"error\":\"connection reset by the server\"}");
    // Each sent once by the engine; the JDK client itself sends a GET again, once, when its
    // connection closed without a byte of answer, as /reset's does.
    assertThat(server.paths()).containsOnlyOnce("/stall", "/trickle", "/endless", "/hang");
  }

  /**
   * Refused with {@code Retry-After: 1}, paused as long as the timeout, then the second attempt's
   * headers and a stall. Were the deadline counted from the first send, it would have passed
   * during the pause and the second attempt would get no headers: it gets them, and is cut at its
   * body. The pause the engine took is the one the summary reports, the server's second.
   */
  @Test
  void T7_theDeadlineIsEachAttemptsCountedFromItsOwnSendNotFromTheFirst() throws IOException {
    try (LocalServer local = new LocalServer()) {
      String url = local.url("/refuse-then-stall");
      int status = run("fetch", "--timeout", "1", "--retries", "2", url);

      assertThat(status).isEqualTo(1);
      assertThat(out.strip()).startsWith("{\"url\":\"" + url + "\",\"status\":200,\"attempts\":2,")
          .endsWith("\"error\":\"timeout: the body was not complete within --timeout 1 s: 0 of 1048576 bytes had come\"}");
      assertThat(err).as(err).contains("refusals 1, retries 1").contains("max pause 1000 ms");
      assertThat(local.seen.get("/refuse-then-stall").get()).isEqualTo(2);
    }
  }

  // ------------------------------------------------------------------- fetch: what the messages say

  @Test
  void answersThatAreNotHttpAreNamedAsSuch() {
    int status = run("fetch", "--quiet", "--timeout", "2", url("/bad-status"), url("/huge-headers"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/bad-status")).doesNotContain("\"status\"")
        .endsWith("\"error\":\"not a valid HTTP answer: Invalid status line: \\\"HTTP/1.1 two hundred\\\"\"}");
    assertThat(record("/huge-headers")).doesNotContain("\"status\"")
        .endsWith("\"error\":\"the server's headers are too large for the JDK client: past its limit of 393216 "
            + "(jdk.http.maxHeaderSize), which counts each header as the bytes of its name and value plus 32\"}");
  }

  /**
   * About 70 KB of short headers on the wire pass the JDK client's limit, which counts each
   * header as its name and value plus 32: the message names that limit as the client counts it.
   */
  @Test
  void headersPastTheClientsLimitAreNamedWithTheLimitAndHowTheClientCountsIt() {
    server.script("/many-headers", "HTTP/1.1 200 OK\r\n" + "A: b\r\n".repeat(12_000) + "Content-Length: 2\r\n\r\nok");

    int status = run("fetch", "--quiet", "--timeout", "2", url("/many-headers"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/many-headers")).doesNotContain("\"status\"")
        .endsWith("\"error\":\"the server's headers are too large for the JDK client: past its limit of 393216 "
            + "(jdk.http.maxHeaderSize), which counts each header as the bytes of its name and value plus 32\"}");
  }

  /** A chunked body whose chunk-size line is not a size the client can read. */
  @Test
  void aMalformedChunkSizeIsNamedAsAMalformedChunkedBody() {
    String head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    server.script("/chunk-zz", head + "zz\r\nhello\r\n0\r\n\r\n");
    server.script("/chunk-negative", head + "-5\r\nhello\r\n0\r\n\r\n");
    server.script("/chunk-huge", head + "ffffffffffffffffffff\r\nhello\r\n0\r\n\r\n");
    server.script("/chunk-after-some", head + "2\r\nok\r\nzz\r\n");

    int status = run("fetch", "--quiet", "--timeout", "2", url("/chunk-zz"), url("/chunk-negative"),
        url("/chunk-huge"), url("/chunk-after-some"));

    assertThat(status).isEqualTo(1);
    for (String path : List.of("/chunk-zz", "/chunk-negative", "/chunk-huge", "/chunk-after-some")) {
      assertThat(record(path))
          .endsWith("\"error\":\"the server sent a malformed chunked body: a chunk's size is not a hexadecimal "
              + "number of bytes\"}");
    }
  }

  @Test
  void aRefusalWithAJunkRetryAfterIsRetriedAndItsStatusReportedAsTheServersAnswer() {
    int status = run("fetch", "--quiet", "--timeout", "2", "--retries", "1", url("/junk-retry-after"));

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
    int status = run("fetch", "--quiet", "--timeout", "1", url("/ok"), url("/reset"));

    assertThat(status).isEqualTo(1);
    assertThat(record("/ok")).contains("\"status\":200,").endsWith("\"bytes\":2}");
    assertThat(record("/reset")).doesNotContain("\"status\"").endsWith("\"error\":\"connection reset by the server\"}");
  }

  // ------------------------------------------------------------------- sparql

  int sparql(String path, String... options) {
    List<String> args = new ArrayList<>(List.of("sparql", "--endpoint", url(path), "--query", "SELECT * { ?s ?p ?o }"));
    args.addAll(Arrays.asList(options));
    return run(args.toArray(new String[0]));
  }

  @Test
  void T7_sparqlEndsAStalledResultAtTheTimeoutWithOneLine() throws InterruptedException {
    int status = sparql("/stall", "--timeout", "0.5");

    assertThat(status).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: timeout: the body was not complete within "
        + "--timeout 0.5 s: 0 of 1048576 bytes had come");
    assertAbandoned("/stall");
    // Jena's default client, paced for the query, is Jena's own again.
    assertThat(org.apache.jena.http.HttpEnv.getDftHttpClient()).isNotInstanceOf(io.hostpace.jdk.ForwardingHttpClient.class);
  }

  @Test
  void T7_sparqlEndsAResultPastMaxBodyWithOneLine() throws InterruptedException {
    int status = sparql("/endless", "--timeout", "2", "--max-body", "4KiB");

    assertThat(status).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: body too large: more than --max-body 4 KiB "
        + "(4096 bytes) came; the rest was not read");
    assertAbandoned("/endless");
  }

  /**
   * Results that begin, then stall: the parser is mid-document when the deadline cuts the body,
   * and the line says the timeout ended it, not that the results cannot be read.
   */
  @Test
  void T7_sparqlSaysTheTimeoutEndedAResultThatStalledPartWayInJsonOrXml() throws InterruptedException {
    String json = "{\"head\":{\"vars\":[\"s\"]},\"results\":{\"bindings\":[";
    String xml = "<?xml version=\"1.0\"?><sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">"
        + "<head><variable name=\"s\"/></head><results>";
    server.script("/stall-json", stallAfter("application/sparql-results+json", json));
    server.script("/stall-xml", stallAfter("application/sparql-results+xml", xml));

    assertThat(sparql("/stall-json", "--timeout", "0.5")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: timeout: the body was not complete within "
        + "--timeout 0.5 s: " + json.length() + " of 1048576 bytes had come");
    assertAbandoned("/stall-json");

    assertThat(sparql("/stall-xml", "--timeout", "0.5")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: timeout: the body was not complete within "
        + "--timeout 0.5 s: " + xml.length() + " of 1048576 bytes had come");
    assertAbandoned("/stall-xml");
  }

  /** A 200 whose body declares 1 MiB and is {@code start}, then nothing. */
  static String stallAfter(String contentType, String start) {
    return "HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nContent-Length: 1048576\r\n\r\n" + start;
  }

  @Test
  void sparqlSaysItsOwnTimeoutIsOneNotThatTheEndpointAnsweredMinusOne() {
    int status = sparql("/hang", "--timeout", "0.5");

    assertThat(status).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: timeout: no response headers within --timeout 0.5 s");
  }

  @Test
  void sparqlNamesAResetConnectionAndAnAnswerThatIsNotHttp() {
    assertThat(sparql("/reset", "--timeout", "1")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: connection reset by the server");

    assertThat(sparql("/bad-status", "--timeout", "1")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: not a valid HTTP answer: "
        + "Invalid status line: \"HTTP/1.1 two hundred\"");
  }

  @Test
  void T7_sparqlEndsATrickleAtTheTimeoutAndAResultDeclaredTooLongAtOnce() throws InterruptedException {
    assertThat(sparql("/trickle", "--timeout", "1.5")).isEqualTo(1);
    assertThat(err.strip()).matches("hostpace: the query failed: timeout: the body was not complete within "
        + "--timeout 1.5 s: \\d+ of 1048576 bytes had come");
    assertAbandoned("/trickle");

    assertThat(sparql("/huge", "--timeout", "2", "--max-body", "2MiB")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: body too large: the server declared 1073741824 "
        + "bytes, over --max-body 2 MiB (2097152 bytes); none was read");
    assertAbandoned("/huge");
  }

  @Test
  void sparqlNamesTheServersStatusAndHeadersTooLargeForTheClient() {
    assertThat(sparql("/junk-retry-after", "--timeout", "2", "--retries", "1")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the endpoint answered 429: slow");
    assertThat(server.paths()).containsExactly("/junk-retry-after", "/junk-retry-after");

    assertThat(sparql("/huge-headers", "--timeout", "2")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: the server's headers are too large for the JDK "
        + "client: past its limit of 393216 (jdk.http.maxHeaderSize), which counts each header as the bytes of its "
        + "name and value plus 32");
  }

  @Test
  void sparqlNamesAConnectionClosedBeforeTheResultsCameWholeThoughTheParserStoppedAtTheirEnd() {
    assertThat(sparql("/short", "--timeout", "2")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the query failed: the server closed the connection before the answer was complete");
  }

  @Test
  void sparqlSaysAnAnswerItCannotReadIsNotResultsAndWhereWithoutTheParsersOwnWords() throws IOException {
    assertThat(sparql("/ok", "--timeout", "2")).isEqualTo(1);
    assertThat(err.strip()).isEqualTo("hostpace: the endpoint's answer cannot be read as the query's results (line 1, column 1)");

    try (LocalServer local = new LocalServer()) {
      assertThat(run("sparql", "--endpoint", local.url("/junk-results"), "--query", "SELECT * { ?s ?p ?o }"))
          .isEqualTo(1);
      assertThat(err.strip()).isEqualTo("hostpace: the endpoint's answer cannot be read as the query's results (line 1, column 26)");

      // Whole, as its Content-Length says, but the JSON ends early: the parser's end of input, not the server's.
      assertThat(run("sparql", "--endpoint", local.url("/truncated-results"), "--query", "SELECT * { ?s ?p ?o }"))
          .isEqualTo(1);
      assertThat(err.strip()).isEqualTo("hostpace: the endpoint's answer cannot be read as the query's results (line 1, column 36)");

      assertThat(run("sparql", "--endpoint", local.url("/junk-turtle"), "--query",
          "CONSTRUCT WHERE { ?s ?p ?o }")).isEqualTo(1);
      assertThat(err.strip()).isEqualTo("hostpace: the endpoint's answer cannot be read as the query's results (line 1, column 47)");
      assertThat(err.lines()).hasSize(1);
    }
  }
}

package io.hostpace.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.testkit.ClosedPorts;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.Opened;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.SteadyBody;
import io.hostpace.testkit.TestServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The proxy against upstreams on 127.0.0.1, driven with the JDK's client. */
class HostpaceProxyTest {

  /** What a test opened, closed after it last opened first: a proxy before its engine and upstream. */
  @RegisterExtension final Opened opened = Opened.lastFirst();
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  /** The raw query of each request the upstream got, in order. */
  private final List<String> queries = new CopyOnWriteArrayList<>();

  private <T extends AutoCloseable> T closed(T closeable) {
    return opened.add(closeable);
  }

  private Hostpace engine(Limits limits) {
    return closed(Hostpace.builder().limitsForEveryHost(limits).userAgent("hostpace-proxy-test/1.0").build());
  }

  private HostpaceProxy proxy(Hostpace engine, String... routes) {
    HostpaceProxy.Builder builder = HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    for (String route : routes) {
      builder.route(route);
    }
    return closed(builder.start());
  }

  private HttpResponse<String> get(HostpaceProxy proxy, String pathAndQuery, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(proxy.uri() + pathAndQuery));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void X1_aRoutesRequestGoesUpstreamWithTheRestOfItsPathAndItsQueryAndItsAnswerComesBackUnchanged() throws Exception {
    TestServer upstream = closed(TestServer.start((request, exchange) -> {
      queries.add(String.valueOf(exchange.getRequestURI().getRawQuery()));
      TestServer.reply(exchange, 203, "answer of " + request.path(), "X-Upstream", "yes", "Content-Type", "text/plain");
    }));
    HostpaceProxy proxy = proxy(engine(Limits.inFlight(4)), "/api=" + upstream.uri("/base"), "/api/deeper=" + upstream.uri("/other"));

    HttpResponse<String> answer = get(proxy, "/api/sparql?query=ASK%7B%7D&x=1");
    assertThat(answer.statusCode()).isEqualTo(203);
    assertThat(answer.body()).isEqualTo("answer of /base/sparql");
    assertThat(answer.headers().firstValue("X-Upstream")).contains("yes");
    assertThat(answer.headers().firstValue("Content-Type")).contains("text/plain");
    assertThat(queries).containsExactly("query=ASK%7B%7D&x=1");

    assertThat(get(proxy, "/api").body()).isEqualTo("answer of /base");
    assertThat(get(proxy, "/api/deeper/x").body()).as("the longer prefix wins").isEqualTo("answer of /other/x");
    assertThat(upstream.requests()).hasSize(3);
  }

  @Test
  void X1_aQuerysCharactersThatClientsSendRawGoUpstreamPercentEncodedAndItsEscapesAsSent() throws Exception {
    TestServer upstream = closed(TestServer.start((request, exchange) -> {
      queries.add(String.valueOf(exchange.getRequestURI().getRawQuery()));
      TestServer.reply(exchange, 200, "ok");
    }));
    HostpaceProxy proxy = proxy(engine(Limits.inFlight(4)), "/u=" + upstream.uri("/base"));

    // As curl and browsers send it: braces and quotes raw; a % that starts no escape; é as its UTF-8 bytes.
    String query = "query=ASK{}&q=\"a%20b\"|^`<>\\&kept=%7B%7d&pct=100%&e=\u00c3\u00a9";
    assertThat(rawGet(proxy, "/u/sparql?" + query)).startsWith("HTTP/1.1 200");
    assertThat(rawGet(proxy, "/u/sparql?query=SELECT%20*%20{?s%20?p%20?o}")).startsWith("HTTP/1.1 200");
    assertThat(queries).containsExactly(
        "query=ASK%7B%7D&q=%22a%20b%22%7C%5E%60%3C%3E%5C&kept=%7B%7d&pct=100%25&e=%C3%A9",
        "query=SELECT%20*%20%7B?s%20?p%20?o%7D");
    assertThat(upstream.requests()).extracting(TestServer.Request::path).containsOnly("/base/sparql");
  }

  @Test
  void X1_aRefusalIsRetriedThroughTheEngineAndOneWhoseRetriesRanOutIsReturnedAsTheUpstreamSentIt() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    TestServer once = closed(TestServer.start((request, exchange) -> {
      if (calls.incrementAndGet() == 1) {
        TestServer.reply(exchange, 429, "slow down", "Retry-After", "0");
      } else {
        TestServer.reply(exchange, 200, "ok " + request.bodyText());
      }
    }));
    // A host that accepted nothing: its refusals spend the call's retries (SPEC R10 spares them on
    // a host that accepts others).
    TestServer never = closed(TestServer.start((request, exchange) ->
        TestServer.reply(exchange, 429, "slow down " + request.bodyText(), "Retry-After", "0")));
    HostpaceProxy proxy = proxy(closed(Hostpace.builder().limitsForEveryHost(Limits.inFlight(1)).retries(2).build()),
        "/once=" + once.uri(""), "/never=" + never.uri(""));

    HttpResponse<String> posted = client.send(HttpRequest.newBuilder(URI.create(proxy.uri() + "/once/x"))
        .POST(HttpRequest.BodyPublishers.ofString("the body")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(posted.statusCode()).isEqualTo(200);
    assertThat(posted.body()).as("the body sent again whole").isEqualTo("ok the body");
    assertThat(once.requests()).extracting(TestServer.Request::bodyText).containsExactly("the body", "the body");

    HttpResponse<String> refused = get(proxy, "/never/x");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).isEqualTo("slow down ");
    assertThat(refused.headers().firstValue("Retry-After")).contains("0");
    assertThat(never.requests()).as("the first attempt and two retries").hasSize(3);
  }

  @Test
  void X1_aRefusedRequestsBodyOfManyArraysIsSentAgainWholeWithItsLengthDeclaredOrNot() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    TestServer everyOther = closed(TestServer.start((request, exchange) -> {
      if (calls.incrementAndGet() % 2 == 1) {
        TestServer.reply(exchange, 429, "slow down", "Retry-After", "0");
      } else {
        TestServer.reply(exchange, 200, "ok");
      }
    }));
    HostpaceProxy proxy = proxy(closed(Hostpace.builder().limitsForEveryHost(Limits.inFlight(1)).retries(2).build()),
        "/up=" + everyOther.uri(""));
    byte[] body = new byte[3 * ProxyHandler.CHUNK_BYTES + 123];
    new Random(7).nextBytes(body);

    for (HttpRequest.BodyPublisher sent : List.of(HttpRequest.BodyPublishers.ofByteArray(body),
        HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))) {
      HttpResponse<String> posted = client.send(HttpRequest.newBuilder(URI.create(proxy.uri() + "/up/x")).POST(sent).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(posted.statusCode()).isEqualTo(200);
    }
    assertThat(everyOther.requests()).as("each body refused once and sent again").hasSize(4).allSatisfy(request -> {
      assertThat(request.body()).isEqualTo(body);
      assertThat(request.header("Content-Length")).isEqualTo(Integer.toString(body.length));
      assertThat(request.header("Transfer-Encoding")).isNull();
    });
  }

  @Test
  void X2_hopByHopHeadersStopAtTheProxyAndTheClientsUserAgentIsKeptOrTheEnginesGiven() throws Exception {
    TestServer upstream = closed(TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "ok",
        "X-End-To-End", "kept", "Keep-Alive", "timeout=5", "Proxy-Authenticate", "Basic")));
    HostpaceProxy proxy = proxy(engine(Limits.inFlight(4)), "/u=" + upstream.uri(""));

    HttpResponse<String> answer = get(proxy, "/u/a", "User-Agent", "curl/8.5.0", "X-Mine", "1",
        "Proxy-Authorization", "Basic c2VjcmV0", "TE", "trailers");
    assertThat(answer.headers().firstValue("X-End-To-End")).contains("kept");
    assertThat(answer.headers().firstValue("Proxy-Authenticate")).isEmpty();
    TestServer.Request sent = upstream.requests().get(0);
    assertThat(sent.header("X-Mine")).isEqualTo("1");
    assertThat(sent.header("User-Agent")).isEqualTo("curl/8.5.0");
    assertThat(sent.header("Proxy-Authorization")).isNull();
    assertThat(sent.header("TE")).isNull();
    assertThat(sent.header("Upgrade")).as("no upgrade to HTTP/2 the client did not ask for").isNull();
    assertThat(sent.header("HTTP2-Settings")).isNull();
    assertThat(sent.header("Connection")).isNull();

    // The JDK's client names itself unless told otherwise; a raw request names nobody.
    assertThat(rawGet(proxy, "/u/b")).startsWith("HTTP/1.1 200");
    assertThat(upstream.requests("/b")).singleElement()
        .satisfies(request -> assertThat(request.header("User-Agent")).isEqualTo("hostpace-proxy-test/1.0"));
  }

  @Test
  void X3_aPathNoRouteNamesIsAnswered404AndNeverForwardedAndTheHostsAndMetricsAreTheProxysOwn() throws Exception {
    TestServer upstream = closed(TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "ok")));
    Hostpace engine = engine(Limits.inFlight(4));
    HostpaceProxy proxy = proxy(engine, "/u=" + upstream.uri(""));

    HttpResponse<String> nowhere = get(proxy, "/elsewhere/x");
    assertThat(nowhere.statusCode()).isEqualTo(404);
    assertThat(nowhere.body()).contains("/elsewhere/x", "[/u]");
    assertThat(get(proxy, "/ux").statusCode()).as("a prefix is a whole path segment").isEqualTo(404);
    HttpResponse<String> absolute = client.send(HttpRequest.newBuilder(URI.create(proxy.uri() + "/http://example.org/"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(absolute.statusCode()).as("a path no route names, or none at all").isIn(400, 404);
    assertThat(upstream.requests()).isEmpty();

    assertThat(get(proxy, "/hostpace/metrics").statusCode()).as("a proxy given no metrics").isEqualTo(404);
    HostpaceProxy withMetrics = closed(HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .route("/u", upstream.uri("")).metrics(() -> "hostpace_attempts_started_total 1\n").start());
    HttpResponse<String> metrics = get(withMetrics, "/hostpace/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).isEqualTo("hostpace_attempts_started_total 1\n");
    assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
    assertThat(upstream.requests()).isEmpty();

    get(proxy, "/u/a");
    HttpResponse<String> hosts = get(proxy, "/hostpace/hosts");
    assertThat(hosts.statusCode()).isEqualTo(200);
    assertThat(hosts.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
    assertThat(hosts.body()).contains("\"key\": \"" + upstream.hostKey() + "\"", "\"starts\": 1");
    assertThat(upstream.requests()).hasSize(1);
  }

  @Test
  void X3_aPathWithADotSegmentIsAnswered400NamingItAndNeverLeavesTheRoutesBase() throws Exception {
    TestServer upstream = closed(TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "at " + request.path())));
    HostpaceProxy proxy = proxy(engine(Limits.inFlight(4)), "/u=" + upstream.uri("/base"));

    for (String path : List.of("/u/../x", "/u/..", "/u/a/../../x", "/u/./x", "/u/x/.")) {
      String answer = rawGet(proxy, path);
      assertThat(answer).as(path).startsWith("HTTP/1.1 400").contains("text/plain").contains(path + " has the dot segment '");
    }
    for (String path : List.of("/u/%2e%2e/x", "/u/.%2E/x", "/u/%2e/x", "/u/..;/x")) { // Jetty refuses these itself
      assertThat(rawGet(proxy, path)).as(path).startsWith("HTTP/1.1 400");
    }
    assertThat(upstream.requests()).isEmpty();
    assertThat(rawGet(proxy, "/u/.well-known/..x")).as("dots in a name are no dot segment").startsWith("HTTP/1.1 200")
        .endsWith("at /base/.well-known/..x");
  }

  @Test
  void X2_aRelayedAnswerCarriesTheUpstreamsDateAndServerAloneAndTheProxysOwnAnswersADate() throws Exception {
    RawServer upstream = closed(RawServer.start().script("/dated", "HTTP/1.1 200 OK\r\n"
        + "Date: Tue, 01 Jan 2030 00:00:00 GMT\r\nServer: upstream/1\r\nContent-Length: 2\r\n\r\nok"));
    HostpaceProxy proxy = proxy(engine(Limits.inFlight(4)), "/u=" + upstream.uri("/dated"));

    HttpResponse<String> relayed = get(proxy, "/u");
    assertThat(relayed.body()).isEqualTo("ok");
    assertThat(relayed.headers().allValues("Date")).containsExactly("Tue, 01 Jan 2030 00:00:00 GMT");
    assertThat(relayed.headers().allValues("Server")).containsExactly("upstream/1");

    for (String own : List.of("/nowhere", "/hostpace/hosts")) {
      HttpResponse<String> answer = get(proxy, own);
      assertThat(answer.headers().allValues("Date")).as(own).hasSize(1);
      assertThat(answer.headers().allValues("Server")).as(own).isEmpty();
    }
    assertThat(get(proxy, "/nowhere").statusCode()).isEqualTo(404);
  }

  @Test
  void X1_anUpstreamThatCannotBeReachedIsAnswered502() throws Exception {
    int port = ClosedPorts.next();
    HostpaceProxy proxy = proxy(engine(Limits.inFlight(4)), "/gone=http://127.0.0.1:" + port);

    HttpResponse<String> answer = get(proxy, "/gone/x");
    assertThat(answer.statusCode()).isEqualTo(502);
    assertThat(answer.body()).isEqualTo("hostpace proxy: the upstream 127.0.0.1:" + port + " did not answer: connection refused\n");
  }

  @Test
  void X1_anUpstreamThatDoesNotAnswerInTimeIsAnswered504WithWhyInWords() throws Exception {
    RawServer upstream = closed(RawServer.start());
    HostpaceProxy proxy = closed(HostpaceProxy.builder(engine(Limits.inFlight(4)))
        .listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).route("/hang=" + upstream.uri("/hang"))
        .timeout(java.time.Duration.ofMillis(500)).start());

    HttpResponse<String> answer = get(proxy, "/hang");
    assertThat(answer.statusCode()).isEqualTo(504);
    assertThat(answer.body())
        .isEqualTo("hostpace proxy: the upstream " + upstream.hostKey() + " did not answer: timeout: no response headers within"
            + " its timeout of 0.5 s\n");
  }

  /**
   * The timeout bounds each wait for more of the body, not the whole answer: a body that brings a
   * line every 20 ms for at least 5 s outlasts a timeout of 3 s however fast the machine, and
   * reaches the client whole.
   */
  @Test
  void X1_anAnswerWhoseBodyKeepsComingLongerThanTheTimeoutReachesTheClientWhole() throws Exception {
    SteadyBody steady = new SteadyBody(250, java.time.Duration.ofMillis(20));
    TestServer upstream = closed(TestServer.start(steady));
    HostpaceProxy proxy = closed(HostpaceProxy.builder(engine(Limits.inFlight(4)))
        .listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).route("/results=" + upstream.uri("/results"))
        .timeout(java.time.Duration.ofSeconds(3)).start());

    HttpResponse<String> answer = get(proxy, "/results");
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo(steady.body());
  }

  /**
   * A body that stalls is cut when no byte came for the timeout: the client, which had its status
   * and headers, sees the body fail, short of its length or its chunks unended, never a whole one.
   */
  @Test
  void X1_anAnswerWhoseBodyStallsIsCutAfterItsStatusAndHeaders() throws Exception {
    RawServer upstream = closed(RawServer.start());
    upstream.script("/length", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc");
    upstream.script("/chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
    HostpaceProxy proxy = closed(HostpaceProxy.builder(engine(Limits.inFlight(4)))
        .listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).route("/up=" + upstream.uri(""))
        .timeout(java.time.Duration.ofSeconds(1)).start());

    for (String path : List.of("/length", "/chunks")) {
      HttpResponse<java.io.InputStream> answer = client.send(
          HttpRequest.newBuilder(URI.create(proxy.uri() + "/up" + path)).build(), HttpResponse.BodyHandlers.ofInputStream());
      assertThat(answer.statusCode()).as(path).isEqualTo(200);
      try (java.io.InputStream body = answer.body()) {
        assertThatThrownBy(body::readAllBytes).as(path + ": the body fails").isInstanceOf(IOException.class);
      }
    }
  }

  @Test
  void X1_anAttemptPastTheEnginesTimeoutBudgetIsAnswered504() throws Exception {
    RawServer upstream = closed(RawServer.start());
    Hostpace engine = closed(Hostpace.builder().limitsForEveryHost(Limits.inFlight(4))
        .timeoutPolicy(io.hostpace.timeout.TimeoutPolicy.fixed(java.time.Duration.ofMillis(300))).build());
    HostpaceProxy proxy = proxy(engine, "/hang=" + upstream.uri("/hang"));

    HttpResponse<String> answer = get(proxy, "/hang");
    assertThat(answer.statusCode()).isEqualTo(504);
    assertThat(answer.body()).startsWith("hostpace proxy: the upstream " + upstream.hostKey() + " did not answer: ");
  }

  @Test
  void X2_anAnswersBodyIsStreamedThroughWholeAndUnchanged() throws Exception {
    long size = 48L * 1024 * 1024;
    TestServer upstream = closed(TestServer.start((request, exchange) -> {
      TestServer.sendHeaders(exchange, 200, size, "Content-Type", "application/octet-stream");
      byte[] chunk = new byte[64 * 1024];
      try (var out = exchange.getResponseBody()) {
        for (long sent = 0; sent < size; sent += chunk.length) {
          for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) ((sent + i) % 251);
          }
          out.write(chunk);
        }
      }
    }));
    HostpaceProxy proxy = proxy(engine(Limits.inFlight(4)), "/big=" + upstream.uri(""));

    HttpResponse<java.io.InputStream> answer = client.send(HttpRequest.newBuilder(URI.create(proxy.uri() + "/big/file"))
        .build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(answer.headers().firstValueAsLong("Content-Length")).hasValue(size);
    long read = 0;
    long wrong = 0;
    byte[] buffer = new byte[64 * 1024];
    try (var in = answer.body()) {
      for (int n; (n = in.read(buffer)) > 0; read += n) {
        for (int i = 0; i < n; i++) {
          if (buffer[i] != (byte) ((read + i) % 251)) {
            wrong++;
          }
        }
      }
    }
    assertThat(read).isEqualTo(size);
    assertThat(wrong).as("bytes that differ from what the upstream sent").isZero();
  }

  /** A GET written by hand, with no User-Agent: the status line and headers the proxy answered. */
  private static String rawGet(HostpaceProxy proxy, String path) throws IOException {
    return raw(proxy, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + proxy.port() + "\r\nConnection: close\r\n\r\n");
  }

  /**
   * Sends {@code request} as it is; the proxy's answer, read to the end its head declares (its
   * {@code Content-Length}, its last chunk) or to the connection's close, whichever comes first.
   */
  private static String raw(HostpaceProxy proxy, String request) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      socket.setSoTimeout((int) EngineState.PATIENCE.toMillis()); // an answer that never ends fails the test
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1)); // each char a byte
      java.io.ByteArrayOutputStream read = new java.io.ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      for (int n; !whole(read.toString(StandardCharsets.ISO_8859_1)) && (n = socket.getInputStream().read(buffer)) > 0; ) {
        read.write(buffer, 0, n);
      }
      return read.toString(StandardCharsets.ISO_8859_1);
    }
  }

  private static final Pattern CONTENT_LENGTH = Pattern.compile("\r\ncontent-length: *(\\d+)");

  /** Whether {@code answer} holds a whole answer: its head, and the body the head declares. */
  private static boolean whole(String answer) {
    int end = answer.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    String head = answer.substring(0, end).toLowerCase(Locale.ROOT);
    Matcher length = CONTENT_LENGTH.matcher(head);
    if (length.find()) {
      return answer.length() - end - 4 >= Long.parseLong(length.group(1));
    }
    return head.contains("\r\ntransfer-encoding: chunked") && answer.endsWith("\r\n0\r\n\r\n");
  }

  @Test
  void X5_asAForwardProxyItSendsTheHostsItWasGivenThroughTheEngineRefusesOthersAndOpensNoTunnel() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    TestServer upstream = closed(TestServer.start((request, exchange) -> {
      if (calls.incrementAndGet() == 1) {
        TestServer.reply(exchange, 429, "slow down", "Retry-After", "0");
      } else {
        TestServer.reply(exchange, 200, "forwarded " + request.path() + "?" + exchange.getRequestURI().getRawQuery());
      }
    }));
    TestServer other = closed(TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "never")));
    Hostpace engine = engine(Limits.inFlight(4));
    HostpaceProxy proxy = closed(HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .forward(upstream.hostKey()).start());
    HttpClient viaProxy = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .proxy(java.net.ProxySelector.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.port()))).build();

    HttpResponse<String> answer = viaProxy.send(HttpRequest.newBuilder(upstream.uri("/a/b?c=1")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("forwarded /a/b?c=1");
    assertThat(upstream.requests()).as("refused once, retried through the engine").hasSize(2);

    HttpResponse<String> refused = viaProxy.send(HttpRequest.newBuilder(other.uri("/x")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).contains(other.hostKey(), upstream.hostKey());
    assertThat(other.requests()).as("no open relay").isEmpty();

    assertThat(get(proxy, "/hostpace/hosts").statusCode()).as("its own paths, at its own address").isEqualTo(200);

    // A forwarded host named with https://: said so, not as a host the proxy was not given.
    String https = raw(proxy, "GET https://" + upstream.hostKey() + "/a HTTP/1.1\r\nHost: " + upstream.hostKey()
        + "\r\nConnection: close\r\n\r\n");
    assertThat(https).startsWith("HTTP/1.1 403").contains("only http:// URLs", "https:// ones cannot be forwarded", "--route",
        "send to http://127.0.0.1:" + proxy.port() + "/PREFIX/").doesNotContain("hosts it was given");

    String tunnel = raw(proxy, "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n");
    assertThat(tunnel).startsWith("HTTP/1.1 501").contains("no tunnels", "--route")
        .as("the proxy's address, not the tunnel's host").contains("send to http://127.0.0.1:" + proxy.port() + "/PREFIX/");
    assertThat(upstream.requests()).hasSize(2);
  }

  @Test
  void X5_aProxyThatForwardsNoHostTakesEveryRequestAsItsOwnWhateverHostItNamesAndOneThatForwardsByItsHostAndPort()
      throws Exception {
    TestServer upstream = closed(TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "at " + request.path())));
    Hostpace engine = engine(Limits.inFlight(4));
    HostpaceProxy routesOnly = proxy(engine, "/u=" + upstream.uri("/base"));

    // Behind docker -p 9000:8181, ssh -L, kubectl port-forward, or a reverse proxy that passes its Host on.
    for (String host : List.of("localhost:9000", "myproxy", "127.0.0.1:1")) {
      assertThat(raw(routesOnly, "GET /u/a HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"))
          .as(host).startsWith("HTTP/1.1 200").endsWith("at /base/a");
      assertThat(raw(routesOnly, "GET /hostpace/hosts HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"))
          .as(host).startsWith("HTTP/1.1 200");
    }

    // Given the upstream's host to forward: a request naming it is forwarded, one naming the proxy's port its own.
    HostpaceProxy both = closed(HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .route("/u", upstream.uri("/base")).forward(upstream.hostKey()).start());
    assertThat(raw(both, "GET /u/b HTTP/1.1\r\nHost: 127.0.0.1:" + both.port() + "\r\nConnection: close\r\n\r\n"))
        .startsWith("HTTP/1.1 200").endsWith("at /base/b");
    assertThat(raw(both, "GET " + upstream.uri("/u/c") + " HTTP/1.1\r\nHost: " + upstream.hostKey() + "\r\nConnection: close\r\n\r\n"))
        .startsWith("HTTP/1.1 200").endsWith("at /u/c");
    assertThat(raw(both, "GET /u/d HTTP/1.1\r\nHost: localhost:9000\r\nConnection: close\r\n\r\n"))
        .as("a host not forwarded, at another port").startsWith("HTTP/1.1 403");
    assertThat(upstream.requests()).extracting(TestServer.Request::path).containsExactly("/base/a", "/base/a", "/base/a", "/base/b", "/u/c");
  }

  @Test
  void X4_theProxyListensOnLoopbackUnlessRemoteClientsAreAllowedAndBadRoutesAreRefusedByName() {
    Hostpace engine = engine(Limits.inFlight(1));
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/a=http://127.0.0.1:1")
        .listen(new InetSocketAddress("0.0.0.0", 0)).start())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("0.0.0.0").hasMessageContaining("allowRemoteClients");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).start())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("route").hasMessageContaining("forward");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("wikidata=https://query.wikidata.org"))
        .hasMessageContaining("'wikidata'");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/w https://query.wikidata.org"))
        .hasMessageContaining("no '='");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/w=ftp://example.org"))
        .hasMessageContaining("ftp://example.org");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/w=https://example.org/?q=1"))
        .hasMessageContaining("without query");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/hostpace=https://example.org"))
        .hasMessageContaining("the proxy's own");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/w=https://a.org").route("/w/=https://b.org"))
        .hasMessageContaining("routed twice");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/p=http://127.0.0.1:99999"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/p").hasMessageContaining("port 99999");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/p", URI.create("http://127.0.0.1:0/x")))
        .hasMessageContaining("/p").hasMessageContaining("port 0");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/p=http://my_host:8080/api"))
        .hasMessageContaining("/p").hasMessageContaining("my_host:8080").hasMessageContaining("java.net.URI can")
        .hasMessageNotContaining("names a host");
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).route("/p=http:/api"))
        .hasMessageContaining("names a host");
    assertThat(HostpaceProxy.builder(engine).route("/p=http://127.0.0.1:65535").route("/q=https://h.example/").route("/r=http://h.example:/x"))
        .as("the highest port, none, and an empty one").isNotNull();
    assertThatThrownBy(() -> HostpaceProxy.builder(engine).forward("Example.org"))
        .hasMessageContaining("cannot forward 'Example.org'").hasMessageContaining("example.org");
  }
}

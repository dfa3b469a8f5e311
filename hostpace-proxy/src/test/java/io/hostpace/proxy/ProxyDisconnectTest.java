package io.hostpace.proxy;

import static io.hostpace.testkit.EngineState.inFlight;
import static io.hostpace.testkit.EngineState.until;
import static io.hostpace.testkit.EngineState.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.Opened;
import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client that closes its connection to the proxy before its answer came cancels its request
 * (SPEC T5): out of its queue while it waits, its place freed and its exchange ended while it is
 * upstream. The clients that go are bare sockets that close, so that the proxy sees a real close;
 * the tests wait for what the engine and the upstream show, never for a time.
 */
class ProxyDisconnectTest {

  /** What a test opened, closed after it last opened first: a proxy before its engine and upstream. */
  @RegisterExtension final Opened opened = Opened.lastFirst();
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private <T extends AutoCloseable> T closed(T closeable) {
    return opened.add(closeable);
  }

  /** A proxy on {@code engine} that routes {@code /u} to {@code upstream}. */
  private HostpaceProxy proxy(Hostpace engine, URI upstream) {
    return closed(HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .route("/u", upstream).start());
  }

  /** An upstream that answers {@code /held} once {@code release} is counted down, any other path at once. */
  private TestServer holdingHeld(CountDownLatch release) throws IOException {
    return closed(TestServer.start((request, exchange) -> {
      if (request.path().equals("/held")) {
        release.await();
      }
      TestServer.reply(exchange, 200, "answer of " + request.path());
    }));
  }

  /** A client on a bare socket that has sent a GET of {@code path} and reads nothing: closing it closes the connection. */
  private Socket sentGet(HostpaceProxy proxy, String path) throws IOException {
    Socket socket = closed(new Socket(InetAddress.getLoopbackAddress(), proxy.port()));
    sendGet(socket, proxy, path);
    return socket;
  }

  /** Sends a GET of {@code path} on {@code socket}, a connection to {@code proxy}. */
  private static void sendGet(Socket socket, HostpaceProxy proxy, String path) throws IOException {
    socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + proxy.port() + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  private CompletableFuture<HttpResponse<String>> getAsync(HostpaceProxy proxy, String path) {
    return client.sendAsync(HttpRequest.newBuilder(URI.create(proxy.uri() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void T5_aClientThatDisconnectsWhileItsRequestWaitsTakesItOutOfItsQueueAndItIsNeverSent() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    TestServer upstream = holdingHeld(release);
    Hostpace engine = closed(Hostpace.builder().limitsForEveryHost(Limits.inFlight(1)).build());
    HostpaceProxy proxy = proxy(engine, upstream.uri(""));

    // The first request holds the host's one place; the second waits behind it.
    CompletableFuture<HttpResponse<String>> first = getAsync(proxy, "/u/held");
    until(() -> upstream.requests("/held").size() == 1);
    Socket second = sentGet(proxy, "/u/second");
    until(() -> waiting(engine) == 1);

    second.close();
    // While the first is still held upstream, the second leaves its queue.
    until(() -> waiting(engine) == 0);
    assertThat(inFlight(engine)).as("the first still holds its place").isEqualTo(1);

    release.countDown();
    assertThat(first.get().body()).isEqualTo("answer of /held");
    // A third request queued after the second goes once the first is done: had the second still
    // been queued, it would have gone before.
    assertThat(getAsync(proxy, "/u/third").get().body()).isEqualTo("answer of /third");
    assertThat(upstream.requests()).extracting(TestServer.Request::path).containsExactly("/held", "/third");
  }

  @Test
  void X1_requestsWaitingTheirTurnHoldNoThreadSoTheProxyStillAnswersAndSeesAClientGoWhileMoreWaitThanItHasThreads()
      throws Exception {
    int threads = 16;
    CountDownLatch release = new CountDownLatch(1);
    TestServer upstream = holdingHeld(release);
    Hostpace engine = closed(Hostpace.builder().limitsForEveryHost(Limits.inFlight(1)).build());
    HostpaceProxy proxy = closed(HostpaceProxy.builder(engine).listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .route("/u", upstream.uri("")).maxThreads(threads).start());

    CompletableFuture<HttpResponse<String>> first = getAsync(proxy, "/u/held");
    until(() -> upstream.requests("/held").size() == 1);
    List<Socket> clients = new ArrayList<>();
    for (int i = 0; i < 2 * threads; i++) {
      clients.add(sentGet(proxy, "/u/w" + i));
    }
    // Twice as many requests wait as the server has threads, and it still takes another.
    until(() -> waiting(engine) == 2 * threads);
    assertThat(getAsync(proxy, "/hostpace/hosts").get().statusCode()).isEqualTo(200);
    // And it sees a waiting client go: its request leaves the queue, and is never sent.
    clients.get(0).close();
    until(() -> waiting(engine) == 2 * threads - 1);

    release.countDown();
    assertThat(first.get().body()).isEqualTo("answer of /held");
    until(() -> upstream.requests().size() == 2 * threads);
    assertThat(upstream.requests()).extracting(TestServer.Request::path).doesNotContain("/w0");
  }

  @Test
  void T5_aClientThatDisconnectsWhileItsRequestIsUpstreamEndsTheExchangeAndFreesItsPlace() throws Exception {
    RawServer upstream = closed(RawServer.start());
    Hostpace engine = closed(Hostpace.builder().limitsForEveryHost(Limits.inFlight(1)).build());
    HostpaceProxy proxy = proxy(engine, upstream.uri(""));

    Socket hanging = sentGet(proxy, "/u/hang"); // the upstream reads it and never answers
    until(() -> upstream.paths().contains("/hang"));
    assertThat(inFlight(engine)).isEqualTo(1);

    hanging.close();
    until(() -> upstream.abandoned().contains("/hang")); // the proxy's connection upstream was closed
    until(() -> inFlight(engine) == 0);
    // The place is free: the next request goes while the upstream would still hold the first.
    assertThat(getAsync(proxy, "/u/next").get().statusCode()).isEqualTo(200);
    assertThat(upstream.paths()).containsExactly("/hang", "/next");
  }

  @Test
  void T5_aRequestSentOnTheConnectionWhileTheAnswerWaitsIsNotTakenForAGoneClientAndTheConnectionClosesAfterTheAnswer()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    TestServer upstream = holdingHeld(release);
    Hostpace engine = closed(Hostpace.builder().limitsForEveryHost(Limits.inFlight(1)).build());
    HostpaceProxy proxy = proxy(engine, upstream.uri(""));

    Socket pipelining = sentGet(proxy, "/u/held");
    until(() -> upstream.requests("/held").size() == 1);
    // The next request, sent before the first's answer: the proxy reads its first byte while it
    // watches the connection, and cannot give it back to the server.
    sendGet(pipelining, proxy, "/u/second");
    release.countDown();

    pipelining.setSoTimeout((int) EngineState.PATIENCE.toMillis());
    String answered = new String(pipelining.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    assertThat(answered).startsWith("HTTP/1.1 200").containsIgnoringCase("Connection: close").endsWith("answer of /held");
    assertThat(upstream.requests()).extracting(TestServer.Request::path).containsExactly("/held");
  }
}

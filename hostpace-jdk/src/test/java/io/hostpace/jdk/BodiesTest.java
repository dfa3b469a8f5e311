package io.hostpace.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.testkit.Refusing;
import io.hostpace.testkit.TestServer;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC T3 and T4: what is sent again, and what the caller gets when retries run out. */
class BodiesTest {

  static final String QUERY = "SELECT * WHERE { ?s ?p ?o } LIMIT 10";

  final Hostpace engine = Hostpace.create();
  final PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
  TestServer server;

  @AfterEach
  void stop() {
    Waiting.stop(server, client);
  }

  HttpRequest post(String path, BodyPublisher body) {
    return HttpRequest.newBuilder(server.uri(path)).POST(body).build();
  }

  static boolean canResend(BodyPublisher body) {
    return Bodies.canResend(Optional.of(body));
  }

  @Test
  void T4_theJdksPublishersThatProduceTheirBodyAnewAreReplayableAndStreamsAreNot(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("query.rq"), QUERY);
    URI uri = URI.create("http://a.test/");

    assertThat(Bodies.canResend(HttpRequest.newBuilder(uri).build())).as("no body").isTrue();
    assertThat(Bodies.canResend(HttpRequest.newBuilder(uri).DELETE().build())).as("DELETE").isTrue();
    assertThat(canResend(BodyPublishers.noBody())).as("noBody").isTrue();
    assertThat(canResend(BodyPublishers.ofString(QUERY))).as("ofString").isTrue();
    assertThat(canResend(BodyPublishers.ofString(QUERY, StandardCharsets.ISO_8859_1))).as("ofString(charset)").isTrue();
    assertThat(canResend(BodyPublishers.ofByteArray(new byte[] {1, 2, 3}))).as("ofByteArray").isTrue();
    assertThat(canResend(BodyPublishers.ofByteArray(new byte[] {1, 2, 3}, 1, 1))).as("ofByteArray(range)").isTrue();
    assertThat(canResend(BodyPublishers.ofByteArrays(List.of(new byte[] {1})))).as("ofByteArrays").isTrue();
    assertThat(canResend(BodyPublishers.ofFile(file))).as("ofFile").isTrue();

    assertThat(canResend(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[1])))).as("ofInputStream").isFalse();
    assertThat(canResend(BodyPublishers.fromPublisher(BodyPublishers.ofString(QUERY)))).as("fromPublisher").isFalse();
    assertThat(canResend(BodyPublishers.fromPublisher(BodyPublishers.ofString(QUERY), QUERY.length()))).as("fromPublisher(length)").isFalse();
    assertThat(canResend(BodyPublishers.concat(BodyPublishers.ofString("a"), BodyPublishers.ofString("b")))).as("concat").isFalse();
    assertThat(canResend(new Unknown())).as("a publisher of the caller's own").isFalse();

    assertThat(canResend(PacedHttpClient.replayable(new Unknown()))).as("marked replayable").isTrue();
    assertThat(canResend(PacedHttpClient.oneShot(BodyPublishers.ofString(QUERY)))).as("marked one-shot").isFalse();
    assertThat(canResend(PacedHttpClient.replayable(PacedHttpClient.oneShot(new Unknown())))).as("marked again").isTrue();
    assertThat(PacedHttpClient.replayable(BodyPublishers.ofString(QUERY)).contentLength()).isEqualTo(QUERY.length());
  }

  @Test
  void T4_aOneShotBodyIsSentOnceAndTheCallerGetsTheRefusalWithItsBody() throws Exception {
    server = TestServer.start(Refusing.first(1, 429, "0"));

    HttpResponse<String> response = client.send(
        post("/upload", BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(QUERY.getBytes(StandardCharsets.UTF_8)))),
        BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(429);
    assertThat(response.body()).isEqualTo("refused 1");
    assertThat(server.requests()).extracting(TestServer.Request::bodyText).containsExactly(QUERY);
  }

  @Test
  void T4_aReplayableBodyIsSentWholeOnEveryAttempt() throws Exception {
    server = TestServer.start(Refusing.first(1, 429, "0"));

    HttpResponse<String> response = client.send(post("/sparql", BodyPublishers.ofString(QUERY)), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("answer 2");
    assertThat(server.requests()).extracting(TestServer.Request::method).containsExactly("POST", "POST");
    assertThat(server.requests()).extracting(TestServer.Request::bodyText).containsExactly(QUERY, QUERY);
  }

  @Test
  void T4_aStreamTheCallerMarksReplayableIsSentAgain() throws Exception {
    server = TestServer.start(Refusing.first(1, 429, "0"));
    BodyPublisher stream = BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(QUERY.getBytes(StandardCharsets.UTF_8)));

    HttpResponse<String> response = client.send(post("/sparql", PacedHttpClient.replayable(stream)), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(server.requests()).extracting(TestServer.Request::bodyText).containsExactly(QUERY, QUERY);
  }

  @Test
  void T3_whenRetriesRunOutTheCallerGetsTheLast503WithItsBody() throws Exception {
    server = TestServer.start(Refusing.always(503, "0"));
    PacedHttpClient twoRetries = client.withContext(CallContext.builder().retries(2).build());

    HttpResponse<String> response = twoRetries.send(Waiting.get(server.uri("/")), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).isEqualTo("refused 3");
    assertThat(response.headers().firstValue("Retry-After")).hasValue("0");
    assertThat(server.requests()).hasSize(3);
  }

  /** A publisher the adapter knows nothing of. */
  static final class Unknown implements BodyPublisher {
    private final BodyPublisher body = BodyPublishers.ofString(QUERY);

    @Override
    public long contentLength() {
      return body.contentLength();
    }

    @Override
    public void subscribe(java.util.concurrent.Flow.Subscriber<? super java.nio.ByteBuffer> subscriber) {
      body.subscribe(subscriber);
    }
  }
}

package io.hostpace.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import io.hostpace.testkit.TestServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The proxy in a JVM of its own held to 64 MB of heap ({@link ProxyProcess}, {@code -Xmx64m}),
 * SPEC X2: an answer of 200 MB, more than that heap could hold, goes through whole and unchanged,
 * so it was never held whole; a request's body is taken whole up to the proxy's default cap of
 * 16 MiB and answered 413 beyond it, never sent. The proxy's JVM runs with
 * {@code -XX:+ExitOnOutOfMemoryError}, so that running out of heap on any of its threads ends it:
 * after each test it must still run, and at the end it must exit 0 when its standard input closes,
 * having printed no {@code OutOfMemoryError}.
 *
 * <p>Every body is the same pattern, byte {@code i} being {@code i % 251}, made as it is sent (the
 * upstream writes one block of 251 × 256 bytes over and over) and checked byte by byte as it is read;
 * but those sent {@linkplain #AT_ONCE at once}, each its own random bytes, checked by their digest.
 */
class ProxyHeapTest {

  static final long ANSWER_BYTES = 200L * 1024 * 1024;
  /** The proxy's default cap on a request's body. */
  static final int CAP = 16 * 1024 * 1024;
  /** The pattern, as many whole times as fit a block of about 64 KiB, so that every block is the same. */
  private static final byte[] BLOCK = pattern(251 * 256);
  /**
   * How many bodies of the cap are sent at once and held by the proxy together, each until the
   * upstream has all of them: 32 MiB, half the proxy's heap; held twice, they would fill it all.
   */
  static final int AT_ONCE = 2;
  /** Counts the bodies sent at once down as the upstream gets them; none is answered before all came. */
  private static volatile CountDownLatch held = new CountDownLatch(0);

  private static @Nullable TestServer upstream;
  private static @Nullable Process proxy;
  /** What the proxy's JVM printed, standard output and error, but for its URI. */
  private static final StringBuffer OUTPUT = new StringBuffer();
  private static URI base = URI.create("http://127.0.0.1:1");

  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void startUpstreamAndProxy() throws IOException {
    TestServer server = TestServer.start(ProxyHeapTest::answer);
    upstream = server;
    Process started = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
        "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"), ProxyProcess.class.getName(),
        server.uri("").toString()).redirectErrorStream(true).start();
    proxy = started;
    // What the JVM prints of its own (the OutOfMemoryError it ends on) goes to its standard output,
    // the proxy's URI too: one reader takes it all, and hands over the URI when it comes.
    CompletableFuture<@Nullable String> uri = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = lines.readLine()) != null; ) {
          if (!uri.isDone() && line.startsWith("http://")) {
            uri.complete(line);
          } else {
            OUTPUT.append(line).append('\n');
          }
        }
      } catch (IOException e) {
        OUTPUT.append(e).append('\n');
      } finally {
        uri.complete(null); // it ended without one
      }
    }, "proxy-output");
    reader.setDaemon(true);
    reader.start();
    String first = uri.join();
    assertThat(first).as("the proxy's URI; what else it printed: %s", OUTPUT).isNotNull();
    base = URI.create(first);
  }

  @AfterEach
  void theProxyStillRuns() {
    assertThat(proxy).isNotNull();
    assertThat(proxy.isAlive()).as("the proxy's JVM runs; what it printed: %s", OUTPUT).isTrue();
    assertThat(OUTPUT.toString()).doesNotContain("OutOfMemoryError");
  }

  @AfterAll
  static void stopProxyAndUpstream() throws Exception {
    try {
      if (proxy != null) {
        proxy.getOutputStream().close(); // its standard input ends: it stops its server and exits
        assertThat(proxy.waitFor(60, TimeUnit.SECONDS)).as("the proxy's JVM exited once its input closed").isTrue();
        assertThat(proxy.exitValue()).as("the proxy's exit status; what it printed: %s", OUTPUT).isZero();
        assertThat(OUTPUT.toString()).doesNotContain("OutOfMemoryError");
      }
    } finally {
      if (proxy != null) {
        proxy.destroyForcibly();
      }
      if (upstream != null) {
        upstream.close();
      }
    }
  }

  @Test
  void X2_anAnswerOf200MBGoesThroughAProxyOf64MBOfHeapWholeAndUnchanged() throws Exception {
    HttpResponse<InputStream> answer = client.send(HttpRequest.newBuilder(URI.create(base + "/up/stream")).build(),
        BodyHandlers.ofInputStream());
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.headers().firstValue("Content-Type")).contains("application/octet-stream");
    long read = 0;
    long wrong = 0;
    int expected = 0;
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = answer.body()) {
      for (int n; (n = in.read(buffer)) != -1; read += n) {
        for (int i = 0; i < n; i++) {
          if (buffer[i] != (byte) expected) {
            wrong++;
          }
          expected = expected == 250 ? 0 : expected + 1;
        }
      }
    }
    assertThat(read).as("bytes the client read, of an answer of unknown length (chunked)").isEqualTo(ANSWER_BYTES);
    assertThat(wrong).as("bytes that differ from what the upstream sent").isZero();
  }

  @Test
  void X2_aRequestsBodyIsTakenWholeUpToTheCapAndAnswered413BeyondItNeverSent() throws Exception {
    assertThat(post("/up/few", BodyPublishers.ofByteArray(pattern(4 * 1024 * 1024))))
        .as("4 MiB").isEqualTo("200 " + 4 * 1024 * 1024 + " bytes, 0 wrong");
    assertThat(post("/up/cap", BodyPublishers.ofByteArray(pattern(CAP))))
        .as("the cap, exactly").isEqualTo("200 " + CAP + " bytes, 0 wrong");

    assertThat(post("/up/over", BodyPublishers.ofByteArray(pattern(CAP + 1))))
        .as("a byte over the cap, its length declared").startsWith("413 ").contains(Integer.toString(CAP));
    assertThat(post("/up/chunked", BodyPublishers.ofInputStream(() -> new PatternStream(20L * 1024 * 1024))))
        .as("20 MiB of unknown length (chunked)").startsWith("413 ").contains(Integer.toString(CAP));
    assertThat(post("/up/chunked-few", BodyPublishers.ofInputStream(() -> new PatternStream(3L * 1024 * 1024))))
        .as("3 MiB of unknown length (chunked)").isEqualTo("200 " + 3 * 1024 * 1024 + " bytes, 0 wrong");

    assertThat(upstream).isNotNull();
    List<String> paths = List.of("/few", "/cap", "/over", "/chunked", "/chunked-few");
    assertThat(upstream.requests()).extracting(TestServer.Request::path).filteredOn(paths::contains)
        .as("what the upstream got: never a body over the cap").containsExactly("/few", "/cap", "/chunked-few");
  }

  /**
   * Each body is held once, not twice: {@link #AT_ONCE} bodies of the cap go through the proxy
   * together, and the upstream answers none before it has them all, so that the proxy holds all of
   * them at once, each ready to be sent again. Held once, that is 32 MiB of the 64; held twice
   * (gathered into one array, or copied whole to be sent), 64 MiB, and the proxy's JVM ends out of
   * heap. Each comes whole and unchanged, and the proxy still runs.
   */
  @Test
  void X2_bodiesOfTheCapSentAtOnceAreEachHeldOnceWhileTheyGoUpstreamWholeAndUnchanged() throws Exception {
    // The engine opens a host it knows nothing of with one request, then one alone at its answer,
    // then one more for each answer (SPEC P12): these answers let the bodies go upstream together.
    for (int i = 0; i < AT_ONCE; i++) {
      assertThat(post("/up/at-once/opening", BodyPublishers.ofByteArray(pattern(1024))))
          .isEqualTo("200 1024 bytes, 0 wrong");
    }
    CountDownLatch all = new CountDownLatch(AT_ONCE);
    held = all;
    List<String> expected = new ArrayList<>();
    List<CompletableFuture<String>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < AT_ONCE; i++) {
        byte[] body = new byte[CAP];
        new Random(i).nextBytes(body);
        expected.add("200 " + CAP + " bytes, SHA-256 " + sha256(body));
        answers.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/up/at-once/" + i))
                .POST(BodyPublishers.ofByteArray(body)).build(), BodyHandlers.ofString())
            .handle((answer, failure) -> {
              if (failure != null || answer.statusCode() != 200) {
                all.countDown(); // perhaps never to come upstream: the others are not held for it
              }
              return failure != null ? failure.toString() : answer.statusCode() + " " + answer.body();
            }));
      }
      List<String> answered = new ArrayList<>();
      for (CompletableFuture<String> answer : answers) {
        answered.add(answer.get(5, TimeUnit.MINUTES)); // a guard against a hang, for bodies that come in seconds
      }
      assertThat(answered).as("each body as the upstream got it").containsExactlyElementsOf(expected);
    } finally {
      while (all.getCount() > 0) {
        all.countDown(); // a body that never came holds none of the others
      }
    }
    assertThat(post("/up/at-once/after", BodyPublishers.ofByteArray(pattern(1024))))
        .as("the proxy answers after").isEqualTo("200 1024 bytes, 0 wrong");
  }

  /** Sends {@code body} to {@code path} through the proxy: the status and the answer's text. */
  private String post(String path, HttpRequest.BodyPublisher body) throws IOException, InterruptedException {
    HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(base + path)).POST(body).build(),
        BodyHandlers.ofString());
    return answer.statusCode() + " " + answer.body();
  }

  /**
   * The upstream: 200 MB made as it goes for {@code /stream}; for {@code /at-once/N}, how many bytes
   * came and their digest, once all that were sent at once came; for any other path, how many bytes
   * came and how many differ from the pattern.
   */
  private static void answer(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
    if (request.path().equals("/stream")) {
      TestServer.sendHeaders(exchange, 200, 0, "Content-Type", "application/octet-stream");
      try (OutputStream out = exchange.getResponseBody()) {
        for (long sent = 0; sent < ANSWER_BYTES; sent += BLOCK.length) {
          out.write(BLOCK, 0, (int) Math.min(BLOCK.length, ANSWER_BYTES - sent));
        }
      }
      return;
    }
    if (request.path().matches("/at-once/\\d+")) {
      CountDownLatch all = held;
      all.countDown();
      all.await();
      TestServer.reply(exchange, 200, request.body().length + " bytes, SHA-256 " + sha256(request.body()));
      return;
    }
    byte[] body = request.body();
    long wrong = 0;
    for (int i = 0; i < body.length; i++) {
      if (body[i] != (byte) (i % 251)) {
        wrong++;
      }
    }
    TestServer.reply(exchange, 200, body.length + " bytes, " + wrong + " wrong");
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }

  private static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i % 251);
    }
    return bytes;
  }

  /** {@code length} bytes of the pattern, made as they are read: a body whose length the client does not declare. */
  private static final class PatternStream extends InputStream {
    private final long length;
    private long at;

    PatternStream(long length) {
      this.length = length;
    }

    @Override
    public int read() {
      return at < length ? (int) (at++ % 251) : -1;
    }

    @Override
    public int read(byte[] into, int offset, int count) {
      if (at >= length) {
        return -1;
      }
      int n = (int) Math.min(count, length - at);
      for (int i = 0; i < n; i++) {
        into[offset + i] = (byte) (at++ % 251);
      }
      return n;
    }
  }
}

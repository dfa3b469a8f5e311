package io.hostpace.jdk;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A real HTTP server on 127.0.0.1, on a port of its own, that logs what it receives: each
 * request with its arrival time since the server started, and how many were in its handler at
 * once. Its {@link Handler} decides the answer. Close it after the test.
 */
final class TestServer implements AutoCloseable {

  /** Answers one request. */
  interface Handler {
    void handle(Request request, HttpExchange exchange) throws IOException, InterruptedException;
  }

  /** What the server received: when (since it started), the method, path, headers and the whole body. */
  record Request(Duration at, String method, String path, Headers headers, String body) {
    String header(String name) {
      return headers.getFirst(name);
    }

    @Override
    public String toString() {
      return String.format("%.3f %s %s", at.toNanos() / 1e9, method, path);
    }
  }

  private static final String LEAVE = "hostpace.test.leave";

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final long startedAt = System.nanoTime();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger inHandler = new AtomicInteger();
  private final AtomicInteger maxInHandler = new AtomicInteger();

  private TestServer(Handler handler) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(threads);
    server.createContext("/", exchange -> {
      int now = inHandler.incrementAndGet();
      maxInHandler.accumulateAndGet(now, Math::max);
      // A request counts until its response headers go out (see reply): the client's place ends
      // there (SPEC P2), so the next request may arrive while this handler is still returning.
      java.util.concurrent.atomic.AtomicBoolean counted = new java.util.concurrent.atomic.AtomicBoolean(true);
      Runnable leave = () -> {
        if (counted.getAndSet(false)) {
          inHandler.decrementAndGet();
        }
      };
      exchange.setAttribute(LEAVE, leave);
      try (exchange) {
        Request request = new Request(since(), exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
            exchange.getRequestHeaders(), readBody(exchange.getRequestBody()));
        requests.add(request);
        handler.handle(request, exchange);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        leave.run();
      }
    });
    server.start();
  }

  static TestServer start(Handler handler) throws IOException {
    return new TestServer(handler);
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** The engine's key for this server: {@code 127.0.0.1:port}. */
  String hostKey() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** Time since the server started. */
  Duration since() {
    return Duration.ofNanos(System.nanoTime() - startedAt);
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  List<Request> requests(String path) {
    return requests.stream().filter(r -> r.path().equals(path)).collect(Collectors.toList());
  }

  /**
   * The most requests that were in the handler at once, until their response headers went out,
   * since the last {@link #resetConcurrency()}.
   */
  int maxConcurrent() {
    return maxInHandler.get();
  }

  void resetConcurrency() {
    maxInHandler.set(0);
  }

  /** Sends a whole response: {@code headers} as name, value, name, value ... */
  static void reply(HttpExchange exchange, int status, String body, String... headers) throws IOException {
    for (int i = 0; i < headers.length; i += 2) {
      exchange.getResponseHeaders().add(headers[i], headers[i + 1]);
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (exchange.getAttribute(LEAVE) instanceof Runnable leave) {
      leave.run();
    }
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String readBody(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}

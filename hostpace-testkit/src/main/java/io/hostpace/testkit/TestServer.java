package io.hostpace.testkit;

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
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A real HTTP/1.1 server on 127.0.0.1, on a port of its own, that logs what it receives: each
 * request with its arrival time since the server started, its headers and its whole body, and
 * how many requests were in its handlers at once. Its {@link Handler} decides the answer.
 * Close it after the test.
 *
 * <p>A request counts as held from its arrival until its response headers go out through
 * {@link #reply} or {@link #sendHeaders}: that is where a client's in-flight place ends (SPEC
 * P2), so the next request may arrive while a handler is still writing a body.
 */
public final class TestServer implements AutoCloseable {

  /** Answers one request. */
  @FunctionalInterface
  public interface Handler {
    void handle(Request request, HttpExchange exchange) throws IOException, InterruptedException;
  }

  /**
   * What the server received: when (since it started), the method, path, headers (names in
   * lower case) and the whole body.
   */
  public record Request(Duration at, String method, String path, Map<String, List<String>> headers, byte[] body) {

    public Request {
      headers = Map.copyOf(headers);
    }

    /** The first value of header {@code name} (any case), or {@code null}. */
    public @Nullable String header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** Every value of header {@code name} (any case). */
    public List<String> headers(String name) {
      return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.3f %s %s", at.toNanos() / 1e9, method, path);
    }
  }

  private static final String LEAVE = "hostpace.testkit.leave";

  static {
    // The JDK's server writes a response's headers and its body apart; without TCP_NODELAY the
    // body waits for the client's delayed ACK of the headers, and every answer comes that much
    // late. Read once, by the first server the JVM makes; a value set before is left as it is.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "testkit-server");
    thread.setDaemon(true);
    return thread;
  });
  private final long startedAt = System.nanoTime();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicInteger maxHeld = new AtomicInteger();

  private TestServer(Handler handler) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(threads);
    server.createContext("/", exchange -> {
      maxHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
      AtomicBoolean counted = new AtomicBoolean(true);
      Runnable leave = () -> {
        if (counted.getAndSet(false)) {
          held.decrementAndGet();
        }
      };
      exchange.setAttribute(LEAVE, leave);
      try (exchange) {
        Request request = new Request(since(), exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
            lowerCase(exchange.getRequestHeaders()), readBody(exchange.getRequestBody()));
        requests.add(request);
        handler.handle(request, exchange);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (IOException e) {
        // the client went away
      } finally {
        leave.run();
      }
    });
    server.start();
  }

  /** A server on 127.0.0.1 and a free port, answering with {@code handler}. */
  public static TestServer start(Handler handler) throws IOException {
    return new TestServer(handler);
  }

  /** The address of {@code path} on this server. */
  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** The engine's key for this server: {@code 127.0.0.1:port}. */
  public String hostKey() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** Time since the server started. */
  public Duration since() {
    return Duration.ofNanos(System.nanoTime() - startedAt);
  }

  /** Every request received, in order of arrival. */
  public List<Request> requests() {
    return List.copyOf(requests);
  }

  /** The requests received for {@code path}, in order of arrival. */
  public List<Request> requests(String path) {
    return requests.stream().filter(r -> r.path().equals(path)).collect(Collectors.toList());
  }

  /** The most requests held at once (until their response headers went out) since the last {@link #resetConcurrency()}. */
  public int maxConcurrent() {
    return maxHeld.get();
  }

  /** Starts counting {@link #maxConcurrent()} afresh. */
  public void resetConcurrency() {
    maxHeld.set(held.get());
  }

  /** Sends a whole response with a UTF-8 body; {@code headers} as name, value, name, value ... */
  public static void reply(HttpExchange exchange, int status, String body, String... headers) throws IOException {
    reply(exchange, status, body.getBytes(StandardCharsets.UTF_8), headers);
  }

  /** Sends a whole response; {@code headers} as name, value, name, value ... */
  public static void reply(HttpExchange exchange, int status, byte[] body, String... headers) throws IOException {
    sendHeaders(exchange, status, body.length == 0 ? -1 : body.length, headers);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /**
   * Sends the status and headers only; the caller writes the body to
   * {@code exchange.getResponseBody()}. {@code length} as in
   * {@link HttpExchange#sendResponseHeaders}: 0 for a chunked body of any length, -1 for none.
   */
  public static void sendHeaders(HttpExchange exchange, int status, long length, String... headers) throws IOException {
    if (headers.length % 2 != 0) {
      throw new IllegalArgumentException("headers come as name, value pairs, got " + headers.length + " strings");
    }
    for (int i = 0; i < headers.length; i += 2) {
      exchange.getResponseHeaders().add(headers[i], headers[i + 1]);
    }
    if (exchange.getAttribute(LEAVE) instanceof Runnable leave) {
      leave.run();
    }
    exchange.sendResponseHeaders(status, length);
  }

  private static Map<String, List<String>> lowerCase(Map<String, List<String>> headers) {
    Map<String, List<String>> lower = new TreeMap<>();
    headers.forEach((name, values) -> lower.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new CopyOnWriteArrayList<>())
        .addAll(values));
    lower.replaceAll((name, values) -> List.copyOf(values));
    return lower;
  }

  private static byte[] readBody(InputStream in) throws IOException {
    return in.readAllBytes();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }

  @Override
  public String toString() {
    return "TestServer{" + hostKey() + ", " + requests.size() + " requests}";
  }
}

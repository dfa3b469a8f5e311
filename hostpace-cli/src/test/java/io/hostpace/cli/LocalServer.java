package io.hostpace.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP server on 127.0.0.1 for the command line's tests: {@code /ok} answers "hello",
 * {@code /refuse-once} refuses its first request with 429 and {@code Retry-After: 0},
 * {@code /echo} answers with the method, the User-Agent and the body it got, {@code /slow}
 * answers after 200 ms, {@code /hang} not for 5 s, {@code /come-back-later} with 503 and
 * {@code Retry-After: 120}, {@code /refuse-then-stall} refuses its first request with 429 and
 * {@code Retry-After: 1} and answers the next with headers and no body for 5 s, {@code /junk-results} with SPARQL results JSON that is not JSON,
 * {@code /truncated-results} with all of a SPARQL results JSON that ends mid-document,
 * {@code /junk-tsv} with SPARQL results TSV that is not TSV, {@code /junk-turtle} with Turtle
 * that is not Turtle. It counts requests and the most it had in flight at once.
 */
final class LocalServer implements AutoCloseable {

  final HttpServer server;
  final List<String> requests = new CopyOnWriteArrayList<>();
  /** The User-Agent of each request, in the order they came. */
  final java.util.Queue<String> userAgents = new java.util.concurrent.ConcurrentLinkedQueue<>();
  final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
  final AtomicInteger inFlight = new AtomicInteger();
  final AtomicInteger maxInFlight = new AtomicInteger();
  /** What a test does as a request of a path arrives, before it is answered. */
  final Map<String, Runnable> onRequest = new ConcurrentHashMap<>();

  LocalServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/", this::handle);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /**
   * Counts a request in flight from its arrival until its response headers go out: the place
   * the client holds ends there (SPEC P2), so that is the moment to compare with its limit.
   */
  private void handle(HttpExchange exchange) throws IOException {
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    String path = exchange.getRequestURI().getPath();
    requests.add(exchange.getRequestMethod() + " " + path);
    userAgents.add(String.valueOf(exchange.getRequestHeaders().getFirst("User-Agent")));
    int count = seen.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    onRequest.getOrDefault(path, () -> {}).run();
    exchange.setAttribute("inFlight", new java.util.concurrent.atomic.AtomicBoolean(true));
    try (exchange) {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      switch (path) {
        case "/refuse-once" -> {
          if (count == 1) {
            exchange.getResponseHeaders().set("Retry-After", "0");
            respond(exchange, 429, "slow down");
          } else {
            respond(exchange, 200, "ok");
          }
        }
        case "/echo" -> respond(exchange, 200, exchange.getRequestMethod() + "|"
            + exchange.getRequestHeaders().getFirst("User-Agent") + "|"
            + exchange.getRequestHeaders().getFirst("X-Test") + "|" + new String(body, StandardCharsets.UTF_8));
        case "/slow" -> {
          sleep(200);
          respond(exchange, 200, "slow");
        }
        case "/missing" -> respond(exchange, 404, "no such thing");
        case "/hang" -> sleep(5_000);
        case "/come-back-later" -> {
          exchange.getResponseHeaders().set("Retry-After", "120");
          respond(exchange, 503, "maintenance");
        }
        case "/refuse-then-stall" -> {
          if (count == 1) {
            exchange.getResponseHeaders().set("Retry-After", "1");
            respond(exchange, 429, "slow down");
          } else {
            leave(exchange);
            exchange.sendResponseHeaders(200, 1 << 20);
            exchange.getResponseBody().flush();
            sleep(5_000); // headers, then no byte of the body
          }
        }
        case "/junk-results" -> {
          exchange.getResponseHeaders().set("Content-Type", "application/sparql-results+json");
          respond(exchange, 200, "{ \"head\": { \"vars\": [ x y ] } }");
        }
        case "/truncated-results" -> {
          exchange.getResponseHeaders().set("Content-Type", "application/sparql-results+json");
          respond(exchange, 200, "{\"head\": {\"vars\": [] }, \"results\": ");
        }
        case "/junk-tsv" -> {
          exchange.getResponseHeaders().set("Content-Type", "text/tab-separated-values");
          respond(exchange, 200, "?s\n<not an IRI\n");
        }
        case "/junk-turtle" -> {
          exchange.getResponseHeaders().set("Content-Type", "text/turtle");
          respond(exchange, 200, "<http://example.org/a> <http://example.org/b> oops .");
        }
        default -> respond(exchange, 200, "hello");
      }
    } finally {
      leave(exchange);
    }
  }

  private void leave(HttpExchange exchange) {
    if (((java.util.concurrent.atomic.AtomicBoolean) exchange.getAttribute("inFlight")).getAndSet(false)) {
      inFlight.decrementAndGet();
    }
  }

  private void respond(HttpExchange exchange, int status, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    leave(exchange);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis); // the server's own work, not the test's timing
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

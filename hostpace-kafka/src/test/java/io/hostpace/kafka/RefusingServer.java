package io.hostpace.kafka;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A JDK HTTP server on 127.0.0.1 that refuses its first request with {@code 429} and
 * {@code Retry-After: 2}, and answers every later one with {@code 200}. It writes down the path
 * of each request, in the order they arrived.
 */
final class RefusingServer implements AutoCloseable {

  private final HttpServer server;
  final List<String> arrivals = new CopyOnWriteArrayList<>();
  private final CountDownLatch answered = new CountDownLatch(1);

  private RefusingServer(HttpServer server) {
    this.server = server;
  }

  static RefusingServer start() throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    RefusingServer refusing = new RefusingServer(http);
    http.createContext("/", exchange -> {
      refusing.arrivals.add(exchange.getRequestURI().getPath());
      try (exchange) {
        exchange.getRequestBody().readAllBytes();
        if (refusing.arrivals.size() == 1) {
          exchange.getResponseHeaders().set("Retry-After", "2");
          exchange.sendResponseHeaders(429, -1);
        } else {
          exchange.sendResponseHeaders(200, -1);
          refusing.answered.countDown();
        }
      }
    });
    http.start();
    return refusing;
  }

  URI uri(String path) {
    InetSocketAddress address = server.getAddress();
    return URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort() + path);
  }

  /** Waits until a request was answered with 200. */
  boolean awaitAnswer(long seconds) throws InterruptedException {
    return answered.await(seconds, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

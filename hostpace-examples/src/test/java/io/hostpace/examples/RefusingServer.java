package io.hostpace.examples;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server on 127.0.0.1 that refuses the first request with a {@code 429} and
 * {@code Retry-After: 0}, then answers every request with one body: a client that is not paced
 * returns the refusal, a paced one retries it and returns the body.
 */
final class RefusingServer implements AutoCloseable {

  private final HttpServer server;
  private final AtomicInteger requests = new AtomicInteger();

  RefusingServer(String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      try (exchange) {
        exchange.getRequestBody().readAllBytes();
        if (requests.incrementAndGet() == 1) {
          exchange.getResponseHeaders().set("Retry-After", "0");
          exchange.sendResponseHeaders(429, -1);
          return;
        }
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    });
    server.start();
  }

  /** {@code http://127.0.0.1:port/path}. */
  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** The requests that reached the server, the refused one included. */
  int requests() {
    return requests.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

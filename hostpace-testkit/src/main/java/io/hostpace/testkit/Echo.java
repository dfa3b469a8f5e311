package io.hostpace.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Answers {@code 200} with the body it received, and counts what it received: the size of each
 * request's body, in order. Refuses its first {@code refuse} requests with {@code 429} and
 * {@code Retry-After: 0} (having read their bodies whole), so a retried body can be compared with
 * the first.
 */
public final class Echo implements TestServer.Handler {

  private final int refuse;
  private final List<Integer> received = new CopyOnWriteArrayList<>();

  /** Echoes every request. */
  public Echo() {
    this(0);
  }

  /** Refuses the first {@code refuse} requests, then echoes. */
  public Echo(int refuse) {
    this.refuse = refuse;
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException {
    received.add(request.body().length);
    if (received.size() <= refuse) {
      TestServer.reply(exchange, 429, "refused " + received.size(), "Retry-After", "0");
      return;
    }
    TestServer.reply(exchange, 200, request.body(), "Content-Type", "application/octet-stream");
  }

  /** The size in bytes of each request body received, in order. */
  public List<Integer> received() {
    return List.copyOf(received);
  }
}

package io.hostpace.jdk;

import com.sun.net.httpserver.HttpExchange;
import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays DBpedia's endpoint: when busy it answers {@code 405} with {@code Retry-After}, and a 405
 * without one means what it says. {@code /sparql} is busy for its first request, then answers;
 * {@code /update} is not allowed, ever.
 */
final class DbpediaLike implements TestServer.Handler {

  private final AtomicInteger sparql = new AtomicInteger();

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException {
    if (request.path().equals("/update")) {
      TestServer.reply(exchange, 405, "Method Not Allowed");
    } else if (sparql.incrementAndGet() == 1) {
      TestServer.reply(exchange, 405, "busy, come back in a second", "Retry-After", "1");
    } else {
      TestServer.reply(exchange, 200, "results");
    }
  }
}

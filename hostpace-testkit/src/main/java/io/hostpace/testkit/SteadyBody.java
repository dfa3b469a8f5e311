package io.hostpace.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Sends its status and headers at once, then a chunked body of {@code parts} lines
 * ({@code "part 0\n"} ...), {@code gap} apart, and ends it: a body that keeps coming for at least
 * {@code parts × gap}, however fast the machine, with no wait between two bytes much longer than
 * {@code gap} unless the machine stalls. For a bound per read that such a body passes, and a
 * bound on the whole answer that it does not.
 */
public final class SteadyBody implements TestServer.Handler {

  private final int parts;
  private final Duration gap;

  public SteadyBody(int parts, Duration gap) {
    this.parts = parts;
    this.gap = gap;
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
    TestServer.sendHeaders(exchange, 200, 0, "Content-Type", "text/plain; charset=utf-8");
    try (OutputStream body = exchange.getResponseBody()) {
      body.flush();
      for (int i = 0; i < parts; i++) {
        Thread.sleep(gap.toMillis());
        body.write(("part " + i + "\n").getBytes(StandardCharsets.UTF_8));
        body.flush();
      }
    }
  }

  /** The whole body this server sends. */
  public String body() {
    StringBuilder whole = new StringBuilder();
    for (int i = 0; i < parts; i++) {
      whole.append("part ").append(i).append('\n');
    }
    return whole.toString();
  }
}

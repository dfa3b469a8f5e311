package io.hostpace.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Sends its status and headers at once, then a body of {@code parts} lines ({@code "part 0\n"}
 * ...), {@code gap} apart: an answer whose body takes a while, for SPEC P2. Logs
 * {@code "<path> body complete"} when the last part is out. Requests to {@code /fast} are
 * answered at once with {@code "fast"} and logged as {@code "/fast arrives"}.
 */
public final class SlowBody implements TestServer.Handler {

  private final int parts;
  private final Duration gap;
  private final List<String> trace = new CopyOnWriteArrayList<>();

  public SlowBody(int parts, Duration gap) {
    this.parts = parts;
    this.gap = gap;
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
    if (request.path().equals("/fast")) {
      trace.add("/fast arrives");
      TestServer.reply(exchange, 200, "fast");
      return;
    }
    TestServer.sendHeaders(exchange, 200, 0);
    OutputStream body = exchange.getResponseBody();
    body.flush();
    for (int i = 0; i < parts; i++) {
      Thread.sleep(gap.toMillis());
      body.write(("part " + i + "\n").getBytes(StandardCharsets.UTF_8));
      body.flush();
    }
    trace.add(request.path() + " body complete");
    body.close();
  }

  /** What happened, in order. */
  public List<String> trace() {
    return List.copyOf(trace);
  }
}

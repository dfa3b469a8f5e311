package io.hostpace.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Sends its status and headers at once, then a body of {@code parts} lines ({@code "part 0\n"}
 * ...), {@code gap} apart: an answer whose body takes a while, for SPEC P2. Logs
 * {@code "<path> body complete"} when the last part is out. Requests to {@code /fast} are
 * answered at once with {@code "fast"} and logged as {@code "/fast arrives"}. The last part waits
 * for a request to {@code /fast} (up to {@link #FAST_PATIENCE}), so that a client which sends
 * {@code /fast} while the body comes is seen to, however slowly a busy machine runs it; one that
 * holds {@code /fast} until the body is read shows as the body complete first.
 */
public final class SlowBody implements TestServer.Handler {

  private final int parts;
  private final Duration gap;
  private final List<String> trace = new CopyOnWriteArrayList<>();
  private final CountDownLatch fastArrived = new CountDownLatch(1);

  /** How long the last part waits for {@code /fast}. */
  public static final Duration FAST_PATIENCE = Duration.ofSeconds(10);

  public SlowBody(int parts, Duration gap) {
    this.parts = parts;
    this.gap = gap;
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
    if (request.path().equals("/fast")) {
      trace.add("/fast arrives");
      fastArrived.countDown();
      TestServer.reply(exchange, 200, "fast");
      return;
    }
    TestServer.sendHeaders(exchange, 200, 0);
    OutputStream body = exchange.getResponseBody();
    body.flush();
    for (int i = 0; i < parts; i++) {
      Thread.sleep(gap.toMillis());
      if (i == parts - 1) {
        fastArrived.await(FAST_PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      }
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

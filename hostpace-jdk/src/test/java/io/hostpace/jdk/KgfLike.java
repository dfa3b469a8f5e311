package io.hostpace.jdk;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays the KGF endpoint of the seed: it works on 4 requests at once (each for
 * {@link #WORK}) and refuses any more with {@code 429} and {@code Retry-After: 1}.
 */
final class KgfLike implements TestServer.Handler {

  static final int CAPACITY = 4;
  static final Duration WORK = Duration.ofMillis(300);

  private final AtomicInteger working = new AtomicInteger();
  private final AtomicInteger maxWorking = new AtomicInteger();
  /** Each answer: "0.012 /kgf/3 429". */
  final List<String> answers = new CopyOnWriteArrayList<>();

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
    int now = working.incrementAndGet();
    if (now > CAPACITY) {
      working.decrementAndGet();
      answers.add(request + " 429");
      TestServer.reply(exchange, 429, "busy", "Retry-After", "1");
      return;
    }
    maxWorking.accumulateAndGet(now, Math::max);
    try {
      Thread.sleep(WORK.toMillis());
    } finally {
      working.decrementAndGet();
    }
    answers.add(request + " 200");
    TestServer.reply(exchange, 200, "results of " + request.path());
  }

  /** The most requests it worked on at once. */
  int maxWorking() {
    return maxWorking.get();
  }
}

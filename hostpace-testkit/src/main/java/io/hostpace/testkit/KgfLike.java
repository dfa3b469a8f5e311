package io.hostpace.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays the KGF endpoint of the seed: it works on {@code capacity} requests at once (4 in the
 * seed), each for {@code work}, and refuses any more with {@code 429} and {@code Retry-After: 1}.
 */
public final class KgfLike implements TestServer.Handler {

  /** The seed's capacity. */
  public static final int SEED_CAPACITY = 4;

  private final int capacity;
  private final Duration work;
  private final AtomicInteger working = new AtomicInteger();
  private final AtomicInteger maxWorking = new AtomicInteger();
  private final List<String> answers = new CopyOnWriteArrayList<>();

  public KgfLike(int capacity, Duration work) {
    if (capacity < 1) {
      throw new IllegalArgumentException("KGF-like capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.work = work;
  }

  /** Four at once, 300 ms each. */
  public KgfLike() {
    this(SEED_CAPACITY, Duration.ofMillis(300));
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
    int now = working.incrementAndGet();
    if (now > capacity) {
      working.decrementAndGet();
      answers.add(request + " 429");
      TestServer.reply(exchange, 429, "busy", "Retry-After", "1");
      return;
    }
    maxWorking.accumulateAndGet(now, Math::max);
    try {
      Thread.sleep(work.toMillis());
    } finally {
      working.decrementAndGet();
    }
    answers.add(request + " 200");
    TestServer.reply(exchange, 200, "results of " + request.path());
  }

  /** The most requests it worked on at once. */
  public int maxWorking() {
    return maxWorking.get();
  }

  /** Each answer, as {@code "0.012 GET /kgf/3 429"}. */
  public List<String> answers() {
    return List.copyOf(answers);
  }
}

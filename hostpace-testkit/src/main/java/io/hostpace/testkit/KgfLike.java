package io.hostpace.testkit;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.sun.net.httpserver.HttpExchange;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.RefusingServer;
import io.hostpace.testing.RefusingServer.RetryAfter;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays the KGF endpoint of the seed: it works on {@code capacity} requests at once (4 in the
 * seed), each for {@code work}, and refuses any more with {@code 429} and {@code Retry-After: 1}.
 * The core's {@link AdmissionGate} decides, on the wall clock.
 */
public final class KgfLike implements TestServer.Handler {

  /** The seed's capacity. */
  public static final int SEED_CAPACITY = 4;

  private final Duration work;
  @GuardedBy("this")
  private final AdmissionGate gate;
  @GuardedBy("this")
  private final RefusingServer server;
  private final AtomicInteger maxWorking = new AtomicInteger();
  private final List<String> answers = new CopyOnWriteArrayList<>();

  public KgfLike(int capacity, Duration work) {
    if (capacity < 1) {
      throw new IllegalArgumentException("KGF-like capacity must be at least 1, got " + capacity);
    }
    this.work = work;
    this.gate = new AdmissionGate(capacity);
    this.server = new RefusingServer(gate, 429, RetryAfter.seconds(1));
  }

  /** Four at once, 300 ms each. */
  public KgfLike() {
    this(SEED_CAPACITY, Duration.ofMillis(300));
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
    RefusingServer.Answer answer;
    synchronized (this) {
      long now = System.nanoTime();
      answer = server.answer(now);
      if (answer.accepted()) {
        maxWorking.accumulateAndGet(gate.inFlight(now), Math::max);
      }
    }
    if (!answer.accepted()) {
      answers.add(request + " " + answer.status());
      TestServer.reply(exchange, answer.status(), "busy", "Retry-After",
          Objects.requireNonNull(answer.retryAfter(), "a gate of Retry-After seconds refuses with one"));
      return;
    }
    try {
      Thread.sleep(work.toMillis());
    } finally {
      synchronized (this) {
        server.end(System.nanoTime());
      }
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

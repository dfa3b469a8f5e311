package io.hostpace.testkit;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.sun.net.httpserver.HttpExchange;
import io.hostpace.testing.RefusingServer;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testing.Spacing;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Plays QLever's Wikidata endpoint as the seed saw it: it admits one request per interval (a
 * second, less 100 ms of slack for the network between the client's clock and this one) and
 * refuses any sooner with a bare {@code 429}, without {@code Retry-After}. A shorter interval
 * keeps a test short while the client's learning still has to find it. The core's
 * {@link Spacing} decides, on the wall clock.
 */
public final class QleverLike implements TestServer.Handler {

  /** The seed's interval, with 100 ms of slack. */
  public static final Duration SEED_INTERVAL = Duration.ofMillis(900);

  @GuardedBy("this")
  private final RefusingServer server;
  private final List<String> answers = new CopyOnWriteArrayList<>();

  /** Admits one request per {@code interval}. */
  public QleverLike(Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("QLever-like interval must be positive, got " + interval);
    }
    this.server = new RefusingServer(Spacing.oneEvery(interval), 429, RetryAfter.none());
  }

  /** Admits one request a second, as the seed's QLever did. */
  public QleverLike() {
    this(SEED_INTERVAL);
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException {
    RefusingServer.Answer answer;
    synchronized (this) {
      answer = server.answer(System.nanoTime());
    }
    answers.add(request + " " + answer.status());
    TestServer.reply(exchange, answer.status(), answer.accepted() ? "results of " + request.path() : "Too Many Requests");
  }

  /** Each answer, as {@code "0.012 GET /q/3 429"}. */
  public List<String> answers() {
    return List.copyOf(answers);
  }

  /** How many requests it refused. */
  public long refusals() {
    return answers.stream().filter(a -> a.endsWith(" 429")).count();
  }
}

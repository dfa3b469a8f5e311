package io.hostpace.testkit;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.sun.net.httpserver.HttpExchange;
import io.hostpace.testing.RefusingServer;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testing.TokenBucket;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A rate limiter over HTTP: a token bucket of {@code perSecond} tokens a second holding up to
 * {@code burst}, full when the handler is made. A request that finds a token takes it and is
 * answered {@code 200} with {@code "results of <path>"}; any other is refused with the given
 * status and {@code Retry-After} (none, {@code RetryAfter.seconds(1)}, ...), and costs no token.
 * The core's {@link TokenBucket} in a {@link RefusingServer} decides, on the wall clock, at
 * the moment it is asked; that moment is what {@link #answers()} records.
 *
 * <pre>{@code
 * BucketServer limiter = new BucketServer(5, 5, 429, RetryAfter.seconds(1));
 * try (TestServer server = TestServer.start(limiter)) {
 *   // ... requests ...
 *   limiter.refused();   // how many it refused
 * }
 * }</pre>
 */
public final class BucketServer implements TestServer.Handler {

  /**
   * One request as the bucket decided it: when (since the handler was made), the method and
   * path, and the status it was answered with.
   */
  public record Answer(Duration at, String method, String path, int status) {

    /** Whether the request was served: status 200. */
    public boolean accepted() {
      return status == 200;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.3f %s %s %d", at.toNanos() / 1e9, method, path, status);
    }
  }

  private final long madeAt = System.nanoTime();
  @GuardedBy("this")
  private final RefusingServer server;
  private final List<Answer> answers = new CopyOnWriteArrayList<>();

  /**
   * A bucket of {@code perSecond} tokens a second holding {@code burst}, that refuses with
   * {@code status} and {@code retryAfter}.
   *
   * @throws IllegalArgumentException if the rate is not positive or the burst is less than 1
   */
  public BucketServer(double perSecond, int burst, int status, RetryAfter retryAfter) {
    if (status == 200) {
      throw new IllegalArgumentException("a bucket server refuses with another status than 200, got 200");
    }
    this.server = new RefusingServer(TokenBucket.of(perSecond, burst, madeAt), status, retryAfter);
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException {
    RefusingServer.Answer answer;
    Answer decided;
    // Decided and recorded under one lock, so that the record is in the order the bucket saw.
    synchronized (this) {
      long now = System.nanoTime();
      answer = server.answer(now);
      decided = new Answer(Duration.ofNanos(now - madeAt), request.method(), request.path(), answer.status());
      answers.add(decided);
    }
    String retryAfter = answer.retryAfter();
    if (answer.accepted()) {
      TestServer.reply(exchange, 200, "results of " + request.path());
    } else if (retryAfter != null) {
      TestServer.reply(exchange, answer.status(), "refused", "Retry-After", retryAfter);
    } else {
      TestServer.reply(exchange, answer.status(), "refused");
    }
  }

  /** Every request it decided, in the order it decided them. */
  public List<Answer> answers() {
    return List.copyOf(answers);
  }

  /** How many requests it accepted. */
  public long accepted() {
    return answers.stream().filter(Answer::accepted).count();
  }

  /** How many requests it refused. */
  public long refused() {
    return answers.stream().filter(answer -> !answer.accepted()).count();
  }
}

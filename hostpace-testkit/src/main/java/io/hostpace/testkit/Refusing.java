package io.hostpace.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Refuses its first {@code n} requests with {@code status} and the body {@code "refused <k>"}
 * (with {@code Retry-After} when given, computed at each refusal), then answers {@code 200} with
 * {@code "answer <k>"}; k counts requests from 1. A 503 with {@code Retry-After}, a 429 with
 * {@code Retry-After: 0}, a host that refuses everything.
 */
public final class Refusing implements TestServer.Handler {

  private final int n;
  private final int status;
  private final @Nullable Supplier<String> retryAfter;
  private final AtomicInteger seen = new AtomicInteger();

  private Refusing(int n, int status, @Nullable Supplier<String> retryAfter) {
    this.n = n;
    this.status = status;
    this.retryAfter = retryAfter;
  }

  /** Refuses the first {@code n} requests with {@code status} and this {@code Retry-After} (none if null). */
  public static Refusing first(int n, int status, @Nullable String retryAfter) {
    return new Refusing(n, status, retryAfter == null ? null : () -> retryAfter);
  }

  /** Refuses the first {@code n} with {@code status} and a {@code Retry-After} made at each refusal (a date, say). */
  public static Refusing first(int n, int status, Supplier<String> retryAfter) {
    return new Refusing(n, status, retryAfter);
  }

  /** Refuses every request with {@code status} and this {@code Retry-After} (none if null). */
  public static Refusing always(int status, @Nullable String retryAfter) {
    return first(Integer.MAX_VALUE, status, retryAfter);
  }

  @Override
  public void handle(TestServer.Request request, HttpExchange exchange) throws IOException {
    int k = seen.incrementAndGet();
    if (k > n) {
      TestServer.reply(exchange, 200, "answer " + k);
    } else if (retryAfter != null) {
      TestServer.reply(exchange, status, "refused " + k, "Retry-After", retryAfter.get());
    } else {
      TestServer.reply(exchange, status, "refused " + k);
    }
  }

  /** How many requests it received. */
  public int seen() {
    return seen.get();
  }
}

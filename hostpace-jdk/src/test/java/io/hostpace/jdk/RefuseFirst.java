package io.hostpace.jdk;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Refuses its first {@code n} requests with {@code status} (and {@code Retry-After} when given,
 * computed at each refusal), with the body {@code "refused <k>"}; then answers 200 with
 * {@code "answer <k>"}, k counting from 1.
 */
final class RefuseFirst implements TestServer.Handler {

  private final int n;
  private final int status;
  private final @Nullable Supplier<String> retryAfter;
  private final AtomicInteger seen = new AtomicInteger();

  RefuseFirst(int n, int status, @Nullable Supplier<String> retryAfter) {
    this.n = n;
    this.status = status;
    this.retryAfter = retryAfter;
  }

  /** Refuses the first {@code n} with a 429 and {@code Retry-After: 0}. */
  static RefuseFirst refuse(int n) {
    return new RefuseFirst(n, 429, () -> "0");
  }

  /** Refuses every request. */
  static RefuseFirst always(int status, String retryAfter) {
    return new RefuseFirst(Integer.MAX_VALUE, status, () -> retryAfter);
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
}

package io.hostpace.kafka;

import java.util.Optional;

/**
 * An exception that says a server refused a request and may have said when to come back: the
 * mark {@link RetryAfterBackOffHandler} looks for, besides the exceptions of Spring's own HTTP
 * clients. Implement it on the exception your own HTTP client code throws for a refusal.
 *
 * <pre>{@code
 * class QuotaExceeded extends RuntimeException implements Refusal {
 *   public int status() { return 429; }
 *   public Optional<String> retryAfter() { return Optional.ofNullable(retryAfterHeader); }
 * }
 * }</pre>
 *
 * <p>An exception that implements it is taken for a refusal as it is: its status is not
 * checked against {@link RetryAfterBackOffHandler.Builder#refusalStatuses}.
 */
public interface Refusal {

  /** The status of the refusal, such as 429. */
  int status();

  /**
   * The {@code Retry-After} header as the server sent it, delta-seconds ({@code 120},
   * {@code 1.5}) or an HTTP date; empty when it sent none (null is taken for empty).
   */
  Optional<String> retryAfter();

  /**
   * Another header of the refusal, by name in any case, for the quota the server announced on it
   * ({@code RateLimit}, {@code X-RateLimit-Remaining} ..., SPEC R8); empty by default (null is
   * taken for empty).
   */
  default Optional<String> header(String name) {
    return Optional.empty();
  }
}

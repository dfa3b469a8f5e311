package io.hostpace.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The failure a future reports, as its producer raised it. A {@code CompletableFuture} hands a
 * failure over wrapped in a {@link CompletionException} (from {@code join} and from stages that
 * depend on another) or an {@link ExecutionException} (from {@code get}); adapters and the engine
 * strip those wrappers before they judge a failure or hand it to a caller, so that an
 * {@code IOException} stays one.
 */
public final class Failures {

  private Failures() {}

  /**
   * {@code failure} without its {@link CompletionException} and {@link ExecutionException}
   * wrappers, however deep; a wrapper without a cause is returned as it is.
   */
  public static Throwable unwrap(Throwable failure) {
    Throwable current = failure;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }
}

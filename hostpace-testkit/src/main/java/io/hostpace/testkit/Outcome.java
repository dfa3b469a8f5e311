package io.hostpace.testkit;

import org.jspecify.annotations.Nullable;

/**
 * How a call ended, as the client told its caller: a status and the whole body as UTF-8 text,
 * or the client's own exception, as the client threw it or failed its future with it (unwrapped
 * from {@code ExecutionException} and {@code CompletionException}, nothing else).
 *
 * @param status the response's status, or -1 when the call failed
 * @param body the response's body, or "" when the call failed
 * @param failure what the client threw, or {@code null} when a response came
 */
public record Outcome(int status, String body, @Nullable Throwable failure) {

  /** A response. */
  public static Outcome answer(int status, String body) {
    return new Outcome(status, body, null);
  }

  /** A failure, as the client raised it. */
  public static Outcome failed(Throwable failure) {
    return new Outcome(-1, "", failure);
  }

  /** Whether the call failed. */
  public boolean isFailure() {
    return failure != null;
  }

  @Override
  public String toString() {
    return failure != null ? "failed: " + failure : status + " " + (body.length() > 60 ? body.substring(0, 60) + "..." : body);
  }
}

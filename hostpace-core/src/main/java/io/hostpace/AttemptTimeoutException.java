package io.hostpace;

import java.io.InterruptedIOException;
import java.time.Duration;

/**
 * An attempt got no answer within the budget its timeout policy gave it (SPEC D1). Like every
 * timeout, it is never retried (SPEC T6). An {@link InterruptedIOException}, as Java's own
 * timeouts are, so a blocking client's {@code IOException} contract holds.
 */
public final class AttemptTimeoutException extends InterruptedIOException {

  private static final long serialVersionUID = 1L;

  private final transient Duration budget;

  /** An attempt to {@code endpoint} timed out after {@code budget}. */
  public AttemptTimeoutException(String endpoint, Duration budget) {
    super("no answer from " + endpoint + " within " + Durations.text(budget));
    this.budget = budget;
  }

  /** The budget the attempt had. */
  public Duration budget() {
    return budget;
  }
}

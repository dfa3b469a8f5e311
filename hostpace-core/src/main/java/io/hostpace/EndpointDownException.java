package io.hostpace;

import java.net.ConnectException;
import java.time.Duration;

/**
 * The call was not sent: its endpoint failed at once, several times in a row (refused, reset,
 * unresolvable), so its timeout policy fails requests fast until a trial after a cool-down
 * (SPEC D3). A {@link ConnectException}, as the failures that taught it were.
 */
public final class EndpointDownException extends ConnectException {

  private static final long serialVersionUID = 1L;

  private final transient Duration retryIn;

  /** {@code endpoint} is failing fast for about {@code retryIn} more. */
  public EndpointDownException(String endpoint, Duration retryIn) {
    super(endpoint + " is unreachable: failing fast, next trial in about " + Durations.text(retryIn));
    this.retryIn = retryIn;
  }

  /** How long until the policy lets a trial request through. */
  public Duration retryIn() {
    return retryIn;
  }
}

package io.hostpace;

import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * What a failed attempt tells a timeout policy (SPEC D3): our own timeout (slow), an endpoint
 * that could not be reached (refused, reset before the answer, DNS, TLS), or nothing it can use.
 * The exchange judges each exception of the cause chain ({@link Exchange#outcomeOf}), as the
 * adapter that knows its client's types; the first that says something counts.
 */
final class Outcomes {

  private Outcomes() {}

  static @Nullable Outcome ofFailure(Exchange<?> exchange, Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      Outcome outcome = exchange.outcomeOf(t);
      if (outcome != null) {
        return outcome;
      }
    }
    return null;
  }
}

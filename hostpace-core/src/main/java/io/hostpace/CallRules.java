package io.hostpace;

import io.hostpace.timeout.TimeoutPolicy;
import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Call} judges its attempts by, built once per engine and handed to each call, so
 * that a call reads its rules here and never asks the engine that made it. Example: with the
 * defaults, 5 retries, a 60 s retry delay limit, 429 and 503 refusals (405 with
 * {@code Retry-After}), the rule's sparing of retries (SPEC R10) and no timeout policy.
 *
 * @param clock the engine's clock: attempts' times and {@code Retry-After} dates
 * @param timer runs an attempt's deadline (SPEC D1)
 * @param retries the retry count of a call whose context sets none (SPEC T1)
 * @param retriesGiven whether the engine's builder was given that count: then it caps a call's
 *     attempts as a context's does, spared only while the host accepted others since the call
 *     came (SPEC R10)
 * @param retryDelayLimit the longest pause a {@code Retry-After} may impose (SPEC R3)
 * @param refusalStatuses the statuses that are refusals (SPEC R1)
 * @param sparesRetries whether a refusal while the host accepts others spends no retry (SPEC R10)
 * @param timeoutPolicy what budgets each attempt's time, or null when the clients' own timeouts hold
 * @param afterOutcome told once the policy heard how an attempt ended, so that a host it now holds
 *     is probed (SPEC D6)
 * @param log where a call's listener that throws is logged
 */
record CallRules(
    Clock clock,
    Timer timer,
    int retries,
    boolean retriesGiven,
    Duration retryDelayLimit,
    RefusalStatuses refusalStatuses,
    boolean sparesRetries,
    @Nullable TimeoutPolicy timeoutPolicy,
    AfterOutcome afterOutcome,
    EventLog log) {

  /** What hears that the timeout policy was told how an attempt to {@code hostKey} ended. */
  @FunctionalInterface
  interface AfterOutcome {
    /** For an engine that probes nothing. */
    AfterOutcome NONE = (hostKey, uri, context) -> {};

    void told(String hostKey, URI uri, CallContext context);
  }

  /** Whether an answer with {@code status} is a refusal (SPEC R1). */
  boolean isRefusal(int status, boolean hasRetryAfter) {
    return refusalStatuses.isRefusal(status, hasRetryAfter);
  }
}

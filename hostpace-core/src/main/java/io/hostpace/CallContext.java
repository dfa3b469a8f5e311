package io.hostpace;

import io.hostpace.internal.Redaction;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What one call, one query or one batch passes along with its requests: limits that override
 * the engine's field by field, a retry count, statuses to retry after a fixed delay, and an
 * attempt listener. Immutable; share one context between the requests of a batch.
 *
 * <pre>{@code
 * CallContext batch = CallContext.builder()
 *     .limitsForEveryHost(Limits.inFlight(4))                       // every host, for this batch
 *     .addLimit("qlever.dev", Limits.perSecond(0.5))       // and this host slower still
 *     .retries(2)
 *     .build();
 * }</pre>
 *
 * <p>Contexts that give a host different limits get a queue each for it (SPEC P8); contexts
 * with equal limits share one.
 */
public final class CallContext {

  /** A context that overrides nothing. */
  public static final CallContext DEFAULT = builder().build();

  private final LimitTable limits;
  private final @Nullable Integer retries;
  private final Set<Integer> retryStatuses;
  private final Duration retryFallbackDelay;
  private final AttemptListener attemptListener;
  private final String kind;

  private CallContext(Builder builder) {
    this.limits = builder.limits.table();
    this.retries = builder.limits.retries();
    this.retryStatuses = Set.copyOf(builder.retryStatuses);
    this.retryFallbackDelay = builder.retryFallbackDelay;
    this.attemptListener = builder.attemptListener;
    this.kind = builder.kind;
  }

  /** A builder of a context that overrides nothing yet. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder that starts from this context. Its keys keep their limits: {@link Builder#addLimit}
   * refuses other limits for one of them, as for any key given twice.
   */
  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.limits = new LimitsAndRetries(limits, retries);
    builder.retryStatuses.addAll(retryStatuses);
    builder.retryFallbackDelay = retryFallbackDelay;
    builder.attemptListener = attemptListener;
    builder.kind = kind;
    return builder;
  }

  LimitTable limits() {
    return limits;
  }

  /** The retry count this context sets, or {@code null} for the engine's. */
  public @Nullable Integer retries() {
    return retries;
  }

  /** Statuses retried after {@link #retryFallbackDelay()} (with 504) when this context sets a retry count (SPEC T2). */
  public Set<Integer> retryStatuses() {
    return retryStatuses;
  }

  /** The delay before a retry of a status in {@link #retryStatuses()} or a 504. */
  public Duration retryFallbackDelay() {
    return retryFallbackDelay;
  }

  /** The listener that hears this context's attempts. */
  public AttemptListener attemptListener() {
    return attemptListener;
  }

  /**
   * The kind of query this context's requests are, for the engine's timeout policy (SPEC D1): a
   * stage or query name. {@code ""} unless set: one kind per endpoint.
   */
  public String kind() {
    return kind;
  }

  @Override
  public String toString() {
    return "CallContext{kind=" + kind + ", limits=" + limits.everyHost() + ", byKey=" + limits.byKey()
        + ", retries=" + retries + ", retryStatuses=" + new TreeSet<>(retryStatuses)
        + ", retryFallbackDelay=" + retryFallbackDelay + "}";
  }

  /** Builds a {@link CallContext}; {@link #build()} copies, so a builder can be reused. */
  public static final class Builder {
    private LimitsAndRetries limits = new LimitsAndRetries();
    private final Set<Integer> retryStatuses = new TreeSet<>();
    private Duration retryFallbackDelay = Duration.ofSeconds(1);
    private AttemptListener attemptListener = AttemptListener.NONE;
    private String kind = "";

    private Builder() {}

    /**
     * Sets the kind of query, for the timeout policy: a stage or query name (SPEC D1), replacing
     * the kind set before; {@code ""} unless set.
     *
     * @throws IllegalArgumentException naming the kind when it has a character that would break
     *     the line or the field it is written in (a log, a metric's tag, a tab-separated file): a
     *     control character (a line break, a tab), a format character (a bidi override) or a line
     *     or paragraph separator
     */
    public Builder kind(String kind) {
      Objects.requireNonNull(kind, "kind");
      String shown = Redaction.printable(kind); // escapes exactly the characters refused here
      if (!shown.equals(kind)) {
        throw new IllegalArgumentException("kind '" + shown
            + "' is not a label on one line: expected no control, format or line-separating character");
      }
      this.kind = kind;
      return this;
    }

    /**
     * Sets the limits for every host this context's requests go to (SPEC P3), replacing those set
     * before; {@link Limits#NONE} unless set, so the engine's hold.
     */
    public Builder limitsForEveryHost(Limits everyHost) {
      limits.everyHost(everyHost);
      return this;
    }

    /**
     * Adds the limits for one key to those of other keys: a host on every port
     * ({@code example.org}), a host on one port ({@code example.org:8080}; 80 and 443 are one
     * port, the default, as in a URL) or a group of every host under a domain
     * ({@code *.example.org}). A key is normalised as a URL's host is (case, a trailing dot, IDN,
     * IP address forms), so its spellings are one key.
     *
     * @throws IllegalArgumentException naming the key when it can never match a request (a scheme
     *     or path in it, a bad port, an empty label, a malformed IPv6 address), or when the same
     *     key, in any spelling, was given other limits already
     */
    public Builder addLimit(String key, Limits limits) {
      this.limits.add(key, limits);
      return this;
    }

    /**
     * Adds the limits for one key, written as {@link Limits#parse(String)} reads them:
     * {@code addLimit("qlever.dev", "inFlight:1,perSecond:1")}; as {@link #addLimit(String, Limits)}.
     *
     * @throws IllegalArgumentException naming the key, the field and the value that is wrong
     */
    public Builder addLimit(String key, String limits) {
      this.limits.add(key, limits);
      return this;
    }

    /**
     * Sets the retries of a refused request, 0 for none (SPEC T1), replacing the count set before;
     * also turns on the retries of SPEC T2. The engine's count unless set.
     *
     * @throws IllegalArgumentException when {@code retries} is negative
     */
    public Builder retries(int retries) {
      limits.retries(retries);
      return this;
    }

    /**
     * Sets the statuses to retry after the fallback delay, besides 504, when a retry count is set
     * (SPEC T2), replacing those set before; none unless set.
     *
     * @throws IllegalArgumentException naming a status that is not 400 to 599: only an error may
     *     ask for another try, and an answer that succeeded is never sent again
     */
    public Builder retryStatuses(Set<Integer> statuses) {
      ErrorStatuses.check(Objects.requireNonNull(statuses, "statuses"), "statuses", "retry status");
      retryStatuses.clear();
      retryStatuses.addAll(statuses);
      return this;
    }

    /**
     * Sets the delay before a retry of SPEC T2, replacing the one set before; 1 s unless set.
     *
     * @throws IllegalArgumentException when {@code delay} is negative or over a year
     */
    public Builder retryFallbackDelay(Duration delay) {
      Objects.requireNonNull(delay, "delay");
      this.retryFallbackDelay = Durations.zeroToAYear(delay, "retry fallback delay");
      return this;
    }

    /**
     * Sets the listener that hears each attempt (SPEC A1), replacing the one set before: a context
     * has one; {@link AttemptListener#NONE} unless set.
     */
    public Builder attemptListener(AttemptListener listener) {
      this.attemptListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The context; throws {@link IllegalArgumentException} naming a key that is neither a host nor a group. */
    public CallContext build() {
      return new CallContext(this);
    }
  }
}

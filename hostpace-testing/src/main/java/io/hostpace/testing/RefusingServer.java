package io.hostpace.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A server that refuses clients who ask too often: a {@link ServerLimit} decides each request as
 * it arrives; an accepted one is answered {@code 200}, a refused one with the server's status and
 * {@code Retry-After}; announcing, every answer carries the quota left in {@code RateLimit}.
 * Steps change the limit at given times, as a server whose rate halves at noon.
 *
 * <pre>{@code
 * RefusingServer qlever = new RefusingServer(TokenBucket.of(1.0, 1, 0), 429, RetryAfter.none());
 * qlever.answer(0);               // 200
 * qlever.answer(500_000_000L);    // 429, no Retry-After: the next token comes at 1 s
 * }</pre>
 *
 * <p>Invariant: {@code steps[applied..]} are still ahead, those before are applied to the limit.
 * With a bucket of 2 a second and a step to 1 a second at 120 s, a request at 120 s finds the
 * bucket refilled at 2 a second until 120 s and at 1 a second from then on. Not thread-safe.
 */
public final class RefusingServer {

  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

  /** What the server answered: the status, the {@code Retry-After} header or null, the {@code RateLimit} header or null. */
  public record Answer(int status, @Nullable String retryAfter, @Nullable String rateLimit) {
    /** Whether the request was served: status 200. */
    public boolean accepted() {
      return status == 200;
    }
  }

  /**
   * From {@code at} on, the values given replace the limit's, null ones stay: {@code rate} and
   * {@code burst} a {@link TokenBucket}'s, {@code limit} a {@link FixedWindow}'s, {@code places}
   * an {@link AdmissionGate}'s.
   */
  public record Step(long at, @Nullable Double rate, @Nullable Integer burst, @Nullable Integer limit,
      @Nullable Integer places) {}

  /** What a refusal says in {@code Retry-After}, given the time and when the limit is free again. */
  @FunctionalInterface
  public interface RetryAfter {

    /** The header's value for a refusal at {@code now} by a limit free at {@code freeAt}, or null for none. */
    @Nullable String header(long now, long freeAt);

    /** No {@code Retry-After}. */
    static RetryAfter none() {
      return (now, freeAt) -> null;
    }

    /** Always the same delay in seconds, such as {@code Retry-After: 1}. */
    static RetryAfter seconds(long seconds) {
      String header = Long.toString(seconds);
      return (now, freeAt) -> header;
    }

    /**
     * An HTTP-date {@code ahead} of the refusal, rounded up to the second, on a wall clock that
     * reads {@code wallAtZero} when the time is 0.
     */
    static RetryAfter dateAhead(Duration ahead, Instant wallAtZero) {
      return (now, freeAt) -> {
        Instant at = wallAtZero.plusNanos(now).plus(ahead);
        if (at.getNano() > 0) {
          at = Instant.ofEpochSecond(at.getEpochSecond() + 1);
        }
        return IMF_FIXDATE.format(at);
      };
    }

    /** The time until the limit is free again, in seconds with a fraction rounded up to the millisecond, 0.001 at least. */
    static RetryAfter untilFree() {
      return (now, freeAt) -> {
        long wait = Math.max(1_000_000L, freeAt - now);
        return String.format(Locale.ROOT, "%.3f", Math.ceil(wait / 1e6) / 1e3);
      };
    }
  }

  private final ServerLimit limit;
  private final int status;
  private final RetryAfter retryAfter;
  private final boolean announces;
  private final List<Step> steps;
  private int applied;

  /** A server behind {@code limit} that refuses with {@code status} and {@code retryAfter}. */
  public RefusingServer(ServerLimit limit, int status, RetryAfter retryAfter) {
    this(limit, status, retryAfter, false, List.of());
  }

  /**
   * As {@link #RefusingServer(ServerLimit, int, RetryAfter)}; {@code announces}: every answer
   * says the quota left (a {@link TokenBucket} or a {@link FixedWindow} only); {@code steps}, in
   * time order, change the limit.
   */
  public RefusingServer(ServerLimit limit, int status, RetryAfter retryAfter, boolean announces, List<Step> steps) {
    if (announces && !(limit instanceof CountsQuota)) {
      throw new IllegalArgumentException(limit.getClass().getSimpleName()
          + " counts no quota to announce: a TokenBucket or a FixedWindow only");
    }
    for (Step step : steps) {
      if (!fits(step, limit)) {
        throw new IllegalArgumentException("a step at " + step.at() + " ns sets what "
            + limit.getClass().getSimpleName() + " does not have: " + step);
      }
    }
    this.limit = limit;
    this.status = status;
    this.retryAfter = retryAfter;
    this.announces = announces;
    this.steps = List.copyOf(steps);
  }

  /** Decides the request that arrives at {@code now}; accepted by a gate, it holds its place until {@link #end}. */
  public Answer answer(long now) {
    applyStepsDue(now);
    return answer(now, limit.admit(now));
  }

  /** Decides the request that arrives at {@code now} and, if accepted, is answered at {@code endsAt}. */
  public Answer answer(long now, long endsAt) {
    applyStepsDue(now);
    return answer(now, limit.admit(now, endsAt));
  }

  /** A request accepted by {@link #answer(long)} was answered at {@code now}. */
  public void end(long now) {
    limit.end(now);
  }

  /** The earliest time, {@code now} or later, at which the server accepts if nothing else happens, steps aside. */
  public long freeAt(long now) {
    applyStepsDue(now);
    return limit.freeAt(now);
  }

  /** The time of the next step after {@code now}, or {@link Long#MAX_VALUE}. */
  public long nextStepAfter(long now) {
    for (int i = applied; i < steps.size(); i++) {
      if (steps.get(i).at() - now > 0) {
        return steps.get(i).at();
      }
    }
    return Long.MAX_VALUE;
  }

  private Answer answer(long now, boolean accepted) {
    String rateLimit = announces ? rateLimit(now) : null;
    if (accepted) {
      return new Answer(200, null, rateLimit);
    }
    return new Answer(status, retryAfter.header(now, limit.freeAt(now)), rateLimit);
  }

  /**
   * The quota left after this decision, as the IETF httpapi draft's {@code RateLimit} says it:
   * {@code r} requests remaining, {@code t} whole seconds (rounded up) until the quota resets.
   */
  private String rateLimit(long now) {
    CountsQuota quota = (CountsQuota) limit;
    long seconds = Math.max(0, (quota.resetIn(now) + 999_999_999L) / 1_000_000_000L);
    return "\"default\";r=" + quota.remaining(now) + ";t=" + seconds;
  }

  private void applyStepsDue(long now) {
    while (applied < steps.size() && steps.get(applied).at() - now <= 0) {
      Step step = steps.get(applied++);
      if (limit instanceof TokenBucket bucket) {
        if (step.rate() != null) {
          bucket.rate(step.at(), step.rate());
        }
        if (step.burst() != null) {
          bucket.burst(step.at(), step.burst());
        }
      } else if (limit instanceof FixedWindow window && step.limit() != null) {
        window.limit(step.limit());
      } else if (limit instanceof AdmissionGate gate && step.places() != null) {
        gate.places(step.places());
      }
    }
  }

  private static boolean fits(Step step, ServerLimit limit) {
    boolean bucket = limit instanceof TokenBucket;
    return (step.rate() == null || bucket) && (step.burst() == null || bucket)
        && (step.limit() == null || limit instanceof FixedWindow)
        && (step.places() == null || limit instanceof AdmissionGate);
  }
}

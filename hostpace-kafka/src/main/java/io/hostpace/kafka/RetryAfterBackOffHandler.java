package io.hostpace.kafka;

import io.hostpace.internal.AnnouncedQuota;
import io.hostpace.Clock;
import io.hostpace.RefusalStatuses;
import io.hostpace.internal.RetryAfter;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.DefaultBackOffHandler;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * A Spring Kafka {@link BackOffHandler} that waits as long as a refusing HTTP server asked
 * before a record goes to its listener again (SPEC I4).
 *
 * <pre>{@code
 * BackOffHandler backOffHandler = RetryAfterBackOffHandler.create();    // sleeps as DefaultBackOffHandler does
 * DefaultErrorHandler errorHandler =
 *     new DefaultErrorHandler(recoverer, new ExponentialBackOffWithMaxRetries(6), backOffHandler);
 * containerFactory.setCommonErrorHandler(errorHandler);                 // a ConcurrentKafkaListenerContainerFactory
 * }</pre>
 *
 * <p>When the listener failed because an HTTP call was refused and the refusal carries
 * {@code Retry-After}, the next delivery waits {@code max(Retry-After, the back-off's own next
 * delay)}, plus jitter when {@code Retry-After} is the larger; after any other failure, and
 * after a refusal without a usable {@code Retry-After}, exactly the back-off's delay. The
 * back-off still decides how many deliveries there are; this handler only decides how long the
 * waits between them are, and hands each wait to its delegate ({@link DefaultBackOffHandler}
 * unless set) to carry out.
 *
 * <p>With {@code FixedBackOff(1000, 2)}, jitter 100 ms to 2.5 s, and a draw of 740 ms:
 * <pre>
 * 429, Retry-After: 2                             → 2000 + 740 = 2740 ms
 * 503, Retry-After: Thu, 01 Jan 2026 00:00:03 GMT  → 3000 + 740 = 3740 ms (at 00:00:00)
 * 429, Retry-After: 0.5                           → 1000 ms, the back-off's: it is the larger, so no jitter
 * 429 without Retry-After, or a 500, or a timeout → 1000 ms
 * </pre>
 *
 * <p>A refusal is found anywhere in the exception's cause chain, outermost first (the container
 * hands the listener's exception over inside a {@code ListenerExecutionFailedException}):
 * <ul>
 *   <li>a {@code RestClientResponseException} from {@code RestClient} or {@code RestTemplate}
 *       ({@code HttpClientErrorException.TooManyRequests}, {@code HttpServerErrorException.ServiceUnavailable},
 *       ...) whose status is a refusal status, when spring-web is present;
 *   <li>a {@code WebClientResponseException} from {@code WebClient} whose status is a refusal
 *       status, when spring-webflux is present;
 *   <li>any exception that implements {@link Refusal}, whatever its status.
 * </ul>
 * The refusal statuses are 429, 503 and 405 unless {@linkplain Builder#refusalStatuses set}
 * (SPEC R1; a 405 counts only with {@code Retry-After}, which is the only case this handler acts
 * on anyway).
 *
 * <p>{@code Retry-After} is read as core's {@link RetryAfter#delay} reads it: delta-seconds,
 * with a fraction if any ({@code 1.5}), or an HTTP date in any of RFC 9110's three forms,
 * against the {@linkplain Builder#clock clock}'s wall time; a date in the past means zero, and a
 * value that does not parse counts as absent. A refusal that announces that nothing remains of its
 * quota (SPEC R8: {@code RateLimit: "default";r=0;t=30}, {@code X-RateLimit-Remaining: 0} with
 * {@code X-RateLimit-Reset}, as core's {@link AnnouncedQuota} reads them) asks for the time to the
 * reset, and the longer of that and its {@code Retry-After} counts. The wait is cut to the
 * {@linkplain Builder#retryDelayLimit retry delay limit} (60 s unless set): the container's
 * consumer thread sleeps through it, and a consumer that does not poll within
 * {@code max.poll.interval.ms} (5 minutes by default) is put out of its group.
 *
 * <p>Batch listeners: Spring Kafka's {@code DefaultErrorHandler} hands a batch's wait to this
 * handler only when the listener throws a {@code BatchListenerFailedException}, which should carry
 * the refusal as its cause; it then redelivers from the failed record. Any other exception from a
 * batch listener goes to Spring Kafka's {@code FallbackBatchErrorHandler}, which redelivers the
 * whole batch after a sleep of its own, the back-off's delay, and so reads no {@code Retry-After}.
 *
 * <p>The jitter spreads the consumers that one server told the same time (the seed's "retry
 * storm"): a draw from the {@linkplain Builder#random random source}, 100 ms to 2.5 s
 * inclusive unless {@linkplain Builder#jitter set}, added only when the refusal decided the
 * wait. Deciding the wait ({@link #backOffFor}) is apart from carrying it out, so it can be
 * tested and logged. Immutable and thread-safe when its delegate and random source are.
 */
public final class RetryAfterBackOffHandler implements BackOffHandler {

  private final BackOffHandler delegate;
  private final Clock clock;
  private final RandomGenerator random;
  private final long jitterMinMillis;
  private final long jitterMaxMillis;
  private final Duration retryDelayLimit;
  private final RefusalStatuses refusalStatuses;

  private RetryAfterBackOffHandler(Builder builder) {
    this.delegate = builder.delegate;
    this.clock = builder.clock;
    this.random = builder.random;
    this.jitterMinMillis = builder.jitterMin.toMillis();
    this.jitterMaxMillis = builder.jitterMax.toMillis();
    this.retryDelayLimit = builder.retryDelayLimit;
    this.refusalStatuses = builder.refusalStatuses;
  }

  /** A handler with the defaults, that sleeps with a {@link DefaultBackOffHandler}. */
  public static RetryAfterBackOffHandler create() {
    return builder().build();
  }

  /** A handler that hands each wait to {@code delegate}, with the other defaults. */
  public static RetryAfterBackOffHandler wrapping(BackOffHandler delegate) {
    return builder().delegate(delegate).build();
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Waits {@link #backOffFor(Exception, long) backOffFor(exception, nextBackOff)} through the delegate. */
  @Override
  public void onNextBackOff(
      @Nullable MessageListenerContainer container, @Nullable Exception exception, long nextBackOff) {
    delegate.onNextBackOff(container, exception, backOffFor(exception, nextBackOff));
  }

  /**
   * Passes the wait on unchanged: a partition's back-off (of a container that pauses partitions
   * instead of sleeping) comes without the exception, so there is no refusal to read.
   */
  @Override
  public void onNextBackOff(MessageListenerContainer container, TopicPartition partition, long nextBackOff) {
    delegate.onNextBackOff(container, partition, nextBackOff);
  }

  /**
   * The wait in milliseconds before the next delivery after {@code exception}, when the back-off
   * said {@code nextBackOff}: the back-off's delay unless a refusal in the cause chain asked for
   * at least as long, and then what it asked, plus jitter.
   */
  public long backOffFor(@Nullable Exception exception, long nextBackOff) {
    Optional<Duration> asked = retryAfter(exception);
    if (asked.isEmpty()) {
      return nextBackOff;
    }
    long askedMillis = ceilMillis(asked.get());
    if (askedMillis < nextBackOff) {
      return nextBackOff; // the back-off decided: no jitter
    }
    return askedMillis + jitterMillis();
  }

  /**
   * How long from now the first refusal in {@code exception}'s cause chain asked to wait, cut to
   * the retry delay limit: its {@code Retry-After}, or, when it announced that nothing remains of
   * its quota (SPEC R8: {@code RateLimit}, {@code X-RateLimit-Remaining} ...), the time to the
   * reset, whichever is longer; empty when there is no refusal, or it asks for neither.
   */
  public Optional<Duration> retryAfter(@Nullable Throwable exception) {
    RefusalReader.Found found = RefusalReader.find(exception);
    if (found == null) {
      return Optional.empty();
    }
    Optional<Duration> asked = found.retryAfter() == null ? Optional.empty()
        : RetryAfter.delay(found.retryAfter(), clock.instant());
    // A status such as 405 is a refusal only with Retry-After (SPEC R1); a Refusal is one whatever its status.
    if (!found.declared() && !refusalStatuses.isRefusal(found.status(), asked.isPresent())) {
      return Optional.empty();
    }
    Optional<Duration> spent = AnnouncedQuota.read(found.headers(), clock).waitWhenSpent();
    if (spent.isPresent() && (asked.isEmpty() || spent.get().compareTo(asked.get()) > 0)) {
      asked = spent;
    }
    return asked.map(delay -> delay.compareTo(retryDelayLimit) > 0 ? retryDelayLimit : delay);
  }

  private long jitterMillis() {
    if (jitterMaxMillis == jitterMinMillis) {
      return jitterMinMillis;
    }
    return random.nextLong(jitterMinMillis, jitterMaxMillis + 1);
  }

  /** Whole milliseconds, rounded up: the wait is never shorter than asked. */
  private static long ceilMillis(Duration delay) {
    long millis = delay.toMillis();
    return delay.minusMillis(millis).isZero() ? millis : millis + 1;
  }

  @Override
  public String toString() {
    return "RetryAfterBackOffHandler{jitter=" + jitterMinMillis + ".." + jitterMaxMillis + " ms, retryDelayLimit="
        + retryDelayLimit + ", refusalStatuses=" + refusalStatuses + ", delegate=" + delegate + "}";
  }

  /**
   * Builds a {@link RetryAfterBackOffHandler}; {@link #build()} copies, so a builder can be reused.
   * Every setter refuses null with a {@code NullPointerException} naming the argument, here
   * rather than later on a consumer thread.
   */
  public static final class Builder {
    private BackOffHandler delegate = new DefaultBackOffHandler();
    private Clock clock = Clock.system();
    private RandomGenerator random = CurrentThreadRandom.INSTANCE;
    private Duration jitterMin = Duration.ofMillis(100);
    private Duration jitterMax = Duration.ofMillis(2500);
    private Duration retryDelayLimit = Duration.ofSeconds(60);
    private RefusalStatuses refusalStatuses = RefusalStatuses.DEFAULT;

    private Builder() {}

    /**
     * What carries each wait out; a {@link DefaultBackOffHandler} (it sleeps on the consumer
     * thread, waking when the container stops) unless set.
     */
    public Builder delegate(BackOffHandler delegate) {
      this.delegate = Objects.requireNonNull(delegate, "delegate");
      return this;
    }

    /** The clock whose wall time an HTTP date is read against; {@link Clock#system()} unless set. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Where the jitter is drawn from, by {@link RandomGenerator#nextLong(long, long)}; unless
     * set, the calling thread's {@link ThreadLocalRandom}. One handler serves all the
     * container's consumer threads, so a source given here must be safe for them.
     */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The jitter added when {@code Retry-After} decided the wait: whole milliseconds from
     * {@code min} to {@code max}, both included; 100 ms to 2.5 s unless set. {@code jitter(ZERO,
     * ZERO)} adds none.
     */
    public Builder jitter(Duration min, Duration max) {
      Objects.requireNonNull(min, "min");
      Objects.requireNonNull(max, "max");
      if (min.isNegative()) {
        throw new IllegalArgumentException("jitter minimum must not be negative, got " + min);
      }
      if (max.compareTo(min) < 0) {
        throw new IllegalArgumentException("jitter maximum must be at least its minimum " + min + ", got " + max);
      }
      if (max.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("jitter maximum must be at most an hour, got " + max);
      }
      this.jitterMin = min;
      this.jitterMax = max;
      return this;
    }

    /** The longest wait a {@code Retry-After} may ask for; a longer one is cut to it. 60 s unless set. */
    public Builder retryDelayLimit(Duration limit) {
      Objects.requireNonNull(limit, "limit");
      if (limit.isNegative()) {
        throw new IllegalArgumentException("retry delay limit must not be negative, got " + limit);
      }
      if (limit.compareTo(Duration.ofDays(365)) > 0) {
        throw new IllegalArgumentException("retry delay limit must be at most a year, got " + limit);
      }
      this.retryDelayLimit = limit;
      return this;
    }

    /**
     * The statuses of Spring's client exceptions whose {@code Retry-After} is honoured; 429, 503
     * and 405 unless set (SPEC R1), a 405 only with {@code Retry-After}. A {@link Refusal} is
     * honoured whatever its status.
     *
     * @throws IllegalArgumentException naming a status that is not 400 to 599: only an error may
     *     be a refusal
     */
    public Builder refusalStatuses(Set<Integer> statuses) {
      Objects.requireNonNull(statuses, "statuses");
      Set<Integer> always = new LinkedHashSet<>(statuses);
      boolean with405 = always.remove(405);
      return refusalStatuses(RefusalStatuses.of(always, with405 ? Set.of(405) : Set.of()));
    }

    /**
     * The statuses that are refusals, as the engine takes them ({@code engine.refusalStatuses()}):
     * {@link RefusalStatuses#DEFAULT} unless set. A {@link Refusal} is honoured whatever its status.
     */
    public Builder refusalStatuses(RefusalStatuses statuses) {
      this.refusalStatuses = Objects.requireNonNull(statuses, "statuses");
      return this;
    }

    /** The handler. */
    public RetryAfterBackOffHandler build() {
      return new RetryAfterBackOffHandler(this);
    }
  }

  /** The calling thread's {@link ThreadLocalRandom}, so consumer threads never contend for one. */
  private enum CurrentThreadRandom implements RandomGenerator {
    INSTANCE;

    @Override
    public long nextLong() {
      return ThreadLocalRandom.current().nextLong();
    }

    @Override
    public long nextLong(long origin, long bound) {
      return ThreadLocalRandom.current().nextLong(origin, bound);
    }
  }
}

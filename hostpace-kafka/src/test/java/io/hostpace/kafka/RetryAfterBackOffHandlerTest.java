package io.hostpace.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.RefusalStatuses;
import io.hostpace.VirtualTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.function.LongBinaryOperator;
import java.util.random.RandomGenerator;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * SPEC I4: how long the next delivery waits after each kind of failure. The wall clock stands at
 * 2026-01-01T00:00:00Z (a Thursday), the back-off says 1000 ms, and the jitter draw is 740 ms
 * unless a test says otherwise.
 */
class RetryAfterBackOffHandlerTest {

  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  final VirtualTime time = VirtualTime.startingAt(0, NOW);
  final Recorder recorder = new Recorder();

  RetryAfterBackOffHandler.Builder handler() {
    return RetryAfterBackOffHandler.builder().clock(time).random(Draw.of(740)).delegate(recorder);
  }

  // ------------------------------------------------------------------ each kind of refusal

  @Test
  void I4_aTooManyRequestsFromRestClientWaitsRetryAfterPlusJitter() {
    Exception refused = listenerFailed(tooManyRequests("2"));

    assertThat(refused.getCause()).isInstanceOf(HttpClientErrorException.TooManyRequests.class);
    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(2000 + 740);
  }

  @Test
  void I4_aServiceUnavailableFromRestTemplateWaitsRetryAfterPlusJitter() {
    Exception refused = listenerFailed(serviceUnavailable("3"));

    assertThat(refused.getCause()).isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(3000 + 740);
  }

  @Test
  void I4_aTooManyRequestsFromWebClientWaitsRetryAfterPlusJitter() {
    Exception refused = listenerFailed(webClient(429, "1.5"));

    assertThat(refused.getCause()).isInstanceOf(WebClientResponseException.TooManyRequests.class);
    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(1500 + 740);
  }

  @Test
  void I4_aServiceUnavailableFromWebClientWaitsRetryAfterPlusJitter() {
    assertThat(handler().build().backOffFor(listenerFailed(webClient(503, "4")), 1000)).isEqualTo(4000 + 740);
  }

  @Test
  void I4_aMethodNotAllowedWithRetryAfterIsARefusal() {
    // SPEC R1: DBpedia answers an overload with a 405 that carries Retry-After.
    Exception refused = HttpClientErrorException.create(
        HttpStatus.METHOD_NOT_ALLOWED, "Method Not Allowed", retryAfter("2"), new byte[0], StandardCharsets.UTF_8);

    assertThat(handler().build().backOffFor(listenerFailed(refused), 1000)).isEqualTo(2000 + 740);
  }

  @Test
  void I4_anExceptionMarkedAsARefusalWaitsRetryAfterWhateverItsStatus() {
    Exception refused = listenerFailed(new QuotaExceeded(418, "2"));

    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(2000 + 740);
  }

  // ------------------------------------------------------------------ both forms of Retry-After

  @Test
  void I4_retryAfterInDeltaSecondsMayCarryAFractionAndIsRoundedUpToWholeMilliseconds() {
    RetryAfterBackOffHandler handler = handler().jitter(Duration.ZERO, Duration.ZERO).build();

    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("2")), 1000)).isEqualTo(2000);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("2.25")), 1000)).isEqualTo(2250);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("1.0001")), 1000)).isEqualTo(1001);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests(" 7 ")), 1000)).isEqualTo(7000);
  }

  @Test
  void I4_retryAfterAsAnHttpDateInEachOfItsThreeFormsIsReadAgainstTheClock() {
    RetryAfterBackOffHandler handler = handler().build();

    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("Thu, 01 Jan 2026 00:00:03 GMT")), 1000))
        .as("IMF-fixdate").isEqualTo(3000 + 740);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("Thursday, 01-Jan-26 00:00:04 GMT")), 1000))
        .as("RFC 850").isEqualTo(4000 + 740);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("Thu Jan  1 00:00:05 2026")), 1000))
        .as("asctime").isEqualTo(5000 + 740);
  }

  @Test
  void I4_anHttpDateIsMeasuredFromTheClockWhenTheHandlerDecides() {
    RetryAfterBackOffHandler handler = handler().build();
    Exception refused = listenerFailed(tooManyRequests("Thu, 01 Jan 2026 00:00:10 GMT"));

    assertThat(handler.backOffFor(refused, 1000)).isEqualTo(10_000 + 740);
    time.advance(Duration.ofMillis(7500));
    assertThat(handler.backOffFor(refused, 1000)).isEqualTo(2500 + 740);
  }

  @Test
  void I4_anHttpDateInThePastMeansNowSoTheBackOffDecides() {
    Exception refused = listenerFailed(tooManyRequests("Wed, 31 Dec 2025 23:59:00 GMT"));

    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(1000);
  }

  @Test
  void I4_aRetryAfterOfZeroWithNoBackOffStillGetsJitter() {
    // Retry-After decided (0 ≥ 0): the consumers told "now" are spread all the same.
    assertThat(handler().build().backOffFor(listenerFailed(tooManyRequests("0")), 0)).isEqualTo(740);
  }

  // ------------------------------------------------------------------ max(Retry-After, back-off)

  @Test
  void I4_theBackOffDecidesWhenItIsLongerAndThenAddsNoJitter() {
    RetryAfterBackOffHandler handler = handler().build();

    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("2")), 5000)).isEqualTo(5000);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("0.5")), 1000)).isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("1")), 1000)).as("a tie: Retry-After decides")
        .isEqualTo(1000 + 740);
  }

  @Test
  void I4_aLongRetryAfterIsCutToTheRetryDelayLimit() {
    assertThat(handler().build().backOffFor(listenerFailed(tooManyRequests("3600")), 1000))
        .isEqualTo(60_000 + 740);
    assertThat(handler().retryDelayLimit(Duration.ofSeconds(5)).build()
        .backOffFor(listenerFailed(tooManyRequests("3600")), 1000)).isEqualTo(5000 + 740);
  }

  // ------------------------------------------------------------------ unwrapping

  @Test
  void I4_aRefusalIsFoundAnywhereInTheCauseChain() {
    RetryAfterBackOffHandler handler = handler().build();
    Exception deep = new ListenerExecutionFailedException("listener failed",
        new IllegalStateException("while enriching", new CompletionException(tooManyRequests("2"))));

    assertThat(handler.backOffFor(tooManyRequests("2"), 1000)).as("unwrapped already").isEqualTo(2740);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("2")), 1000)).as("one wrapper").isEqualTo(2740);
    assertThat(handler.backOffFor(deep, 1000)).as("three wrappers").isEqualTo(2740);
  }

  @Test
  void I4_theOutermostRefusalOfTheChainCounts() {
    Exception both = new QuotaExceeded(429, "3");
    both.initCause(tooManyRequests("9"));

    assertThat(handler().build().backOffFor(listenerFailed(both), 1000)).isEqualTo(3000 + 740);
  }

  @Test
  void I4_aCauseChainWithACycleEndsWithoutARefusal() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);

    assertThat(handler().build().backOffFor(listenerFailed(a), 1000)).isEqualTo(1000);
  }

  // ------------------------------------------------------------------ passing the back-off through

  @Test
  void I4_anythingButARefusalWithRetryAfterWaitsExactlyTheBackOff() {
    RetryAfterBackOffHandler handler = handler().build();
    Exception serverError = HttpServerErrorException.create(
        HttpStatus.INTERNAL_SERVER_ERROR, "Internal Server Error", retryAfter("30"), new byte[0], StandardCharsets.UTF_8);
    Exception notFound = HttpClientErrorException.create(
        HttpStatus.NOT_FOUND, "Not Found", retryAfter("30"), new byte[0], StandardCharsets.UTF_8);

    assertThat(handler.backOffFor(listenerFailed(serverError), 1000)).as("500 with Retry-After").isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(notFound), 1000)).as("404 with Retry-After").isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(webClient(500, "30")), 1000)).as("WebClient 500").isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests(null)), 1000)).as("429 without").isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("soon")), 1000)).as("429 junk").isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(tooManyRequests("-5")), 1000)).as("429 negative").isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(new QuotaExceeded(429, null)), 1000)).as("Refusal without")
        .isEqualTo(1000);
    assertThat(handler.backOffFor(listenerFailed(new IllegalStateException("boom")), 1000)).isEqualTo(1000);
    assertThat(handler.backOffFor(null, 1000)).as("no exception").isEqualTo(1000);
  }

  @Test
  void I4_refusalStatusesAreConfigurable() {
    RetryAfterBackOffHandler only429 = handler().refusalStatuses(Set.of(429)).build();

    assertThat(only429.backOffFor(listenerFailed(serviceUnavailable("3")), 1000)).isEqualTo(1000);
    assertThat(only429.backOffFor(listenerFailed(webClient(503, "3")), 1000)).isEqualTo(1000);
    assertThat(only429.backOffFor(listenerFailed(tooManyRequests("3")), 1000)).isEqualTo(3740);
    assertThat(only429.backOffFor(listenerFailed(new QuotaExceeded(503, "3")), 1000)).as("a Refusal is declared")
        .isEqualTo(3740);
  }

  // ------------------------------------------------------------------ jitter

  @Test
  void I4_jitterIsDrawnFrom100MillisecondsTo2500BothIncludedByDefault() {
    RetryAfterBackOffHandler lowest = handler().random(Draw.lowest()).build();
    RetryAfterBackOffHandler highest = handler().random(Draw.highest()).build();
    Exception refused = listenerFailed(tooManyRequests("2"));

    assertThat(lowest.backOffFor(refused, 1000)).isEqualTo(2000 + 100);
    assertThat(highest.backOffFor(refused, 1000)).isEqualTo(2000 + 2500);
  }

  @Test
  void I4_jitterStaysWithinItsBoundsOverManyDraws() {
    RetryAfterBackOffHandler handler = handler().random(new SplittableRandom(7)).build();
    Exception refused = listenerFailed(tooManyRequests("2"));
    long least = Long.MAX_VALUE;
    long most = Long.MIN_VALUE;
    for (int i = 0; i < 10_000; i++) {
      long wait = handler.backOffFor(refused, 1000);
      least = Math.min(least, wait);
      most = Math.max(most, wait);
    }

    assertThat(least).isBetween(2100L, 2110L);
    assertThat(most).isBetween(4490L, 4500L);
  }

  @Test
  void I4_jitterBoundsAreConfigurable() {
    Exception refused = listenerFailed(tooManyRequests("2"));

    assertThat(handler().jitter(Duration.ZERO, Duration.ZERO).build().backOffFor(refused, 1000)).isEqualTo(2000);
    assertThat(handler().jitter(Duration.ofMillis(300), Duration.ofMillis(300)).build().backOffFor(refused, 1000))
        .isEqualTo(2300);
    RetryAfterBackOffHandler narrow = handler().random(new SplittableRandom(3))
        .jitter(Duration.ofMillis(50), Duration.ofMillis(60)).build();
    for (int i = 0; i < 1000; i++) {
      assertThat(narrow.backOffFor(refused, 1000)).isBetween(2050L, 2060L);
    }
  }

  @Test
  void I4_noJitterIsDrawnWhenRetryAfterDidNotDecide() {
    Draw draw = Draw.of(740);
    RetryAfterBackOffHandler handler = handler().random(draw).build();

    handler.backOffFor(listenerFailed(tooManyRequests("2")), 5000);
    handler.backOffFor(listenerFailed(new IllegalStateException()), 1000);
    assertThat(draw.draws).isZero();
    handler.backOffFor(listenerFailed(tooManyRequests("2")), 1000);
    assertThat(draw.draws).isOne();
  }

  // ------------------------------------------------------------------ the delegate

  @Test
  void I4_theDecidedWaitGoesToTheDelegateWithTheContainerAndTheException() {
    RetryAfterBackOffHandler handler = handler().build();
    Exception refused = listenerFailed(tooManyRequests("2"));
    Exception other = listenerFailed(new IllegalStateException());

    handler.onNextBackOff(null, refused, 1000);
    handler.onNextBackOff(null, other, 1000);

    assertThat(recorder.waits).containsExactly("2740 " + refused.getMessage(), "1000 " + other.getMessage());
  }

  @Test
  void I4_aPartitionsBackOffPassesThroughUnchanged() {
    RetryAfterBackOffHandler handler = handler().build();

    handler.onNextBackOff(null, new TopicPartition("orders", 3), 1000);

    assertThat(recorder.waits).containsExactly("1000 orders-3");
  }

  @Test
  void I4_retryAfterSaysWhatTheRefusalAskedWithoutTheBackOff() {
    RetryAfterBackOffHandler handler = handler().build();

    assertThat(handler.retryAfter(listenerFailed(tooManyRequests("1.5")))).contains(Duration.ofMillis(1500));
    assertThat(handler.retryAfter(listenerFailed(tooManyRequests(null)))).isEmpty();
    assertThat(handler.retryAfter(new IllegalStateException())).isEmpty();
  }

  @Test
  void I4_badSettingsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> RetryAfterBackOffHandler.builder().jitter(Duration.ofMillis(-1), Duration.ZERO))
        .hasMessage("jitter minimum must not be negative, got PT-0.001S");
    assertThatThrownBy(() -> RetryAfterBackOffHandler.builder().jitter(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessage("jitter maximum must be at least its minimum PT2S, got PT1S");
    assertThatThrownBy(() -> RetryAfterBackOffHandler.builder().retryDelayLimit(Duration.ofSeconds(-1)))
        .hasMessage("retry delay limit must not be negative, got PT-1S");
    assertThatThrownBy(() -> RetryAfterBackOffHandler.builder().refusalStatuses(Set.of(99)))
        .hasMessage("refusal status must be an error, 400 to 599, got 99");
    assertThatThrownBy(() -> RetryAfterBackOffHandler.builder().refusalStatuses(Set.of(200)))
        .hasMessage("refusal status must be an error, 400 to 599, got 200");
  }

  @Test
  void I4_nullSettingsAreRefusedAtTheBuilderNamingThem() {
    RetryAfterBackOffHandler.Builder builder = RetryAfterBackOffHandler.builder();
    assertThatThrownBy(() -> builder.delegate(null)).isInstanceOf(NullPointerException.class).hasMessage("delegate");
    assertThatThrownBy(() -> builder.clock(null)).isInstanceOf(NullPointerException.class).hasMessage("clock");
    assertThatThrownBy(() -> builder.random(null)).isInstanceOf(NullPointerException.class).hasMessage("random");
    assertThatThrownBy(() -> builder.refusalStatuses((RefusalStatuses) null))
        .isInstanceOf(NullPointerException.class).hasMessage("statuses");
    assertThat(builder.build().backOffFor(listenerFailed(tooManyRequests("2")), 1000)).isGreaterThanOrEqualTo(2000);
  }

  @Test
  void I4_aRefusalOfTheApplicationsOwnThatGivesNullForItsHeadersHasNone() {
    Refusal nulls = new Refusal() {
      @Override
      public int status() {
        return 429;
      }

      @Override
      public Optional<String> retryAfter() {
        return null;
      }

      @Override
      public Optional<String> header(String name) {
        return null;
      }
    };
    Exception refused = listenerFailed(new DeclaredRefusal(nulls));

    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(1000);
    assertThat(handler().build().retryAfter(refused)).isEmpty();
  }

  // ------------------------------------------------------------------ announced quotas (R8)

  static HttpClientErrorException tooManyRequestsAnnouncing(@Nullable String retryAfter, String rateLimit) {
    HttpHeaders headers = retryAfter(retryAfter);
    headers.set("RateLimit", rateLimit);
    return HttpClientErrorException.create(
        HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", headers, new byte[0], StandardCharsets.UTF_8);
  }

  @Test
  void R8_aRefusalThatAnnouncesNothingRemainingWaitsForTheResetPlusJitter() {
    Exception refused = listenerFailed(tooManyRequestsAnnouncing(null, "\"default\";r=0;t=30"));
    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(30_000 + 740);
  }

  @Test
  void R8_theLongerOfRetryAfterAndTheAnnouncedResetCountsAndSomethingRemainingAsksForNothing() {
    assertThat(handler().build().backOffFor(tooManyRequestsAnnouncing("2", "\"default\";r=0;t=30"), 1000))
        .isEqualTo(30_000 + 740);
    assertThat(handler().build().backOffFor(tooManyRequestsAnnouncing("45", "\"default\";r=0;t=30"), 1000))
        .isEqualTo(45_000 + 740);
    assertThat(handler().build().backOffFor(tooManyRequestsAnnouncing(null, "\"default\";r=3;t=30"), 1000))
        .isEqualTo(1000);
  }

  @Test
  void R8_aDeclaredRefusalAnnouncesThroughItsHeaders() {
    Refusal quota = new Refusal() {
      @Override
      public int status() {
        return 429;
      }

      @Override
      public java.util.Optional<String> retryAfter() {
        return java.util.Optional.empty();
      }

      @Override
      public java.util.Optional<String> header(String name) {
        return name.equalsIgnoreCase("X-RateLimit-Remaining") ? java.util.Optional.of("0")
            : name.equalsIgnoreCase("X-RateLimit-Reset") ? java.util.Optional.of("12") : java.util.Optional.empty();
      }
    };
    Exception refused = new ListenerExecutionFailedException("failed", (Throwable) new DeclaredRefusal(quota));
    assertThat(handler().build().backOffFor(refused, 1000)).isEqualTo(12_000 + 740);
  }

  /** An exception of the caller's own that says it is a refusal. */
  static final class DeclaredRefusal extends RuntimeException implements Refusal {
    private final Refusal said;

    DeclaredRefusal(Refusal said) {
      super("refused");
      this.said = said;
    }

    @Override
    public int status() {
      return said.status();
    }

    @Override
    public java.util.Optional<String> retryAfter() {
      return said.retryAfter();
    }

    @Override
    public java.util.Optional<String> header(String name) {
      return said.header(name);
    }
  }

  // ------------------------------------------------------------------ helpers

  static Exception listenerFailed(Throwable cause) {
    return new ListenerExecutionFailedException("Listener failed: " + cause, cause);
  }

  static HttpHeaders retryAfter(@Nullable String value) {
    HttpHeaders headers = new HttpHeaders();
    if (value != null) {
      headers.set(HttpHeaders.RETRY_AFTER, value);
    }
    return headers;
  }

  static HttpClientErrorException tooManyRequests(@Nullable String retryAfter) {
    return HttpClientErrorException.create(
        HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", retryAfter(retryAfter), new byte[0], StandardCharsets.UTF_8);
  }

  static HttpServerErrorException serviceUnavailable(String retryAfter) {
    return HttpServerErrorException.create(
        HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable", retryAfter(retryAfter), new byte[0],
        StandardCharsets.UTF_8);
  }

  static WebClientResponseException webClient(int status, String retryAfter) {
    return WebClientResponseException.create(status, "refused", retryAfter(retryAfter), new byte[0],
        StandardCharsets.UTF_8);
  }

  /** An application's own exception for a refusal. */
  static final class QuotaExceeded extends RuntimeException implements Refusal {
    private final int status;
    private final @Nullable String retryAfter;

    QuotaExceeded(int status, @Nullable String retryAfter) {
      super("quota exceeded: " + status);
      this.status = status;
      this.retryAfter = retryAfter;
    }

    @Override
    public int status() {
      return status;
    }

    @Override
    public Optional<String> retryAfter() {
      return Optional.ofNullable(retryAfter);
    }
  }

  /** A random source that draws what it is told, asserting it lies within the bounds it is asked for. */
  static final class Draw implements RandomGenerator {
    private final LongBinaryOperator pick; // (origin, bound) -> the draw
    int draws;

    private Draw(LongBinaryOperator pick) {
      this.pick = pick;
    }

    static Draw of(long value) {
      return new Draw((origin, bound) -> value);
    }

    static Draw lowest() {
      return new Draw((origin, bound) -> origin);
    }

    static Draw highest() {
      return new Draw((origin, bound) -> bound - 1);
    }

    @Override
    public long nextLong(long origin, long bound) {
      draws++;
      long value = pick.applyAsLong(origin, bound);
      assertThat(value).isGreaterThanOrEqualTo(origin).isLessThan(bound);
      return value;
    }

    @Override
    public long nextLong() {
      throw new UnsupportedOperationException("the handler draws with nextLong(origin, bound)");
    }
  }

  /** A delegate that writes down each wait it is handed: "millis exception-message" or "millis partition". */
  static final class Recorder implements BackOffHandler {
    final List<String> waits = new ArrayList<>();

    @Override
    public void onNextBackOff(@Nullable MessageListenerContainer container, @Nullable Exception exception,
        long nextBackOff) {
      waits.add(nextBackOff + " " + (exception == null ? "-" : exception.getMessage()));
    }

    @Override
    public void onNextBackOff(MessageListenerContainer container, TopicPartition partition, long nextBackOff) {
      waits.add(nextBackOff + " " + partition);
    }
  }
}

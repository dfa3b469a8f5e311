package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BoundedBody} on its own, fed by hand: what reaches the reader around a cut, and what the
 * subscription is told (SPEC T7). The deadlines here are far off or already past, so no test
 * waits on the clock.
 */
class BoundedBodyTest {

  final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  final AtomicBoolean cancelled = new AtomicBoolean();
  final AtomicLong requested = new AtomicLong();
  final Flow.Subscription subscription = new Flow.Subscription() {
    @Override
    public void request(long n) {
      requested.addAndGet(n);
    }

    @Override
    public void cancel() {
      cancelled.set(true);
    }
  };

  BoundedBodyTest() {
    timer.setRemoveOnCancelPolicy(true);
  }

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  static ResponseInfo answer(int status, Map<String, List<String>> headers) {
    return new ResponseInfo() {
      @Override
      public int statusCode() {
        return status;
      }

      @Override
      public HttpHeaders headers() {
        return HttpHeaders.of(headers, (name, value) -> true);
      }

      @Override
      public HttpClient.Version version() {
        return HttpClient.Version.HTTP_1_1;
      }
    };
  }

  BoundedBody<byte[]> body(ResponseInfo info, boolean head, Duration untilDeadline, long maxBody) {
    BodySubscriber<byte[]> reader = BodySubscribers.ofByteArray();
    return new BoundedBody<>(reader, info, head, System.nanoTime() + untilDeadline.toNanos(), "--timeout 60 s",
        maxBody, timer, cut -> {});
  }

  static List<ByteBuffer> bytes(int n) {
    return List.of(ByteBuffer.wrap(new byte[n]));
  }

  static BodyCutException cutOf(BoundedBody<byte[]> body) {
    try {
      body.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return (BodyCutException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("the body was not cut");
  }

  @Test
  void aBodyWithinItsLimitsReachesTheReaderWholeAndTakesItsDeadlineOffTheTimer() throws Exception {
    BoundedBody<byte[]> body = body(answer(200, Map.of("Content-Length", List.of("5"))), false, Duration.ofMinutes(1), 5);
    body.onSubscribe(subscription);
    assertThat(timer.getQueue()).hasSize(1);
    body.onNext(bytes(3));
    body.onNext(bytes(2));
    body.onComplete();

    assertThat(body.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS)).hasSize(5);
    assertThat(cancelled).isFalse();
    assertThat(timer.getQueue()).isEmpty();
  }

  /** A reader that writes down each signal it gets. */
  static final class Recording implements BodySubscriber<Void> {
    final List<String> signals = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public java.util.concurrent.CompletionStage<Void> getBody() {
      return new java.util.concurrent.CompletableFuture<>();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      signals.add("subscribe");
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      signals.add("next " + item.get(0).remaining());
    }

    @Override
    public void onError(Throwable throwable) {
      signals.add("error " + throwable.getMessage());
    }

    @Override
    public void onComplete() {
      signals.add("complete");
    }
  }

  @Test
  void pastTheCapTheSubscriptionIsCancelledTheReaderFailsOnceAndNothingFollows() {
    Recording reader = new Recording();
    BoundedBody<Void> body = new BoundedBody<>(reader, answer(200, Map.of()), false,
        System.nanoTime() + Duration.ofMinutes(1).toNanos(), "--timeout 60 s", 4, timer, cut -> {});
    body.onSubscribe(subscription);
    body.onNext(bytes(3));
    body.onNext(bytes(3));
    body.onNext(bytes(3)); // the client may still deliver what it had
    body.onError(new java.io.IOException("closed"));
    body.onComplete();

    assertThat(reader.signals).containsExactly("subscribe", "next 3",
        "error body too large: more than --max-body 4 bytes (4 bytes) came; the rest was not read");
    assertThat(cancelled).isTrue();
    assertThat(timer.getQueue()).isEmpty();

    BoundedBody<byte[]> counted = body(answer(200, Map.of()), false, Duration.ofMinutes(1), 4);
    counted.onSubscribe(subscription);
    counted.onNext(bytes(6));
    BodyCutException cut = cutOf(counted);
    assertThat(cut.bytes()).isEqualTo(6);
    assertThat(cut.status()).isEqualTo(200);
  }

  @Test
  void aDeadlineAlreadyPastCutsTheBodyWithWhatHadCome() {
    BoundedBody<byte[]> body = body(answer(206, Map.of("Content-Length", List.of("10"))), false, Duration.ofSeconds(-1), 100);
    body.onSubscribe(subscription);

    BodyCutException cut = cutOf(body);
    assertThat(cut).hasMessage("timeout: the body was not complete within --timeout 60 s: 0 of 10 bytes had come");
    assertThat(cut.status()).isEqualTo(206);
    assertThat(cancelled).isTrue();
  }

  @Test
  void aDeclaredLengthOverTheCapIsCutBeforeAByteButNotForAHeadOrA304() {
    Map<String, List<String>> huge = Map.of("Content-Length", List.of("1073741824"));
    BoundedBody<byte[]> body = body(answer(200, huge), false, Duration.ofMinutes(1), 1024);
    body.onSubscribe(subscription);
    assertThat(cutOf(body)).hasMessage("body too large: the server declared 1073741824 bytes, over --max-body 1 KiB "
        + "(1024 bytes); none was read");
    assertThat(cancelled.getAndSet(false)).isTrue();

    for (BoundedBody<byte[]> bodiless : List.of(body(answer(200, huge), true, Duration.ofMinutes(1), 1024),
        body(answer(304, huge), false, Duration.ofMinutes(1), 1024))) {
      bodiless.onSubscribe(subscription);
      bodiless.onComplete();
      assertThat(bodiless.getBody().toCompletableFuture().join()).isEmpty();
      assertThat(cancelled).isFalse();
    }
  }

  @Test
  void aBodyThatComesAfterTheRunEndedIsCutAtOnce() {
    timer.shutdownNow();
    BoundedBody<byte[]> body = body(answer(200, Map.of()), false, Duration.ofMinutes(1), 1024);
    body.onSubscribe(subscription);

    assertThat(cutOf(body)).hasMessage("the run ended before the body was read");
    assertThat(cancelled).isTrue();
    assertThatThrownBy(() -> body.getBody().toCompletableFuture().join()).hasCauseInstanceOf(BodyCutException.class);
  }
}

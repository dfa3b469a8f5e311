package io.hostpace.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.Hostpace;
import io.hostpace.testkit.RawServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * SPEC T7: a body cut at its deadline or its cap says what of it had come: the answer's status,
 * the bytes, the declared length. The subscriber is fed by hand, with deadlines far off or
 * already past, so that no test waits on the clock.
 */
class BodyCutTest {

  final AtomicBoolean cancelled = new AtomicBoolean();
  final Flow.Subscription subscription = new Flow.Subscription() {
    @Override
    public void request(long n) {}

    @Override
    public void cancel() {
      cancelled.set(true);
    }
  };

  static BoundedSubscriber<byte[]> body(Duration untilDeadline, long maxBytes, int status, long contentLength) {
    BodySubscriber<byte[]> reader = BodySubscribers.ofByteArray();
    return new BoundedSubscriber<>(reader, "GET http://127.0.0.1/a", Duration.ofMinutes(1), untilDeadline.toNanos(), false,
        maxBytes, status, contentLength);
  }

  static Throwable failureOf(BoundedSubscriber<byte[]> body) throws Exception {
    try {
      body.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the body was not cut");
  }

  @Test
  void T7_aBodyPastTheCapFailsWithWhatHadComeAndTheCap() throws Exception {
    BoundedSubscriber<byte[]> body = body(Duration.ofMinutes(1), 4, 206, 4);
    body.onSubscribe(subscription);
    body.onNext(List.of(ByteBuffer.wrap(new byte[3])));
    body.onNext(List.of(ByteBuffer.wrap(new byte[3])));

    Throwable failure = failureOf(body);
    assertThat(failure).isInstanceOf(BodyTooLargeException.class).isNotInstanceOf(HttpTimeoutException.class)
        .hasMessage("GET http://127.0.0.1/a: the body passes its cap of 4 bytes: 6 bytes came");
    BodyTooLargeException cut = (BodyTooLargeException) failure;
    assertThat(cut.cut()).isEqualTo(new BodyCut(206, 6, 4));
    assertThat(cut.maxBytes()).isEqualTo(4);
    assertThat(cut.declaredOver()).isFalse();
    assertThat(cancelled).isTrue();
  }

  @Test
  void T7_aDeclaredLengthOverTheCapFailsBeforeAByteIsRead() throws Exception {
    BoundedSubscriber<byte[]> body = body(Duration.ofMinutes(1), 1024, 200, 1L << 30);
    body.onSubscribe(subscription);

    BodyTooLargeException cut = (BodyTooLargeException) failureOf(body);
    assertThat(cut).hasMessage("GET http://127.0.0.1/a: the body passes its cap of 1024 bytes: its Content-Length is 1073741824");
    assertThat(cut.cut()).isEqualTo(new BodyCut(200, 0, 1L << 30));
    assertThat(cut.declaredOver()).isTrue();
    assertThat(cancelled).isTrue();
  }

  @Test
  void T7_aDeadlineAlreadyPastCutsTheBodyAsATimeoutWithWhatHadCome() throws Exception {
    BoundedSubscriber<byte[]> body = body(Duration.ofNanos(1), Long.MAX_VALUE, 200, -1);
    body.onSubscribe(subscription);

    Throwable failure = failureOf(body);
    assertThat(failure).isInstanceOf(BodyTimeoutException.class)
        .hasMessage("GET http://127.0.0.1/a: the answer was not read whole within the request's timeout of PT1M");
    assertThat(((BodyTimeoutException) failure).cut()).isEqualTo(new BodyCut(200, 0, -1));
  }

  @Test
  void T7_aCutOfImpossibleValuesIsRefusedWithTheValue() {
    assertThatThrownBy(() -> new BodyCut(42, 0, -1)).hasMessage("status is 42: expected an HTTP status of three digits");
    assertThatThrownBy(() -> new BodyCut(200, -1, -1)).hasMessage("bytes is -1: expected 0 or more bytes of body");
  }

  @Test
  void T7_theLengthAHeadsAnswerDeclaresIsOfABodyItDoesNotCarryAndIsNotCapped() throws Exception {
    try (RawServer raw = RawServer.start()) {
      raw.script("/big", "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n");
      PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), Hostpace.create()).withMaxBodyBytes(1024);

      HttpResponse<String> answer = client.send(HttpRequest.newBuilder(raw.uri("/big"))
          .method("HEAD", HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
          BodyHandlers.ofString());

      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(answer.body()).isEmpty();
    }
  }
}

package io.hostpace.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * How the proxy holds a request's body ({@link ProxyHandler#readBody}, {@link ProxyHandler#publisher}):
 * in arrays of its own, none longer than {@link ProxyHandler#CHUNK_BYTES}, never read past the cap
 * and a byte, and published as they are, whole and with their length, on every subscription: the
 * engine subscribes again for each attempt of a refused request.
 */
class ProxyBodyTest {

  private static final int CHUNK = ProxyHandler.CHUNK_BYTES;
  private static final int CAP = 16 * CHUNK + 7;

  @Test
  void aBodyIsReadWholeIntoArraysOfAtMostAChunkTheLengthDeclaredOrNot() throws IOException {
    for (int length : new int[] {0, 1, ProxyHandler.FIRST_CHUNK_BYTES, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 123,
        CAP - 1, CAP}) {
      byte[] body = bytes(length, length);
      for (long declared : new long[] {length, -1}) {
        List<byte[]> read = ProxyHandler.readBody(new ByteArrayInputStream(body), declared, CAP);
        assertThat(read).as("%d bytes, declared %d", length, declared).isNotNull();
        assertThat(joined(read)).as("%d bytes, declared %d", length, declared).isEqualTo(body);
        assertThat(read).as("%d bytes, declared %d: its arrays", length, declared)
            .allSatisfy(chunk -> assertThat(chunk.length).isBetween(1, CHUNK));
        assertThat(read.size()).as("%d bytes, declared %d: how many arrays", length, declared)
            .isLessThanOrEqualTo((length + CHUNK - 1) / CHUNK + (declared < 0 ? 1 : 0));
      }
    }
  }

  @Test
  void aBodyOfUnknownLengthOverTheCapIsReadToTheCapAndAByteAndNoFurther() throws IOException {
    for (int length : new int[] {CAP + 1, CAP + CHUNK + 5}) {
      ByteArrayInputStream in = new ByteArrayInputStream(bytes(length, 1));
      assertThat(ProxyHandler.readBody(in, -1, CAP)).as("%d bytes", length).isNull();
      assertThat(in.available()).as("%d bytes: left to be swallowed", length).isEqualTo(length - CAP - 1);
    }
    assertThat(ProxyHandler.readBody(new ByteArrayInputStream(new byte[1]), -1, 0)).as("a cap of 0").isNull();
    assertThat(ProxyHandler.readBody(new ByteArrayInputStream(new byte[0]), -1, 0)).as("a cap of 0").isEmpty();
  }

  @Test
  void theBodyIsPublishedWholeWithItsLengthOnEverySubscriptionSoARetrySendsItAgain() throws IOException {
    byte[] body = bytes(3 * CHUNK + 123, 2);
    List<byte[]> read = ProxyHandler.readBody(new ByteArrayInputStream(body), -1, CAP);
    assertThat(read).isNotNull();
    HttpRequest.BodyPublisher publisher = ProxyHandler.publisher(read);

    assertThat(publisher.contentLength()).as("a Content-Length, not chunks").isEqualTo(body.length);
    assertThat(published(publisher)).as("the first attempt").isEqualTo(body);
    assertThat(published(publisher)).as("a second subscription, as for a retry").isEqualTo(body);
    assertThat(published(publisher)).as("and a third").isEqualTo(body);
  }

  @Test
  void noBodyIsPublishedAsNone() {
    assertThat(ProxyHandler.publisher(List.of()).contentLength()).isZero();
  }

  /** What {@code publisher} publishes to one subscriber that asks for everything. */
  private static byte[] published(HttpRequest.BodyPublisher publisher) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CompletableFuture<byte[]> done = new CompletableFuture<>();
    publisher.subscribe(new Flow.Subscriber<ByteBuffer>() {
      @Override
      public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
      }

      @Override
      public void onNext(ByteBuffer item) {
        byte[] next = new byte[item.remaining()];
        item.get(next);
        bytes.write(next, 0, next.length);
      }

      @Override
      public void onError(Throwable throwable) {
        done.completeExceptionally(throwable);
      }

      @Override
      public void onComplete() {
        done.complete(bytes.toByteArray());
      }
    });
    return done.join();
  }

  private static byte[] joined(List<byte[]> chunks) {
    ByteArrayOutputStream joined = new ByteArrayOutputStream();
    chunks.forEach(chunk -> joined.write(chunk, 0, chunk.length));
    return joined.toByteArray();
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}

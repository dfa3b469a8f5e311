package io.hostpace.cli;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Flow;

/** Reads a body and keeps only its length: {@code fetch} reports bytes, and a large body costs no memory. */
final class ByteCounter implements Flow.Subscriber<List<ByteBuffer>> {

  static final HttpResponse.BodyHandler<Long> HANDLER =
      info -> HttpResponse.BodySubscribers.fromSubscriber(new ByteCounter(), ByteCounter::count);

  private volatile long count;

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    subscription.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    long sum = count;
    for (ByteBuffer buffer : buffers) {
      sum += buffer.remaining();
    }
    count = sum;
  }

  @Override
  public void onError(Throwable throwable) {}

  @Override
  public void onComplete() {}

  long count() {
    return count;
  }
}

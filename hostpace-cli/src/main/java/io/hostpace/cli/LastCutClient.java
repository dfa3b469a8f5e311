package io.hostpace.cli;

import io.hostpace.jdk.ForwardingHttpClient;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The client one query of {@code sparql} is sent through: the installed, paced one, which also
 * keeps how the body of its last exchange was cut: at {@code --timeout} or {@code --max-body}
 * (SPEC T7), or by the connection, closed or reset before the body was whole. Jena's results
 * parsers may report a body that fails mid-document as a syntax error at the last byte they had,
 * and drop the cause, or, for JSON, as the same end of input a whole but truncated document
 * gives; {@link #lastCut()} still says what ended it. A query sends one exchange at a time, so
 * its last is the one that failed it.
 */
final class LastCutClient extends ForwardingHttpClient {

  /** How many exchanges were sent: the number of the last. */
  private final AtomicLong sends = new AtomicLong();
  /** How the last exchange's body was cut; null when it came whole (or has not yet). */
  private volatile @Nullable IOException lastCut;

  LastCutClient(HttpClient installed) {
    super(installed);
  }

  /** How the body of the last exchange sent was cut, or null; the cut of an earlier one does not count. */
  @Nullable IOException lastCut() {
    return lastCut;
  }

  /** {@code handler}, its body's cut noted if it is this client's last exchange's. */
  private <T> BodyHandler<T> noting(BodyHandler<T> handler) {
    long send = sends.incrementAndGet();
    lastCut = null;
    return info -> new Noting<>(handler.apply(info), cut -> {
      if (sends.get() == send) {
        lastCut = cut;
      }
    });
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler) throws IOException, InterruptedException {
    return delegate().send(request, noting(handler));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
    return delegate().sendAsync(request, noting(handler));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
      @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    return delegate().sendAsync(request, noting(handler), pushPromiseHandler);
  }

  /** A body subscriber that hands every signal on, and a cut, before it does, to {@code onCut}. */
  private record Noting<T>(BodySubscriber<T> reader, java.util.function.Consumer<IOException> onCut)
      implements BodySubscriber<T> {

    @Override
    public CompletionStage<T> getBody() {
      return reader.getBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      reader.onSubscribe(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      reader.onNext(item);
    }

    @Override
    public void onError(Throwable failure) {
      if (failure instanceof IOException cut) {
        onCut.accept(cut);
      }
      reader.onError(failure);
    }

    @Override
    public void onComplete() {
      reader.onComplete();
    }
  }
}

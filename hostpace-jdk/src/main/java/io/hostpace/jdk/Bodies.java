package io.hostpace.jdk;

import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Flow;

/**
 * Whether a request's body can be sent again (SPEC T4). The JDK's publishers do not say, so
 * they are told apart by class: those that produce their body anew on every subscription are
 * replayable, the others are sent once. A caller can say it for any publisher with
 * {@link PacedHttpClient#replayable} or {@link PacedHttpClient#oneShot}.
 *
 * <pre>
 *   no body, noBody()            EmptyPublisher        replayable
 *   ofString(...)                StringPublisher       replayable: copies its bytes per subscription
 *   ofByteArray(...)             ByteArrayPublisher    replayable: likewise
 *   ofByteArrays(iterable)       IterablePublisher     replayable: asks the Iterable for a new iterator
 *   ofFile(path)                 FilePublisher         replayable: opens the file again
 *   ofInputStream(supplier)      InputStreamPublisher  one-shot: the supplier may hand out the same stream
 *   fromPublisher(publisher)     PublisherAdapter      one-shot: a stream we know nothing of
 *   concat(a, b, ...)            AggregatePublisher    one-shot (concat of none or one is that one)
 *   any other publisher                                one-shot
 * </pre>
 *
 * The class names are those of {@code jdk.internal.net.http.RequestPublishers} in JDK 17 to 25.
 */
final class Bodies {

  private static final String JDK = "jdk.internal.net.http.RequestPublishers$";

  private static final Set<String> REPLAYABLE = Set.of(
      JDK + "EmptyPublisher",
      JDK + "StringPublisher",
      JDK + "ByteArrayPublisher",
      JDK + "IterablePublisher",
      JDK + "FilePublisher");

  private Bodies() {}

  static boolean canResend(HttpRequest request) {
    return canResend(request.bodyPublisher());
  }

  static boolean canResend(Optional<BodyPublisher> body) {
    if (body.isEmpty()) {
      return true;
    }
    BodyPublisher publisher = body.get();
    if (publisher instanceof Marked marked) {
      return marked.replayable;
    }
    return REPLAYABLE.contains(publisher.getClass().getName());
  }

  static BodyPublisher mark(BodyPublisher publisher, boolean replayable) {
    BodyPublisher unmarked = publisher instanceof Marked marked ? marked.publisher : publisher;
    return new Marked(unmarked, replayable);
  }

  /** A publisher the caller said can, or cannot, be sent again; it publishes what it wraps. */
  private static final class Marked implements BodyPublisher {
    final BodyPublisher publisher;
    final boolean replayable;

    Marked(BodyPublisher publisher, boolean replayable) {
      this.publisher = publisher;
      this.replayable = replayable;
    }

    @Override
    public long contentLength() {
      return publisher.contentLength();
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
      publisher.subscribe(subscriber);
    }

    @Override
    public String toString() {
      return (replayable ? "replayable(" : "oneShot(") + publisher + ")";
    }
  }
}

package io.hostpace.spring;

import io.hostpace.Clock;
import io.hostpace.Timer;
import io.hostpace.internal.AnswerDeadline;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response held to its attempt's answer timeout (SPEC T7) by an {@link AnswerDeadline}: when
 * the timeout has passed since the attempt was sent and its body has not ended (read to its end,
 * or the response closed), the response is closed on a thread of its own, which ends a read
 * blocked on it, and every read then raises a {@link SocketTimeoutException} that names the
 * request and the timeout, whatever the closed response made the read raise.
 *
 * <p>Why: the request factories' read timeouts differ (the JDK's bounds the whole answer, but says
 * only "closed" when it ends it; the others' are per read, which a trickling body never passes),
 * and the interceptor cannot abort an execution from another thread. Example: a timeout of 2 s, an
 * attempt sent at 0 s whose headers come at 0.1 s and whose body trickles: at 2 s the response is
 * closed and the caller's read fails with a {@code SocketTimeoutException}.
 */
final class DeadlineResponse implements ClientHttpResponse {

  private final ClientHttpResponse delegate;
  private final String exchange;
  private final Duration timeout;
  private final AnswerDeadline deadline;
  private @Nullable InputStream body;

  private DeadlineResponse(ClientHttpResponse delegate, String exchange, Duration timeout, AnswerDeadline deadline) {
    this.delegate = delegate;
    this.exchange = exchange;
    this.timeout = timeout;
    this.deadline = deadline;
  }

  /**
   * {@code response}, held to {@code timeout} counted from {@code sentAt} (a {@link System#nanoTime()});
   * a response whose timeout has passed already is closed, and its attempt fails with the timeout.
   */
  static ClientHttpResponse hold(ClientHttpResponse response, String exchange, Duration timeout, long sentAt)
      throws SocketTimeoutException {
    AnswerDeadline deadline = AnswerDeadline.start(exchange, timeout, sentAt, Clock.system(), Timer.system(),
        () -> closeAtTimeout(response, exchange));
    if (deadline.passed()) {
      deadline.over();
      response.close();
      throw deadline.failure(null);
    }
    return new DeadlineResponse(response, exchange, timeout, deadline);
  }

  /**
   * Closes {@code response} on a thread of its own, since a factory's close may block: never on
   * the timer's thread, which other deadlines share.
   */
  private static void closeAtTimeout(ClientHttpResponse response, String exchange) {
    Thread closing = new Thread(() -> closeBodyFirst(response), "hostpace-answer-timeout " + exchange);
    closing.setDaemon(true);
    closing.start();
  }

  /**
   * Closes the body's stream first, then the response: a factory's {@code close()} may read the
   * rest of the body first (the JDK factory's does), which a stalled body never gives, while closing
   * the JDK's stream ends a read blocked on it at once.
   */
  private static void closeBodyFirst(ClientHttpResponse response) {
    try {
      response.getBody().close();
    } catch (IOException | RuntimeException e) {
      // the response is closed below, or already was
    }
    response.close();
  }

  @Override
  public HttpStatusCode getStatusCode() throws IOException {
    return delegate.getStatusCode();
  }

  @Override
  public String getStatusText() throws IOException {
    return delegate.getStatusText();
  }

  @Override
  public HttpHeaders getHeaders() {
    return delegate.getHeaders();
  }

  @Override
  public synchronized InputStream getBody() throws IOException {
    if (body == null) {
      deadline.check();
      try {
        body = deadline.body(delegate.getBody());
      } catch (IOException e) {
        throw deadline.translated(e);
      }
    }
    return body;
  }

  /**
   * Closes the response, held to the timeout all the same: a factory's {@code close()} may read
   * the rest of the body first, as when the engine lets a refusal go, and a stalled body would
   * hold it there.
   */
  @Override
  public void close() {
    try {
      delegate.close();
    } finally {
      deadline.over();
    }
  }

  @Override
  public String toString() {
    return "DeadlineResponse{" + exchange + ", " + timeout + "}";
  }
}

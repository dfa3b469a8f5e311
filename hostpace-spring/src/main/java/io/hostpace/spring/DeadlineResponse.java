package io.hostpace.spring;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A response held to its attempt's answer timeout (SPEC T7): when the timeout has passed since the
 * attempt was sent and its body has not ended (read to its end, or the response closed), the
 * response is closed from the timer's thread, which ends a read blocked on it, and every read then
 * raises a {@link SocketTimeoutException} that names the request and the timeout, whatever the
 * closed response made the read raise.
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
  private final CompletableFuture<Void> over = new CompletableFuture<>();
  private volatile boolean expired;
  private @Nullable InputStream body;

  private DeadlineResponse(ClientHttpResponse delegate, String exchange, Duration timeout, long remainingNanos) {
    this.delegate = delegate;
    this.exchange = exchange;
    this.timeout = timeout;
    over.orTimeout(Math.max(remainingNanos, 1), TimeUnit.NANOSECONDS).whenComplete((done, failure) -> {
      if (failure instanceof TimeoutException) {
        expired = true;
        Thread closing = new Thread(this::closeAtTimeout, "hostpace-answer-timeout " + exchange);
        closing.setDaemon(true);
        closing.start();
      }
    });
  }

  /**
   * Closes the body's stream first, then the response: a factory's {@code close()} may read the
   * rest of the body first (the JDK factory's does), which a stalled body never gives, while closing
   * the JDK's stream ends a read blocked on it at once. On a thread of its own, since a factory's
   * close may block all the same: never on the timer's thread, which other deadlines share.
   */
  private void closeAtTimeout() {
    try {
      delegate.getBody().close();
    } catch (IOException | RuntimeException e) {
      // the response is closed below, or already was
    }
    delegate.close();
  }

  /**
   * {@code response}, held to {@code timeout} counted from {@code sentAt} (a {@link System#nanoTime()});
   * a response whose timeout has passed already is closed, and its attempt fails with the timeout.
   */
  static ClientHttpResponse hold(ClientHttpResponse response, String exchange, Duration timeout, long sentAt)
      throws SocketTimeoutException {
    long remaining = timeout.toNanos() - (System.nanoTime() - sentAt);
    if (remaining <= 0) {
      response.close();
      throw failure(exchange, timeout, null);
    }
    return new DeadlineResponse(response, exchange, timeout, remaining);
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
      check();
      try {
        body = new Body(delegate.getBody());
      } catch (IOException e) {
        throw translated(e);
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
      over.complete(null);
    }
  }

  private void check() throws SocketTimeoutException {
    if (expired) {
      throw failure(exchange, timeout, null);
    }
  }

  private IOException translated(IOException e) {
    over.complete(null);
    return expired ? failure(exchange, timeout, e) : e;
  }

  private static SocketTimeoutException failure(String exchange, Duration timeout, @Nullable Throwable cause) {
    SocketTimeoutException failure = new SocketTimeoutException(
        exchange + ": the answer was not read whole within its answer timeout of " + timeout);
    if (cause != null) {
      failure.initCause(cause);
    }
    return failure;
  }

  @Override
  public String toString() {
    return "DeadlineResponse{" + exchange + ", " + timeout + "}";
  }

  /** The body as the caller reads it. */
  private final class Body extends FilterInputStream {
    Body(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      check();
      try {
        return ended(super.read());
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      check();
      try {
        return ended(super.read(b, off, len));
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public void close() throws IOException {
      over.complete(null);
      try {
        super.close();
      } catch (IOException e) {
        throw translated(e);
      }
    }

    /** The read's result; an end that the closing at the timeout made is no end but the timeout. */
    private int ended(int read) throws SocketTimeoutException {
      if (read < 0) {
        check();
        over.complete(null);
      }
      return read;
    }
  }
}

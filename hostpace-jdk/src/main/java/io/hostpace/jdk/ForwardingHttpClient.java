package io.hostpace.jdk;

import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * An {@link HttpClient} that forwards everything but sending to a delegate: an extension point for
 * a client that changes how requests are sent and nothing else, as {@link PacedHttpClient} does.
 * A subclass writes {@code send} and the two {@code sendAsync}; its configuration (cookie handler,
 * connect timeout, redirects, proxy, TLS, authenticator, version, executor) and its
 * {@linkplain #newWebSocketBuilder() WebSockets} are the delegate's.
 *
 * <p>So is, on Java 21 and later, its lifecycle: {@link #shutdown()}, {@link #shutdownNow()},
 * {@link #awaitTermination(Duration)}, {@link #isTerminated()} and {@link #close()} reach the
 * delegate. They carry no {@code @Override}, so that this class compiles for Java 17, where they do
 * what {@code HttpClient} does by default on 21: nothing. A subclass that shares its delegate with
 * others closes it for them all.
 *
 * <p>Thread-safe as far as the delegate and the subclass are.
 */
public abstract class ForwardingHttpClient extends HttpClient implements AutoCloseable {

  private final HttpClient delegate;

  /** A client that forwards all but sending to {@code delegate}. */
  protected ForwardingHttpClient(HttpClient delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The client everything but sending is forwarded to. */
  public HttpClient delegate() {
    return delegate;
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return delegate.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return delegate.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return delegate.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return delegate.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return delegate.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return delegate.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return delegate.authenticator();
  }

  @Override
  public Version version() {
    return delegate.version();
  }

  @Override
  public Optional<Executor> executor() {
    return delegate.executor();
  }

  /** The delegate's: a WebSocket is not sent through this client's sending methods. */
  @Override
  public WebSocket.Builder newWebSocketBuilder() {
    return delegate.newWebSocketBuilder();
  }

  // Java 21's lifecycle: no @Override, so that this compiles for 17; see Lifecycle.

  /** The delegate's {@code shutdown()} on Java 21 and later; nothing on 17. */
  public void shutdown() {
    Lifecycle.shutdown(delegate);
  }

  /** The delegate's {@code shutdownNow()} on Java 21 and later; nothing on 17. */
  public void shutdownNow() {
    Lifecycle.shutdownNow(delegate);
  }

  /** The delegate's {@code awaitTermination(duration)} on Java 21 and later; true on 17. */
  public boolean awaitTermination(Duration duration) throws InterruptedException {
    return Lifecycle.awaitTermination(delegate, duration);
  }

  /** The delegate's {@code isTerminated()} on Java 21 and later; false on 17. */
  public boolean isTerminated() {
    return Lifecycle.isTerminated(delegate);
  }

  /** The delegate's {@code close()} on Java 21 and later, which waits for its requests to complete; nothing on 17. */
  @Override
  public void close() {
    Lifecycle.close(delegate);
  }
}

package io.hostpace.httpclient5;

import java.io.IOException;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.classic.ExecRuntime;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.Method;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * The classic chain's look at an attempt's connection, just before the client connects: whether
 * the attempt goes out on a connection from the pool, which a server may have closed while it was
 * idle. The client's own connect step takes the connection from the pool and tells no one
 * whether it was open already, so this takes it first, as that step would (with the same route
 * and user token), and notes the answer in the context; that step then finds it taken and connects
 * it only if it is not open. It sends nothing and decides nothing: the engine asks the exchange
 * about a failure (SPEC T6), and the exchange reads the note with {@link #diedBeforeAnswer}.
 */
final class ConnectionWatch implements ExecChainHandler {

  /** The context attribute that holds whether the current attempt's connection came open from the pool. */
  static final String REUSED = "io.hostpace.reused-connection";

  /** Its name in the exec chain, just before the client's connect step. */
  static final String NAME = "hostpace-connection";

  static final ConnectionWatch INSTANCE = new ConnectionWatch();

  private ConnectionWatch() {}

  @Override
  public ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
      throws IOException, HttpException {
    ExecRuntime runtime = scope.execRuntime;
    if (!runtime.isEndpointAcquired()) {
      runtime.acquireEndpoint(scope.exchangeId, scope.route, scope.clientContext.getUserToken(), scope.clientContext);
    }
    scope.clientContext.setAttribute(REUSED, runtime.isEndpointConnected());
    return chain.proceed(request, scope);
  }

  /** Forgets the previous attempt's connection, before an attempt is sent. */
  static void forget(HttpContext context) {
    context.removeAttribute(REUSED);
  }

  /**
   * True when a request of {@code method} may be sent again after {@code failure}: the method is
   * idempotent ({@link Method#isIdempotent}), the failure is the client's
   * {@link NoHttpResponseException} (the connection ended before any byte of the answer's status
   * line), and the connection came open from the pool. Such a request most likely never reached the
   * server's handling, but the server may have read it before it closed the connection: as
   * HttpClient's own {@code DefaultHttpRequestRetryStrategy}, a POST or a PATCH is never sent twice.
   */
  static boolean diedBeforeAnswer(HttpContext context, String method, Throwable failure) {
    return Method.isIdempotent(method)
        && failure instanceof NoHttpResponseException
        && Boolean.TRUE.equals(context.getAttribute(REUSED));
  }

  @Override
  public String toString() {
    return "Hostpace's look at whether an attempt's connection came from the pool";
  }
}

package io.hostpace.httpclient5;

import io.hostpace.Hostpace;
import io.hostpace.internal.AnswerDeadline;
import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Outcome;
import java.net.URI;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.ProtocolException;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.jspecify.annotations.Nullable;

/**
 * What the classic and the async handler's calls share as the engine's exchange: the request, its
 * URI, whether its body can be sent again, how an answer's status and headers are read, how a
 * failure counts, and each attempt's User-Agent and answer deadline. {@code Q} is the client's
 * request type, {@code R} an attempt's response as the engine sees it; {@link #answer} is its
 * HTTP response.
 */
abstract class PacedAttempts<Q extends HttpRequest, R> implements Exchange<R> {
  final Q request;
  final Hostpace engine;
  final URI uri;
  private final @Nullable HttpContext clientContext;
  private final boolean canResend;

  PacedAttempts(Q request, @Nullable HttpRoute route, @Nullable HttpContext clientContext, Hostpace engine,
      boolean canResend) throws ProtocolException {
    this.request = request;
    this.engine = engine;
    this.uri = HostpaceHttpClient5.uri(request, route);
    this.clientContext = clientContext;
    this.canResend = canResend;
  }

  /** The HTTP response of {@code response}. */
  abstract HttpResponse answer(R response);

  /**
   * {@code attempt}, a copy of the request for one attempt, with the engine's User-Agent; and the
   * attempt's answer deadline, which holds from here to the body's end and at which
   * {@code expiry} drops the connection (SPEC T7).
   */
  AnswerDeadline sending(HttpRequest attempt, Runnable expiry) {
    HostpaceHttpClient5.withUserAgent(attempt, engine);
    return HostpaceHttpClient5.answerDeadline(clientContext, request.getMethod(), uri, expiry);
  }

  @Override
  public URI uri() {
    return uri;
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public boolean canResend() {
    return canResend;
  }

  @Override
  public int status(R response) {
    return answer(response).getCode();
  }

  @Override
  public @Nullable String header(R response, String name) {
    Header header = answer(response).getFirstHeader(name);
    return header == null ? null : header.getValue();
  }

  @Override
  public @Nullable Outcome outcomeOf(Throwable failure) {
    return HostpaceHttpClient5.outcomeOf(failure, Exchange.super::outcomeOf);
  }

  @Override
  public String toString() {
    return request.getMethod() + " " + uri;
  }
}

package io.hostpace.jdk;

import java.net.http.HttpTimeoutException;

/**
 * A response body that had not ended within its request's {@link java.net.http.HttpRequest#timeout()
 * timeout}, counted from the attempt's sending, and that a {@link PacedHttpClient} cut there (SPEC
 * T7); or, for a client that holds bodies to the timeout per read
 * ({@link PacedHttpClient#withBodyTimeoutPerRead}), one of which no byte came for the timeout. An
 * {@link HttpTimeoutException}, as the JDK's own timeout for the headers is; {@link #cut()} says
 * what of the body had come.
 */
public final class BodyTimeoutException extends HttpTimeoutException {

  private static final long serialVersionUID = 1L;

  private final BodyCut cut;

  /** A cut body: {@code message} names the request and the timeout. */
  BodyTimeoutException(String message, BodyCut cut) {
    super(message);
    this.cut = java.util.Objects.requireNonNull(cut, "cut");
  }

  /** The answer's status, the bytes of its body that had come, and the length it declared. */
  public BodyCut cut() {
    return cut;
  }
}

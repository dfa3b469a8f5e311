package io.hostpace.jdk;

import java.io.Serializable;

/**
 * What had come of a response body when a {@link PacedHttpClient} cut it (SPEC T7), at the
 * request's timeout ({@link BodyTimeoutException}) or at the cap of
 * {@link PacedHttpClient#withMaxBodyBytes} ({@link BodyTooLargeException}): for a caller that
 * reports a cut in its own words, or keeps the part of an answer that came.
 *
 * @param status the status of the answer whose body was cut, from the headers that came before it
 * @param bytes how many bytes of the body had come (after any decoding the delegate does)
 * @param contentLength the {@code Content-Length} the answer declared, or -1 when it declared none
 */
public record BodyCut(int status, long bytes, long contentLength) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Validates the values: a status of three digits, no negative count. */
  public BodyCut {
    if (status < 100 || status > 999) {
      throw new IllegalArgumentException("status is " + status + ": expected an HTTP status of three digits");
    }
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes is " + bytes + ": expected 0 or more bytes of body");
    }
    if (contentLength < -1) {
      throw new IllegalArgumentException("contentLength is " + contentLength + ": expected -1 for none, or 0 or more");
    }
  }
}

package io.hostpace.jdk;

import java.io.IOException;

/**
 * A response body longer than the cap of {@link PacedHttpClient#withMaxBodyBytes}, which the
 * client cut (SPEC T7): before a byte of it was read when its {@code Content-Length} was over the
 * cap, else when the byte over the cap came. {@link #cut()} says what of the body had come,
 * {@link #maxBytes()} what the cap was.
 */
public final class BodyTooLargeException extends IOException {

  private static final long serialVersionUID = 1L;

  private final BodyCut cut;
  private final long maxBytes;

  /** A cut body: {@code message} names the request and the cap. */
  BodyTooLargeException(String message, BodyCut cut, long maxBytes) {
    super(message);
    this.cut = java.util.Objects.requireNonNull(cut, "cut");
    this.maxBytes = maxBytes;
  }

  /** The answer's status, the bytes of its body that had come, and the length it declared. */
  public BodyCut cut() {
    return cut;
  }

  /** The most bytes of body the response could bring. */
  public long maxBytes() {
    return maxBytes;
  }

  /** Whether the answer's {@code Content-Length} was over the cap, so that none of it was read. */
  public boolean declaredOver() {
    return cut.contentLength() > maxBytes;
  }
}

package io.hostpace.cli;

import java.io.IOException;

/**
 * A body that {@link BoundedBody} ended before it was complete: its deadline passed, or it grew
 * past its size cap. The message says which, and {@link #bytes()} how much of it had come.
 */
final class BodyCutException extends IOException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final long bytes;

  BodyCutException(String message, int status, long bytes) {
    super(message);
    this.status = status;
    this.bytes = bytes;
  }

  /** The status the server answered with, in the headers that came before the body. */
  int status() {
    return status;
  }

  /** The bytes of the body that had come when it was cut. */
  long bytes() {
    return bytes;
  }
}

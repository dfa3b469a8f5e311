package io.hostpace.fuseki;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;

/** {@link Gate#concurrent}: at most {@code concurrent} admitted requests at once. */
final class ConcurrencyGate implements Gate {

  private final int concurrent;
  private final Duration retryAfter;
  @GuardedBy("this")
  private int admitted;

  ConcurrencyGate(int concurrent, Duration retryAfter) {
    if (concurrent < 1) {
      throw new IllegalArgumentException("a gate admits at least 1 request at once, got " + concurrent);
    }
    this.concurrent = concurrent;
    this.retryAfter = retryAfter;
  }

  @Override
  public synchronized Admission admit(long now) {
    if (admitted >= concurrent) {
      return new Admission(false, 429, retryAfter);
    }
    admitted++;
    return Admission.ADMITTED;
  }

  @Override
  public synchronized void release() {
    admitted--;
  }
}

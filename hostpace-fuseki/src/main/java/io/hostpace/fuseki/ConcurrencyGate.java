package io.hostpace.fuseki;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.testing.AdmissionGate;
import java.time.Duration;

/** {@link Gate#concurrent}: the core's {@link AdmissionGate}, at most {@code concurrent} admitted requests at once. */
final class ConcurrencyGate implements Gate {

  private final Admission refused;
  @GuardedBy("this")
  private final AdmissionGate gate;

  ConcurrencyGate(int concurrent, Duration retryAfter) {
    if (concurrent < 1) {
      throw new IllegalArgumentException("a gate admits at least 1 request at once, got " + concurrent);
    }
    this.gate = new AdmissionGate(concurrent);
    this.refused = new Admission(false, 429, retryAfter);
  }

  @Override
  public synchronized Admission admit(long now) {
    return gate.admit(now) ? Admission.ADMITTED : refused;
  }

  @Override
  public synchronized void release() {
    gate.end(System.nanoTime());
  }
}

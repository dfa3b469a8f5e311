package io.hostpace.fuseki;

import com.google.errorprone.annotations.concurrent.GuardedBy;

/** {@link Gate#oneEvery}: at most one admission per interval; the first at once. */
final class SpacingGate implements Gate {

  private final long interval;
  @GuardedBy("this")
  private boolean admittedAny;
  @GuardedBy("this")
  private long lastAdmitted;

  SpacingGate(long interval) {
    this.interval = interval;
  }

  @Override
  public synchronized Admission admit(long now) {
    if (admittedAny && now - lastAdmitted < interval) {
      return new Admission(false, 429, null);
    }
    admittedAny = true;
    lastAdmitted = now;
    return Admission.ADMITTED;
  }
}

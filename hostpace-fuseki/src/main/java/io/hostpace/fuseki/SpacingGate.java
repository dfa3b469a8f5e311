package io.hostpace.fuseki;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.testing.Spacing;
import java.time.Duration;

/** {@link Gate#oneEvery}: the core's {@link Spacing}, one admission per interval, the first at once. */
final class SpacingGate implements Gate {

  private static final Admission REFUSED = new Admission(false, 429, null);

  @GuardedBy("this")
  private final Spacing spacing;

  SpacingGate(Duration interval) {
    this.spacing = Spacing.oneEvery(interval);
  }

  @Override
  public synchronized Admission admit(long now) {
    return spacing.admit(now) ? Admission.ADMITTED : REFUSED;
  }
}

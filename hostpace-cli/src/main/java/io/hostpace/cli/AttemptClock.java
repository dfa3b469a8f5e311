package io.hostpace.cli;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.AttemptListener;
import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * Times one call's attempts (SPEC A1): how many went, and how long the call waited in its
 * queue or paused, that is, everything before each attempt left its queue. From the call's
 * start to attempt 1's {@code sent}, and from each {@code settled} to the next {@code sent}.
 */
final class AttemptClock implements AttemptListener {

  private final long start;
  @GuardedBy("this")
  private long waitingSince;
  @GuardedBy("this")
  private long waited;
  @GuardedBy("this")
  private int attempts;

  AttemptClock(long start) {
    this.start = start;
    this.waitingSince = start;
  }

  @Override
  public synchronized void sent(URI uri, int attempt) {
    attempts = attempt;
    waited += System.nanoTime() - waitingSince;
  }

  @Override
  public synchronized void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
    waitingSince = System.nanoTime();
  }

  synchronized int attempts() {
    return attempts;
  }

  synchronized long waitedMillis() {
    return waited / 1_000_000;
  }

  long elapsedMillis() {
    return (System.nanoTime() - start) / 1_000_000;
  }
}

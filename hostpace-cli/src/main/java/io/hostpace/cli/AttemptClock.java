package io.hostpace.cli;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.AttemptListener;
import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * Times one call's attempts (SPEC A1): how many went, and how long the call waited in its
 * queue or paused, that is, everything before each attempt left its queue. From the call's
 * start to attempt 1's {@code sent}, and from each {@code settled} to the next {@code sent}.
 *
 * <p>It also counts the call's refusals: an answer let go for another attempt is one (the engine
 * retries no other answer), and so is the last answer when its status is one the engine always
 * takes for a refusal, which ran out of retries. Three attempts answered 429, 429, 200: 2
 * refusals; answered 503, 503 with no retry left: 2.
 */
final class AttemptClock implements AttemptListener {

  private final long start;
  @GuardedBy("this")
  private long waitingSince;
  @GuardedBy("this")
  private long waited;
  @GuardedBy("this")
  private int attempts;
  /** The answers let go for another attempt: refusals retried. */
  @GuardedBy("this")
  private int answersRetried;
  /** The status of the last answer not let go, -1 when there is none. */
  @GuardedBy("this")
  private int lastStatus = -1;

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
    lastStatus = status;
  }

  @Override
  public synchronized void retrying(URI uri, int attempt) {
    if (lastStatus >= 0) {
      answersRetried++; // an answer, not a connection that died before one
    }
    lastStatus = -1;
  }

  synchronized int attempts() {
    return attempts;
  }

  /**
   * The call's refusals: the answers let go for another attempt, and the last answer if
   * {@code alwaysRefusals} (the statuses the engine always takes for refusals) holds its status.
   */
  synchronized int refusals(java.util.Set<Integer> alwaysRefusals) {
    return answersRetried + (alwaysRefusals.contains(lastStatus) ? 1 : 0);
  }

  synchronized long waitedMillis() {
    return waited / 1_000_000;
  }

  long elapsedMillis() {
    return (System.nanoTime() - start) / 1_000_000;
  }
}

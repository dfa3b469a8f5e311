package io.hostpace.spi;

import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * What the processes of a fleet share so that together they are as polite to a host as one
 * (SPEC S2): what each host's answers taught, and the spacing of the host's starts.
 *
 * <p>An engine built with a fleet ({@code Hostpace.Builder.fleet}) tells it a {@link Lesson} for
 * every answer or refusal a host or group gives, and hears the lessons of the other processes:
 * its learning rule learns from the fleet's answers as if they were its own, so every process
 * learns the rate the host gives the fleet, not the share it happened to get. While a host is
 * paced (its interval is not 0), each start first claims the fleet's next start: a host paced at
 * one a second gets one a second from the fleet, however many processes share it.
 *
 * <p>Every method is called under the engine's lock and must not block: an implementation sends
 * and answers on threads of its own (Redis's client, a virtual timer), and never calls back from
 * within the call that asked. A lesson may be lost; a claim that cannot be made answers
 * {@link #UNCLAIMED}, and the engine then paces the start by its own reckoning alone.
 */
public interface Fleet {

  /** What {@link #claimStart} answers when the fleet could not be asked. */
  long UNCLAIMED = -1;

  /**
   * What one answer of a host taught: whether it was a refusal, its {@code Retry-After} if it had
   * one, and how long after its start it came. Times are durations, not instants, so processes
   * need not share a clock.
   *
   * @param key the host's or group's key ({@code example.org}, {@code *.example.org})
   * @param refused whether the answer was a refusal (SPEC R1)
   * @param retryAfterNanos the pause the refusal asked for, or -1 for none
   * @param tookNanos how long after the request's start the answer came
   */
  record Lesson(String key, boolean refused, long retryAfterNanos, long tookNanos) {
    /** Checks the fields. */
    public Lesson {
      if (key == null || key.isEmpty()) {
        throw new IllegalArgumentException("a lesson needs a host's key");
      }
      if (retryAfterNanos < -1) {
        throw new IllegalArgumentException("retryAfterNanos must be -1 (none) or at least 0, was " + retryAfterNanos);
      }
      if (tookNanos < 0) {
        throw new IllegalArgumentException("tookNanos must be at least 0, was " + tookNanos);
      }
    }
  }

  /** Tells the fleet's other processes what an answer taught; must not block. */
  void tell(Lesson lesson);

  /**
   * Calls {@code listener} with every lesson the fleet's other processes tell (not those of this
   * process), on a thread of the fleet's, until the returned handle is closed.
   */
  AutoCloseable listen(Consumer<Lesson> listener);

  /**
   * Claims the next start of {@code key} for this process: the fleet's next start goes at least
   * {@code intervalNanos} after the previous one any process claimed, and not before now. The
   * claim's answer comes to {@code then}, later, on a thread of the fleet's: how many nanoseconds
   * after the fleet took the claim the start may go (0: at once), or {@link #UNCLAIMED}.
   */
  void claimStart(String key, long intervalNanos, LongConsumer then);
}

package io.hostpace;

import io.hostpace.spi.Fleet;
import org.jspecify.annotations.Nullable;

/**
 * The one way back into the engine for what answers later, on a thread of its own: a fleet's
 * answer to a claim, a timer that looks at an idle node again. Such a part never takes the
 * engine's lock nor writes the scheduler's fields: it hands its change to {@link #underLock}, and
 * from inside it asks for a node or queue to be looked at again.
 */
interface Reentry {

  /** Runs {@code change} under the engine's lock, then delivers what it set in motion. */
  void underLock(Runnable change);

  /** Under the lock: {@code node}'s queues start what they can now, if the engine still holds it. */
  void lookAgain(Node node, long now);

  /** Under the lock: {@code queue} starts what it can now, if the engine still holds it. */
  void lookAgain(HostQueue queue, long now);

  /**
   * Under the lock: the fleet said what it keeps of {@code node} (SPEC S3), null for nothing; the
   * node learns it, if the engine still holds it, and its queues start what they can now.
   */
  void recalled(Node node, Fleet.@Nullable Kept kept);

  /**
   * Under the lock: as this process rejoined the fleet after it could not be asked, the fleet said
   * what it keeps of {@code node} (SPEC S4), null for nothing; the node takes its pace, if the
   * engine still holds it.
   */
  void rejoined(Node node, Fleet.@Nullable Kept kept);
}

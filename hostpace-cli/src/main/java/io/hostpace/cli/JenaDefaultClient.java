package io.hostpace.cli;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Jena sends every query through one default client per JVM, and the commands that query
 * replace it for their run (paced by an installed engine). One command at a time
 * holds it, from reading the default to putting it back, so that two runs in one JVM queue
 * rather than one finding the other's client, or its installation, in place.
 */
final class JenaDefaultClient implements AutoCloseable {

  private static final ReentrantLock LOCK = new ReentrantLock();

  private JenaDefaultClient() {}

  /** Waits until no other command holds Jena's default client, then holds it until closed. */
  static JenaDefaultClient hold() {
    LOCK.lock();
    return new JenaDefaultClient();
  }

  /** Whether {@code thread} is waiting to hold Jena's default client. */
  static boolean isAwaitedBy(Thread thread) {
    return LOCK.hasQueuedThread(thread);
  }

  @Override
  public void close() {
    LOCK.unlock();
  }
}

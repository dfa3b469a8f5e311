package io.hostpace.redis.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the servers of this package do alike with the {@code redis-server} processes they start:
 * find a free port, wait until a condition holds (or fail with their logs), and stop a process,
 * forcibly when it does not exit.
 */
final class RedisProcesses {

  /** A condition polled until it holds; it may ask Redis, and so throw. */
  interface Condition {
    boolean holds() throws IOException;
  }

  private RedisProcesses() {}

  /** A port on 127.0.0.1 that was free a moment ago. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /**
   * Polls {@code condition} every 20 ms until it holds.
   *
   * @throws IOException if it does not hold within {@code millis}: "{@code who} did not reach
   *     {@code what} within N ms", followed by {@code logs}
   */
  static void await(String who, String what, long millis, Condition condition, Supplier<String> logs)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (!condition.holds()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IOException(who + " did not reach " + what + " within " + millis + " ms:" + logs.get());
      }
      Thread.sleep(20);
    }
  }

  /** Ends {@code process} (at once when {@code kill}) and waits for it, forcibly after 10 s. */
  static void stop(Process process, boolean kill) {
    if (kill) {
      process.destroyForcibly();
    } else {
      process.destroy();
    }
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}

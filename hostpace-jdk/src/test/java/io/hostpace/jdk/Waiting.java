package io.hostpace.jdk;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Small helpers of the live tests: requests, and waiting for what a server or the engine shows. */
final class Waiting {

  private Waiting() {}

  static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).build();
  }

  /** Waits up to 10 s for {@code condition}; fails the test if it never holds. */
  static void until(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached in 10 s");
      }
      Thread.sleep(5);
    }
  }

  static int inFlight(Hostpace engine) {
    return engine.snapshot().stream().filter(h -> !h.group()).mapToInt(HostSnapshot::inFlight).sum();
  }

  static int waiting(Hostpace engine) {
    return engine.snapshot().stream().filter(h -> !h.group()).mapToInt(HostSnapshot::waiting).sum();
  }


  static Duration interval(Hostpace engine, String hostKey) {
    return engine.snapshot().stream().filter(h -> h.key().equals(hostKey)).findFirst()
        .map(HostSnapshot::interval).orElse(Duration.ZERO);
  }
}

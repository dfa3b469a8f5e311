package io.hostpace.jdk;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.testkit.ClosedPorts;
import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Small helpers of the live tests: requests, what the engine learned of a host, and the end of a test. */
final class Waiting {

  private Waiting() {}

  static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).build();
  }

  /** A URI on 127.0.0.1 at a port that refuses connections while this JVM runs ({@link ClosedPorts}). */
  static URI nobodyListens() throws IOException {
    return URI.create("http://127.0.0.1:" + ClosedPorts.next() + "/");
  }

  static Duration interval(Hostpace engine, String hostKey) {
    return engine.snapshot().stream().filter(h -> h.key().equals(hostKey)).findFirst()
        .map(HostSnapshot::interval).orElse(Duration.ZERO);
  }

  /** Stops the test's server, if it started one, and the client's threads. */
  static void stop(@Nullable TestServer server, PacedHttpClient client) {
    if (server != null) {
      server.close();
    }
    client.shutdownNow();
  }
}

package io.hostpace.jdk;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/** Small helpers of the live tests: requests, and what the engine learned of a host. */
final class Waiting {

  private Waiting() {}

  static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).build();
  }

  static Duration interval(Hostpace engine, String hostKey) {
    return engine.snapshot().stream().filter(h -> h.key().equals(hostKey)).findFirst()
        .map(HostSnapshot::interval).orElse(Duration.ZERO);
  }
}

package io.hostpace.simulator;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import java.time.Duration;

/**
 * {@code configured}: the default engine told the server's limits at the start, as a user who read
 * them in its documentation would: a token bucket's {@code Rate.of(burst, burst / rate)}, a fixed
 * window's {@code Rate.of(limit, window)}, a gate's {@code inFlight: maxConcurrent}. With several
 * processes each gets its share (a third of the rate for three), unless they form a fleet: then
 * each is told the whole limit, which the fleet holds for all. Not the server's changes: the
 * documented limit is today's, and not the client's own {@code limits}: the server's stand for them.
 */
final class ConfiguredPacing implements PacingPolicy {

  @Override
  public String name() {
    return "configured";
  }

  @Override
  public void configure(Hostpace.Builder engine, ServerSpec server, ClientSpec client, boolean fleet) {
    engine.addLimit(server.host(), limits(server, fleet ? 1 : client.processes()));
  }

  /** The server's limits, shared by {@code processes}. */
  private static Limits limits(ServerSpec server, int processes) {
    return switch (server.model()) {
      case TOKEN_BUCKET -> Limits.rate(Rate.of(Math.max(1, server.burst() / processes),
          Duration.ofNanos(Math.round(Math.max(1, server.burst() / processes) * processes / server.rate() * 1e9))));
      case FIXED_WINDOW -> Limits.rate(Rate.of(Math.max(1, server.limit() / processes),
          Duration.ofNanos(server.window() * Math.max(1, server.limit() / processes) * processes / server.limit())));
      case GATE -> Limits.inFlight(Math.max(1, server.maxConcurrent() / processes));
    };
  }
}

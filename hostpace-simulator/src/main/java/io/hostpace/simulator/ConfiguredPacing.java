package io.hostpace.simulator;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import java.math.BigInteger;
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

  @Override
  public void check(ServerSpec server, ClientSpec client, boolean fleet, String serverPath) {
    int processes = fleet ? 1 : client.processes();
    try {
      limits(server, processes);
    } catch (IllegalArgumentException e) {
      // the engine's bounds on a rate: its permits (the burst or limit), its interval (from the rest)
      String field = switch (server.model()) {
        case TOKEN_BUCKET -> share(server.burst(), processes) > Rate.MAX_PERMITS ? "burst" : "rate";
        case FIXED_WINDOW -> share(server.limit(), processes) > Rate.MAX_PERMITS ? "limit" : "windowSeconds";
        case GATE -> "maxConcurrent";
      };
      throw new ScenarioException(serverPath + "." + field,
          "policy \"configured\" tells the engine this limit, which it refuses: " + e.getMessage());
    }
  }

  /** The server's limits, shared by {@code processes}. */
  private static Limits limits(ServerSpec server, int processes) {
    return switch (server.model()) {
      case TOKEN_BUCKET -> Limits.rate(Rate.of(share(server.burst(), processes),
          Duration.ofNanos(Math.round(share(server.burst(), processes) * processes / server.rate() * 1e9))));
      case FIXED_WINDOW -> Limits.rate(Rate.of(share(server.limit(), processes),
          Duration.ofNanos(windowShare(server.window(), share(server.limit(), processes) * (long) processes, server.limit()))));
      case GATE -> Limits.inFlight(share(server.maxConcurrent(), processes));
    };
  }

  /** A process's share of {@code total}: at least 1. */
  private static int share(int total, int processes) {
    return Math.max(1, total / processes);
  }

  /**
   * {@code window × told / limit} nanoseconds, the window of {@code told} of the server's
   * {@code limit}, exactly and without overflow (a week's window times a large limit exceeds a
   * long); {@code Long.MAX_VALUE} where the result does, which the engine refuses as too long.
   */
  private static long windowShare(long window, long told, int limit) {
    BigInteger nanos = BigInteger.valueOf(window).multiply(BigInteger.valueOf(told)).divide(BigInteger.valueOf(limit));
    return nanos.bitLength() < Long.SIZE ? nanos.longValueExact() : Long.MAX_VALUE;
  }
}

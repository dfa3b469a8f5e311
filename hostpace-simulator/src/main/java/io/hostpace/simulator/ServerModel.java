package io.hostpace.simulator;

import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.testing.AdmissionGate;
import io.hostpace.testing.FixedWindow;
import io.hostpace.testing.RefusingServer;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testing.ServerLimit;
import io.hostpace.testing.TokenBucket;
import java.time.Duration;
import java.time.Instant;

/**
 * A scenario's server in virtual time: the {@link RefusingServer} its spec describes, which
 * decides at the moment a request starts whether it accepts it, and answers {@code latency} later
 * either way. Times are nanoseconds from the run's start.
 *
 * <ul>
 *   <li>{@code token-bucket}: a {@link TokenBucket} of {@code burst} at {@code rate}; with
 *       {@code refusalsCount} a refused request takes a token too.
 *   <li>{@code fixed-window}: a {@link FixedWindow} of {@code limit} each {@code windowSeconds},
 *       windows starting at 0 s; with {@code refusalsCount} refused requests count too.
 *   <li>{@code gate}: an {@link AdmissionGate} of {@code maxConcurrent}, each accepted request
 *       holding its place until it is answered. {@code refusalsCount} does not apply.
 * </ul>
 * A refusal carries {@code Retry-After} as {@code retryAfter} says: none, {@code 1} (seconds),
 * an HTTP-date one second ahead (rounded up to the second), or the time until the model would
 * accept again as delta-seconds with a fraction ({@code until-free}). Not thread-safe: the
 * virtual clock's thread drives it.
 */
final class ServerModel {

  final ServerSpec spec;
  private final RefusingServer server;

  ServerModel(ServerSpec spec, Instant wallOrigin) {
    this.spec = spec;
    this.server = new RefusingServer(limit(spec), spec.status(), retryAfter(spec, wallOrigin), spec.announces(),
        spec.changes());
  }

  private static ServerLimit limit(ServerSpec spec) {
    return switch (spec.model()) {
      case TOKEN_BUCKET -> spec.refusalsCount()
          ? TokenBucket.countingRefusals(spec.rate(), spec.burst(), 0)
          : TokenBucket.of(spec.rate(), spec.burst(), 0);
      case FIXED_WINDOW -> spec.refusalsCount()
          ? FixedWindow.countingRefusals(spec.limit(), Duration.ofNanos(spec.window()), 0)
          : FixedWindow.of(spec.limit(), Duration.ofNanos(spec.window()), 0);
      case GATE -> new AdmissionGate(spec.maxConcurrent());
    };
  }

  private static RetryAfter retryAfter(ServerSpec spec, Instant wallOrigin) {
    return switch (spec.retryAfter()) {
      case NONE -> RetryAfter.none();
      case SECONDS -> RetryAfter.seconds(1);
      case DATE -> RetryAfter.dateAhead(Duration.ofSeconds(1), wallOrigin);
      case UNTIL_FREE -> RetryAfter.untilFree();
    };
  }

  /** Decides the request that starts at {@code now}, to be answered {@code latency} later. */
  RefusingServer.Answer admit(long now) {
    return server.answer(now, now + spec.latency());
  }

  /** The earliest time from {@code now} at which the model, left alone and unchanged, accepts. */
  long freeAt(long now) {
    return server.freeAt(now);
  }

  /** The time of the next change after {@code now}, or {@code Long.MAX_VALUE}. */
  long nextChangeAfter(long now) {
    return server.nextStepAfter(now);
  }

  /**
   * The shortest time in which a server like {@code spec} accepts requests arriving at
   * {@code arrivals} (sorted): each taken at the earliest moment the server accepts it, the last
   * one answered {@code latency} later.
   */
  static long idealFinish(ServerSpec spec, long[] arrivals, Instant wallOrigin) {
    ServerModel model = new ServerModel(spec, wallOrigin);
    long last = 0;
    for (long arrival : arrivals) {
      long at = Math.max(arrival, last); // in arrival order: with one latency for all, no later request goes sooner
      while (true) {
        long free = model.freeAt(at);
        long change = model.nextChangeAfter(at);
        if (change <= free) {
          at = change;
          continue;
        }
        at = free;
        if (model.admit(at).accepted()) {
          break;
        }
        at++;
      }
      last = Math.max(last, at);
    }
    return last + spec.latency();
  }
}

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
import java.util.Random;

/**
 * A scenario's server in virtual time: the {@link RefusingServer} its spec describes, which
 * decides whether it accepts a request at the moment the request reaches it, and answers either
 * way. Without {@code latencyJitter} a request reaches it as it starts and the answer comes
 * {@code latency} later. With it the trip there is half the latency plus a draw of up to the jitter
 * ({@link #tripThere()}, from the model's own {@link Random}), and the trip back the other half
 * ({@link #tripBack()}): with a jitter of 30 ms and a latency of 50 ms, a request started at 1.00 s
 * that draws 25 ms is decided at 1.05 s and answered at 1.075 s, and one started at 1.01 s that
 * draws 2 ms is decided first, at 1.037 s. Times are nanoseconds from the run's start.
 *
 * <ul>
 *   <li>{@code token-bucket}: a {@link TokenBucket} of {@code burst} at {@code rate}; with
 *       {@code refusalsCount} a refused request takes a token too.
 *   <li>{@code fixed-window}: a {@link FixedWindow} of {@code limit} each {@code windowSeconds},
 *       windows starting at {@code windowsFromSeconds} (by default 0 s, the run's start) and each
 *       window before and after; with {@code refusalsCount} refused requests count too.
 *   <li>{@code gate}: an {@link AdmissionGate} of {@code maxConcurrent}, each accepted request
 *       holding its place for {@code latency} from its decision: until it is answered without
 *       jitter; with it, as long, so that jitter moves a request's time on the server but does not
 *       shorten it. {@code refusalsCount} does not apply.
 * </ul>
 * A refusal carries {@code Retry-After} as {@code retryAfter} says: none, {@code 1} (seconds),
 * an HTTP-date one second ahead (rounded up to the second), or the time until the model would
 * accept again as delta-seconds with a fraction ({@code until-free}). Not thread-safe: the
 * virtual clock's thread drives it.
 */
final class ServerModel {

  final ServerSpec spec;
  private final RefusingServer server;
  /** Draws each request's jitter on its way here, in the order the requests start. */
  private final Random trips;

  /** The server {@code spec} describes, whose requests' trips draw their jitter from {@code trips}. */
  ServerModel(ServerSpec spec, Instant wallOrigin, Random trips) {
    this.spec = spec;
    this.trips = trips;
    this.server = new RefusingServer(limit(spec), spec.status(), retryAfter(spec, wallOrigin), spec.announces(),
        spec.changes());
  }

  private static ServerLimit limit(ServerSpec spec) {
    return switch (spec.model()) {
      case TOKEN_BUCKET -> spec.refusalsCount()
          ? TokenBucket.countingRefusals(spec.rate(), spec.burst(), 0)
          : TokenBucket.of(spec.rate(), spec.burst(), 0);
      case FIXED_WINDOW -> spec.refusalsCount()
          ? FixedWindow.countingRefusals(spec.limit(), Duration.ofNanos(spec.window()), spec.windowsFrom())
          : FixedWindow.of(spec.limit(), Duration.ofNanos(spec.window()), spec.windowsFrom());
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

  /** The server {@code spec} describes, for what draws no trips: the ideal finish, tests of its answers. */
  ServerModel(ServerSpec spec, Instant wallOrigin) {
    this(spec, wallOrigin, new Random(0));
  }

  /**
   * Decides the request that reaches it at {@code now}: without jitter it starts then and is
   * answered {@code latency} later; a gate holds an accepted one's place that long either way.
   */
  RefusingServer.Answer admit(long now) {
    return server.answer(now, now + spec.latency());
  }

  /** Whether a request's trip here varies: then it is decided as it arrives, {@link #tripThere()} after it starts. */
  boolean jittered() {
    return spec.latencyJitter() > 0;
  }

  /** The trip here of a request that starts now: half the latency, and a draw in {@code [0, latencyJitter)}. */
  long tripThere() {
    return spec.latency() / 2 + (long) (trips.nextDouble() * spec.latencyJitter());
  }

  /** The answer's trip back: the other half of the latency, so that the round trip is the latency and the draw. */
  long tripBack() {
    return spec.latency() - spec.latency() / 2;
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
   * one answered {@code latency} later. It keeps the fixed latency and draws no jitter, so a
   * scenario's ideal is the same with jitter as without: the trips at their shortest.
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

package io.hostpace.simulator;

import io.hostpace.simulator.PacingScenario.Change;
import io.hostpace.simulator.PacingScenario.RetryAfter;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * A server that refuses clients who ask too often, in virtual time: it decides at the moment a
 * request starts whether it accepts it, and answers {@code latency} later either way. Times are
 * nanoseconds from the run's start.
 *
 * <ul>
 *   <li>{@code token-bucket}: holds up to {@code burst} tokens, refilled at {@code rate} a
 *       second, full at the start; a request takes one, or is refused when there is less than
 *       one. With {@code refusalsCount} a refused request takes one too: the bucket goes into
 *       debt, so a client that hammers it is refused for longer.
 *   <li>{@code fixed-window}: accepts {@code limit} requests in each window of
 *       {@code windowSeconds}, windows starting at 0 s. Refused requests count, too, with
 *       {@code refusalsCount} (which changes nothing once the window is full).
 *   <li>{@code gate}: serves {@code maxConcurrent} at once; a request is refused while that many
 *       accepted ones are not yet answered. {@code refusalsCount} does not apply.
 * </ul>
 * A refusal carries {@code Retry-After} as {@code retryAfter} says: none, {@code 1} (seconds),
 * an HTTP-date one second ahead (rounded up to the second), or the time until the model would
 * accept again as delta-seconds with a fraction ({@code until-free}).
 *
 * <p>Invariant: {@code changes[applied..]} are still ahead; the model's fields hold the values of
 * the last change applied. Not thread-safe: the virtual clock's thread drives it.
 */
final class ServerModel {

  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

  /** A decision: the status, the Retry-After header or null, the RateLimit header or null. */
  record Answer(int status, @Nullable String retryAfter, @Nullable String rateLimit) {
    boolean accepted() {
      return status == 200;
    }
  }

  final ServerSpec spec;
  private final Instant wallOrigin;
  private int applied;
  private double rate;
  private int burst;
  private int limit;
  private int maxConcurrent;
  // token bucket
  private double tokens;
  private long refilledAt;
  // fixed window
  private long window = -1;
  private int used;
  // gate: when each accepted request in flight is answered
  private final PriorityQueue<Long> busyUntil = new PriorityQueue<>();

  ServerModel(ServerSpec spec, Instant wallOrigin) {
    this.spec = spec;
    this.wallOrigin = wallOrigin;
    this.rate = spec.rate();
    this.burst = spec.burst();
    this.limit = spec.limit();
    this.maxConcurrent = spec.maxConcurrent();
    this.tokens = burst;
  }

  /** Decides the request that starts at {@code now}. */
  Answer admit(long now) {
    advance(now);
    boolean accept = switch (spec.model()) {
      case TOKEN_BUCKET -> {
        if (tokens >= 1 - 1e-9) {
          tokens -= 1;
          yield true;
        }
        if (spec.refusalsCount()) {
          tokens -= 1;
        }
        yield false;
      }
      case FIXED_WINDOW -> {
        if (used < limit) {
          used++;
          yield true;
        }
        if (spec.refusalsCount()) {
          used++;
        }
        yield false;
      }
      case GATE -> {
        if (busyUntil.size() < maxConcurrent) {
          busyUntil.add(now + spec.latency());
          yield true;
        }
        yield false;
      }
    };
    String announced = spec.announces() ? announced(now) : null;
    if (accept) {
      return new Answer(200, null, announced);
    }
    return new Answer(spec.status(), retryAfter(now), announced);
  }

  /**
   * The quota left after this decision, as the IETF httpapi draft's {@code RateLimit} says it:
   * {@code r} requests remaining, {@code t} whole seconds (rounded up) until the quota resets: the
   * window's end, or the bucket's next token when none is left (its refill when some are).
   */
  private String announced(long now) {
    long remaining;
    long resetNanos;
    if (spec.model() == PacingScenario.Model.TOKEN_BUCKET) {
      remaining = Math.max(0, (long) Math.floor(tokens + 1e-9));
      resetNanos = remaining > 0 ? (long) Math.ceil((burst - tokens) / rate * 1e9) : freeAt(now) - now;
    } else {
      remaining = Math.max(0, limit - used);
      resetNanos = (window + 1) * spec.window() - now;
    }
    long seconds = Math.max(0, (resetNanos + 999_999_999L) / 1_000_000_000L);
    return "\"default\";r=" + remaining + ";t=" + seconds;
  }

  /** The earliest time from {@code now} at which the model, left alone and unchanged, accepts. */
  long freeAt(long now) {
    advance(now);
    return switch (spec.model()) {
      case TOKEN_BUCKET -> tokens >= 1 - 1e-9 ? now : now + (long) Math.ceil((1 - tokens) / rate * 1e9);
      case FIXED_WINDOW -> used < limit ? now : (window + 1) * spec.window();
      case GATE -> busyUntil.size() < maxConcurrent ? now : busyUntil.peek();
    };
  }

  /** The time of the next change after {@code now}, or {@code Long.MAX_VALUE}. */
  long nextChangeAfter(long now) {
    for (int i = applied; i < spec.changes().size(); i++) {
      if (spec.changes().get(i).at() > now) {
        return spec.changes().get(i).at();
      }
    }
    return Long.MAX_VALUE;
  }

  private @Nullable String retryAfter(long now) {
    RetryAfter kind = spec.retryAfter();
    return switch (kind) {
      case NONE -> null;
      case SECONDS -> "1";
      case DATE -> {
        Instant at = wallOrigin.plusNanos(now).plusSeconds(1);
        if (at.getNano() > 0) {
          at = Instant.ofEpochSecond(at.getEpochSecond() + 1);
        }
        yield IMF_FIXDATE.format(at);
      }
      case UNTIL_FREE -> {
        long wait = Math.max(1_000_000L, freeAt(now) - now);
        yield String.format(Locale.ROOT, "%.3f", Math.ceil(wait / 1e6) / 1e3);
      }
    };
  }

  /** Applies the changes due by {@code now} and lets time pass in the model's state. */
  private void advance(long now) {
    while (applied < spec.changes().size() && spec.changes().get(applied).at() <= now) {
      Change change = spec.changes().get(applied++);
      refill(change.at());
      if (change.rate() != null) {
        rate = change.rate();
      }
      if (change.burst() != null) {
        burst = change.burst();
        tokens = Math.min(tokens, burst);
      }
      if (change.limit() != null) {
        limit = change.limit();
      }
      if (change.maxConcurrent() != null) {
        maxConcurrent = change.maxConcurrent();
      }
    }
    refill(now);
    if (spec.model() == PacingScenario.Model.FIXED_WINDOW) {
      long current = now / spec.window();
      if (current != window) {
        window = current;
        used = 0;
      }
    }
    while (!busyUntil.isEmpty() && busyUntil.peek() <= now) {
      busyUntil.poll();
    }
  }

  private void refill(long now) {
    if (now > refilledAt) {
      tokens = Math.min(burst, tokens + rate * (now - refilledAt) / 1e9);
      refilledAt = now;
    }
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

package io.hostpace.simulator;

import io.hostpace.simulator.TimeoutScenario.Fail;
import io.hostpace.simulator.TimeoutScenario.Hang;
import io.hostpace.simulator.TimeoutScenario.Idle;
import io.hostpace.simulator.TimeoutScenario.Request;
import io.hostpace.simulator.TimeoutScenario.Stage;
import io.hostpace.timeout.Outcome;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The model of a SPARQL server a scenario describes. Times are virtual nanoseconds since the
 * scenario's start. Every rule, with the numbers of seed 003 (limit 300 s, slowdown 0.5 per
 * aborted query, at most 3x):
 *
 * <ul>
 * <li>A query of idle duration {@code d}, started at {@code t}, runs {@code d × overload × s(t)},
 *     where {@code s(t) = min(maxSlowdown, 1 + abortedSlowdown × n)} and {@code n} is the number of
 *     queries we aborted that still run at {@code t}. The slowdown is fixed when the query starts.
 *     A 9 s query started while two aborted ones run takes 18 s.
 * <li>A run that reaches the server's limit is answered 504 at the limit: a 420 s query is
 *     answered 504 at 300 s, and then no longer runs.
 * <li>An answer that arrives at the budget or before it is in time; later, our timeout fires at
 *     the budget and the query is <em>aborted</em>. An aborted query keeps running on the server
 *     until its own run would have ended or the limit, whichever is first: a 128 s query slowed 2x
 *     and cut off at 10 s runs until 256 s after its start; a 420 s one until 300 s.
 * <li>{@code "hang"} never answers (no 504 either: the answer is lost on the way); cut off, it
 *     runs until the limit, or for ever without one.
 * <li>{@code {"fail": ...}} fails after its {@code afterMs} (if within the budget; else our
 *     timeout fires first). It runs no query.
 * <li>While an outage covers the stage, every attempt and probe fails as the outage says, whatever
 *     the request.
 * <li>The probe is a query of {@link TimeoutScenario#probeIdle()} like any other: slowed, overloaded,
 *     limited, aborted when cut off. A network failure belongs to the endpoint, not to a query:
 *     a probe sent while the caller is on a request that fails so (waiting for it, or in its
 *     back-off) fails the same way.
 * </ul>
 */
final class Server {

  /** How an attempt or probe ended, and when. */
  record Result(Outcome outcome, long duration, String label) {}

  private final TimeoutScenario scenario;
  /** When each aborted query still running ends; {@link Long#MAX_VALUE} for never. */
  private final List<Long> aborted = new ArrayList<>();

  Server(TimeoutScenario scenario) {
    this.scenario = scenario;
  }

  /** The slowdown of a query started at {@code now}. */
  double slowdown(long now) {
    aborted.removeIf(end -> end <= now);
    return Math.min(scenario.maxSlowdown(), 1 + scenario.abortedSlowdown() * aborted.size());
  }

  Result attempt(long now, Stage stage, Request request, long budget) {
    if (stage.outage() != null) {
      return fail(stage.outage(), budget);
    }
    if (request instanceof Fail fail) {
      return fail(fail, budget);
    }
    if (request instanceof Hang) {
      Long limit = scenario.serverLimit();
      abort(now, limit == null ? Long.MAX_VALUE : limit);
      return new Result(Outcome.TIMED_OUT, budget, "timeout");
    }
    return query(now, stage, ((Idle) request).nanos(), budget);
  }

  /** A probe sent while the caller is on {@code request}: a connection failure is the endpoint's, so it fails the probe too. */
  Result probe(long now, Stage stage, Request request, long budget) {
    if (stage.outage() != null) {
      return fail(stage.outage(), budget);
    }
    if (request instanceof Fail fail) {
      return fail(fail, budget);
    }
    return query(now, stage, scenario.probeIdle(), budget);
  }

  private Result query(long now, Stage stage, long idle, long budget) {
    double run = idle * stage.overload() * slowdown(now);
    @Nullable Long limit = scenario.serverLimit();
    boolean reachesLimit = limit != null && run >= limit;
    long answerAt = reachesLimit && limit != null ? limit : (long) Math.min(Math.ceil(run), Long.MAX_VALUE / 4);
    if (answerAt > budget) {
      abort(now, answerAt);
      return new Result(Outcome.TIMED_OUT, budget, "timeout");
    }
    return reachesLimit
        ? new Result(Outcome.SERVER_TIMEOUT, answerAt, "504")
        : new Result(Outcome.SUCCESS, answerAt, "ok");
  }

  private static Result fail(Fail fail, long budget) {
    if (fail.after() > budget) {
      return new Result(Outcome.TIMED_OUT, budget, "timeout");
    }
    return new Result(Outcome.UNREACHABLE, fail.after(), fail.failure().label());
  }

  private void abort(long startedAt, long runsFor) {
    aborted.add(runsFor == Long.MAX_VALUE ? Long.MAX_VALUE : startedAt + runsFor);
  }
}

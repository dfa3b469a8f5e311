package io.hostpace.simulator;

import io.hostpace.simulator.PacingScenario.Model;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import io.hostpace.testing.RefusingServer.Step;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Whether several processes shared their host or took it in turns: each process's accepted
 * attempts counted over the span in which every process had joined and none had yet finished,
 * from the latest join to the earliest of the processes' last accepted attempts, as
 * {@code [from, to)} (so that attempts a second apart from {@code from} on count one a second).
 * Of those counts, {@link #jain()}, Jain's fairness index, and {@link #perSecond()}, the rate all
 * processes together were accepted at. Times are nanoseconds from the run's start.
 *
 * <p>A process none of whose attempts was accepted never finished in this sense: it does not end
 * the span, and counts in it with none. The span is only defined for two processes or more; with
 * one process, or where the span is empty or holds no accepted attempt, there are no shares.
 */
final class PacingShares {

  /** When the last process joined. */
  final long from;
  /** The earliest of the processes' last accepted attempts' times. */
  final long to;
  /** Each process's accepted attempts within {@code [from, to)}, in process order. */
  private final long[] counts;

  private PacingShares(long from, long to, long[] counts) {
    this.from = from;
    this.to = to;
    this.counts = counts;
  }

  /**
   * The shares of processes that joined at {@code joins[p]} and whose attempts were accepted at the
   * times {@code accepted.get(p)} (in any order); null with fewer than two processes, when none
   * had an attempt accepted, or when no attempt was accepted within the span (as when a process's
   * last was accepted before the last one joined).
   */
  static @Nullable PacingShares of(long[] joins, List<List<Long>> accepted) {
    if (joins.length != accepted.size()) {
      throw new IllegalArgumentException(joins.length + " join times for " + accepted.size() + " processes");
    }
    if (joins.length < 2) {
      return null;
    }
    long from = Long.MIN_VALUE;
    for (long join : joins) {
      from = Math.max(from, join);
    }
    long to = Long.MAX_VALUE;
    for (List<Long> times : accepted) {
      if (!times.isEmpty()) {
        to = Math.min(to, times.stream().mapToLong(Long::longValue).max().getAsLong());
      }
    }
    if (to == Long.MAX_VALUE || to <= from) {
      return null;
    }
    long[] counts = new long[joins.length];
    long total = 0;
    for (int p = 0; p < counts.length; p++) {
      for (long t : accepted.get(p)) {
        if (t >= from && t < to) {
          counts[p]++;
        }
      }
      total += counts[p];
    }
    return total == 0 ? null : new PacingShares(from, to, counts);
  }

  /** Each process's accepted attempts within the span, in process order. */
  long[] counts() {
    return counts.clone();
  }

  /**
   * Jain's fairness index of the counts, {@code (Σx)² / (n·Σx²)}: 1 when every process had as
   * many accepted, {@code 1/n} when one had them all.
   */
  double jain() {
    double sum = 0;
    double squares = 0;
    for (long x : counts) {
      sum += x;
      squares += (double) x * x;
    }
    return sum * sum / (counts.length * squares);
  }

  /** The accepted attempts of all processes within the span, a second. */
  double perSecond() {
    long total = 0;
    for (long x : counts) {
      total += x;
    }
    return total / ((to - from) / 1e9);
  }

  /**
   * The rate of the scenario's server, where it has one, a token bucket whose rate no change
   * alters: what the processes' {@link #perSecond()} is to be read against. 0 where there is no
   * such rate (several servers, a fixed window or a gate, a rate that changes).
   */
  static double hostRate(PacingScenario scenario) {
    if (scenario.servers().size() != 1) {
      return 0;
    }
    ServerSpec server = scenario.servers().get(0);
    if (server.model() != Model.TOKEN_BUCKET) {
      return 0;
    }
    for (Step change : server.changes()) {
      if (change.rate() != null) {
        return 0;
      }
    }
    return server.rate();
  }
}

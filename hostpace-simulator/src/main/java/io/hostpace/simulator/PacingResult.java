package io.hostpace.simulator;

import static io.hostpace.simulator.TextTable.decimals;
import static io.hostpace.simulator.TextTable.whole;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * What a pacing scenario did under each of its policies, in the order the scenario names them:
 * the output of {@code hostpace simulate pacing}, written by {@link #toJson()} as one object with
 * a row per policy and the scenario's ideal time, every column of {@code Main pacing-table}:
 *
 * <pre>{@code
 * {"policies":[{"name":"seed","completed":300,"lost":0,"refusals":79,"refusalPct":20.8,
 *   "finishSeconds":476.3,"goodputRatio":0.63,"p50WaitMs":...,"p99WaitMs":...,
 *   "lateRefusals":45,"lateRefusalPct":13.3}, ...],
 *  "idealSeconds":299.1}
 * }</pre>
 *
 * <p>Each policy's fields are the {@link Policy} components of the same names, in their order,
 * except its start and refusal times; {@code idealSeconds}, the scenario's, comes once, after the
 * policies. Where the scenario has a fixed-window server, each policy also has
 * {@code firstWindowRefusalPct}, after {@code lateRefusalPct}. Where it has several processes, each
 * policy also has
 * {@code acceptedPerSecond}, {@code sharesJain} and {@code togetherOfRate} (each null where it is
 * not defined), and {@code processes}, a row per process ({@link Process}):
 *
 * <pre>{@code
 * ..., "lateRefusalPct":0.7, "acceptedPerSecond":0.964, "sharesJain":0.98, "togetherOfRate":0.96,
 *   "processes":[{"client":0,"process":0,"joinSeconds":0.0,"requests":75,"completed":75,"lost":0,
 *     "refusals":9,"openingRefusals":4}, {"client":0,"process":1,"joinSeconds":30.0,...}, ...]}
 * }</pre>
 *
 * Fields are only ever added, so that readers that pick them by name keep working.
 *
 * @param idealSeconds the shortest time in which the server models could accept every request,
 *     one decimal
 * @param policies each policy's replay, in the order the scenario names them
 */
public record PacingResult(double idealSeconds, List<Policy> policies) implements SimulationResult {

  public PacingResult {
    policies = List.copyOf(policies);
  }

  /**
   * One policy's replay. All fields but {@code starts} and {@code refused} are the JSON's; those
   * two are for tests and the chart.
   *
   * @param name the policy, as the scenario names it
   * @param completed requests whose last answer was accepted
   * @param lost requests that gave up after their retries or were unfinished at {@code maxSeconds}
   * @param refusals refused attempts
   * @param refusalPct refusals in percent of all attempts, one decimal
   * @param finishSeconds when the last request ended (answered or given up), one decimal; the
   *     scenario's {@code maxSeconds} when some were still unfinished then
   * @param goodputRatio the shortest time in which the servers could accept the requests completed
   *     ({@link PacingResult#idealSeconds()} when none was lost) divided by the unrounded finish,
   *     times the share of the requests completed (the share alone for a finish at 0 s); 0 to 1,
   *     two decimals
   * @param p50WaitMs median, from a request's arrival to the start of its last attempt (to
   *     {@code maxSeconds} for one never started), of the requests that arrived by then
   * @param p99WaitMs the 99th percentile of the same, nearest rank
   * @param lateRefusals refusals of attempts started after the first ten seconds
   * @param lateRefusalPct those, in percent of the attempts started after the first ten seconds
   *     (0 when none were), one decimal
   * @param firstWindowRefusalPct at the fixed-window servers, the refusals of attempts that arrived
   *     after the window of the first refusal at their server, in percent of those attempts (0 when
   *     none were; every attempt at a server that refused none, none refused), one decimal: what
   *     the client was refused once it had met the quota; null where no server is a fixed window
   * @param acceptedPerSecond the rate at which the servers accepted, from the first accepted attempt's
   *     start to the last one's: one less than the accepted attempts, divided by the seconds between
   *     (so a server of one a second that accepts at 0, 1, ..., 299 s accepted 1.0 a second); three
   *     decimals; 0 with fewer than two accepted, or all at once
   * @param sharesJain with several processes, whether they shared the host or took it in turns:
   *     Jain's fairness index {@code (Σx)² / (n·Σx²)} of the {@code n} processes' accepted attempts
   *     {@code x} over the span in which all had joined and none had finished, from the latest join
   *     to the earliest of the processes' last accepted attempts (a process with none accepted does
   *     not end it); 1 for equal shares, {@code 1/n} when one process had them all; two decimals;
   *     null with one process, where the processes call several hosts, or where that span is
   *     empty or holds no accepted attempt
   * @param togetherOfRate with several processes, what they all had accepted over that span, a
   *     second, divided by the server's rate where the scenario has one server, a token bucket
   *     whose rate does not change; two decimals; null where {@code sharesJain} is, or where there
   *     is no such rate
   * @param processes each process of each client, in the scenario's order
   * @param starts the start time of every attempt, seconds from the run's start
   * @param refused the start time of every refused attempt, seconds
   * @param unsent requests that arrived after {@code maxSeconds}, so were never sent: counted as
   *     lost, and not in the waits; in the JSON only where some were
   */
  // The times are arrays for the chart's and the tests' loops over thousands of starts; nothing
  // compares two replays as values (equals would compare the arrays by identity).
  @SuppressWarnings("ArrayRecordComponent")
  public record Policy(
      String name, int completed, int lost, int refusals, double refusalPct, double finishSeconds,
      double goodputRatio, long p50WaitMs, long p99WaitMs, int lateRefusals, double lateRefusalPct,
      @Nullable Double firstWindowRefusalPct, double acceptedPerSecond, @Nullable Double sharesJain,
      @Nullable Double togetherOfRate, List<Process> processes, double[] starts, double[] refused, int unsent) {

    public Policy {
      processes = List.copyOf(processes);
    }

    /** A replay whose every request arrived by {@code maxSeconds} ({@code unsent} 0). */
    public Policy(
        String name, int completed, int lost, int refusals, double refusalPct, double finishSeconds,
        double goodputRatio, long p50WaitMs, long p99WaitMs, int lateRefusals, double lateRefusalPct,
        @Nullable Double firstWindowRefusalPct, double acceptedPerSecond, @Nullable Double sharesJain,
        @Nullable Double togetherOfRate, List<Process> processes, double[] starts, double[] refused) {
      this(name, completed, lost, refusals, refusalPct, finishSeconds, goodputRatio, p50WaitMs, p99WaitMs,
          lateRefusals, lateRefusalPct, firstWindowRefusalPct, acceptedPerSecond, sharesJain, togetherOfRate,
          processes, starts, refused, 0);
    }

    /** A replay of a scenario without a fixed-window server ({@code firstWindowRefusalPct} null). */
    public Policy(
        String name, int completed, int lost, int refusals, double refusalPct, double finishSeconds,
        double goodputRatio, long p50WaitMs, long p99WaitMs, int lateRefusals, double lateRefusalPct,
        double acceptedPerSecond, @Nullable Double sharesJain, @Nullable Double togetherOfRate, List<Process> processes,
        double[] starts, double[] refused) {
      this(name, completed, lost, refusals, refusalPct, finishSeconds, goodputRatio, p50WaitMs, p99WaitMs,
          lateRefusals, lateRefusalPct, null, acceptedPerSecond, sharesJain, togetherOfRate, processes, starts, refused);
    }

    /**
     * A replay without the processes' shares ({@code sharesJain} and {@code togetherOfRate} null), of
     * a scenario without a fixed-window server.
     */
    public Policy(
        String name, int completed, int lost, int refusals, double refusalPct, double finishSeconds,
        double goodputRatio, long p50WaitMs, long p99WaitMs, int lateRefusals, double lateRefusalPct,
        double acceptedPerSecond, List<Process> processes, double[] starts, double[] refused) {
      this(name, completed, lost, refusals, refusalPct, finishSeconds, goodputRatio, p50WaitMs, p99WaitMs,
          lateRefusals, lateRefusalPct, acceptedPerSecond, null, null, processes, starts, refused);
    }

    /** The refusals of attempts started within {@code [fromSeconds, toSeconds)}. */
    public int refusalsBetween(double fromSeconds, double toSeconds) {
      return count(refused, fromSeconds, toSeconds);
    }

    /** The attempts started within {@code [fromSeconds, toSeconds)}. */
    public int startsBetween(double fromSeconds, double toSeconds) {
      return count(starts, fromSeconds, toSeconds);
    }

    static int count(double[] times, double from, double to) {
      int n = 0;
      for (double t : times) {
        if (t >= from && t < to) {
          n++;
        }
      }
      return n;
    }

    @Override
    public String toString() {
      return name + "{completed=" + completed + ", lost=" + lost + ", refusals=" + refusals + ", refusalPct="
          + refusalPct + ", finishSeconds=" + finishSeconds + ", goodputRatio=" + goodputRatio + ", p50WaitMs="
          + p50WaitMs + ", p99WaitMs=" + p99WaitMs + ", lateRefusalPct=" + lateRefusalPct
          + ", firstWindowRefusalPct=" + firstWindowRefusalPct + ", acceptedPerSecond="
          + acceptedPerSecond + ", sharesJain=" + sharesJain + ", togetherOfRate=" + togetherOfRate
          + ", processes=" + processes + ", unsent=" + unsent + "}";
    }
  }

  /**
   * What one process of a client did under a policy: a worker of a fleet, or one of several engines
   * learning alone.
   *
   * @param client the client's index in the scenario
   * @param process the process's index in its client, from 0
   * @param joinSeconds when it joined (its engine was built, its first request arrived), seconds
   * @param requests the requests dealt to it
   * @param completed those whose last answer was accepted
   * @param lost those that gave up after their retries or were unfinished at {@code maxSeconds}
   * @param refusals its refused attempts
   * @param openingRefusals those of them started within {@link PacingResult#OPENING_SECONDS} of its
   *     joining: what its opening cost the server
   * @param accepted the start time of each of its accepted attempts, seconds from the run's start: its
   *     share of the server over time, for tests and the chart (not in the JSON)
   */
  // An array for the chart's loops, as the policy's times are; nothing compares two processes as values.
  @SuppressWarnings("ArrayRecordComponent")
  public record Process(int client, int process, double joinSeconds, int requests, int completed, int lost,
      int refusals, int openingRefusals, double[] accepted) {

    /** A process whose accepted attempts' times are not kept. */
    public Process(int client, int process, double joinSeconds, int requests, int completed, int lost,
        int refusals, int openingRefusals) {
      this(client, process, joinSeconds, requests, completed, lost, refusals, openingRefusals, new double[0]);
    }

    /** Its accepted attempts started within {@code [fromSeconds, toSeconds)}. */
    public int acceptedBetween(double fromSeconds, double toSeconds) {
      return Policy.count(accepted, fromSeconds, toSeconds);
    }
  }

  /** How long after a process joins its refusals count as its opening's ({@link Process#openingRefusals}). */
  public static final double OPENING_SECONDS = 10;

  /** The replay of the policy named {@code name}. */
  public Policy policy(String name) {
    return policies.stream().filter(p -> p.name().equals(name)).findFirst()
        .orElseThrow(() -> new NoSuchElementException("no policy '" + name + "' in this result"));
  }

  /**
   * The result as JSON, one line: {@code policies}, each with every field but its times (the
   * refusals after the first window only when some server is a fixed window; its processes, their
   * accepted rate and their shares only when there are several), then
   * {@code idealSeconds}.
   */
  @Override
  public String toJson() {
    ObjectNode root = ScenarioJson.MAPPER.createObjectNode();
    ArrayNode list = root.putArray("policies");
    for (Policy p : policies) {
      ObjectNode node = list.addObject();
      node.put("name", p.name());
      node.put("completed", p.completed());
      node.put("lost", p.lost());
      node.put("refusals", p.refusals());
      node.put("refusalPct", p.refusalPct());
      node.put("finishSeconds", p.finishSeconds());
      node.put("goodputRatio", p.goodputRatio());
      node.put("p50WaitMs", p.p50WaitMs());
      node.put("p99WaitMs", p.p99WaitMs());
      node.put("lateRefusals", p.lateRefusals());
      node.put("lateRefusalPct", p.lateRefusalPct());
      if (p.firstWindowRefusalPct() != null) {
        node.put("firstWindowRefusalPct", p.firstWindowRefusalPct());
      }
      if (p.unsent() > 0) {
        node.put("unsent", p.unsent());
      }
      if (p.processes().size() > 1) {
        node.put("acceptedPerSecond", p.acceptedPerSecond());
        node.put("sharesJain", p.sharesJain());
        node.put("togetherOfRate", p.togetherOfRate());
        ArrayNode processes = node.putArray("processes");
        for (Process process : p.processes()) {
          ObjectNode row = processes.addObject();
          row.put("client", process.client());
          row.put("process", process.process());
          row.put("joinSeconds", process.joinSeconds());
          row.put("requests", process.requests());
          row.put("completed", process.completed());
          row.put("lost", process.lost());
          row.put("refusals", process.refusals());
          row.put("openingRefusals", process.openingRefusals());
        }
      }
    }
    root.put("idealSeconds", idealSeconds);
    return root.toString();
  }

  /**
   * The result as a table for a terminal: the ideal finish, a row per policy with every figure of
   * {@link #toJson()}, each heading with its unit, and what the figures mean; where the scenario has
   * a fixed-window server, also the refusals after the first window; where it has several
   * processes, also the rate the servers accepted at, the processes' shares while all ran and their
   * rate then (blank where not defined), and a table with a row per process.
   */
  @Override
  public String toTable() {
    boolean several = policies.stream().anyMatch(p -> p.processes().size() > 1);
    boolean windowed = policies.stream().anyMatch(p -> p.firstWindowRefusalPct() != null);
    TextTable table = new TextTable().text("policy").figure("completed").figure("lost").figure("refusals")
        .figure("refused %").figure("after 10 s %");
    if (windowed) {
      table.figure("after 1st window %");
    }
    table.figure("finish s").figure("goodput").figure("wait p50 ms").figure("wait p99 ms");
    if (several) {
      table.figure("accepted a second").figure("shares (Jain)").figure("together, of rate");
    }
    for (Policy p : policies) {
      List<String> cells = new ArrayList<>(List.of(p.name(), whole(p.completed()), whole(p.lost()),
          whole(p.refusals()), decimals(p.refusalPct(), 1), decimals(p.lateRefusalPct(), 1)));
      if (windowed) {
        cells.add(oneDecimalOrBlank(p.firstWindowRefusalPct()));
      }
      cells.addAll(List.of(decimals(p.finishSeconds(), 1), decimals(p.goodputRatio(), 2), whole(p.p50WaitMs()),
          whole(p.p99WaitMs())));
      if (several) {
        boolean hasProcesses = p.processes().size() > 1;
        cells.add(hasProcesses ? decimals(p.acceptedPerSecond(), 3) : "");
        cells.add(orBlank(p.sharesJain()));
        cells.add(orBlank(p.togetherOfRate()));
      }
      table.row(cells.toArray(String[]::new));
    }
    StringBuilder out = new StringBuilder()
        .append("ideal finish ").append(decimals(idealSeconds, 1))
        .append(" s: the soonest the servers could have accepted every request\n\n")
        .append(table)
        .append("\nrefused %: of the attempts; after 10 s %: refusals of attempts started after the first 10 s,"
            + " of those attempts;\n");
    if (windowed) {
      out.append("after 1st window %: at a fixed-window server, refusals of attempts that arrived after the window of"
          + " its first refusal, of those attempts;\n");
    }
    out.append("goodput: the ideal finish of the requests completed over the finish, times the share completed;"
        + " wait: from a request's arrival to its last attempt's start\n");
    int unsent = policies.isEmpty() ? 0 : policies.get(0).unsent(); // the same arrivals for every policy
    if (unsent > 0) {
      out.append(unsent).append(" requests arrived after maxSeconds and were never sent: lost, and not in the waits\n");
    }
    if (several) {
      out.append("shares (Jain): of the processes' accepted attempts while all had joined and none had finished,"
          + " 1 equal, 1/n one alone;\ntogether, of rate: all of them accepted a second then, of the server's rate\n");
      TextTable processes = new TextTable().text("policy").text("client.process").figure("joins at s")
          .figure("requests").figure("completed").figure("lost").figure("refusals").figure("in its first 10 s");
      for (Policy p : policies) {
        for (Process process : p.processes()) {
          processes.row(p.name(), process.client() + "." + process.process(), decimals(process.joinSeconds(), 1),
              whole(process.requests()), whole(process.completed()), whole(process.lost()),
              whole(process.refusals()), whole(process.openingRefusals()));
        }
      }
      out.append('\n').append(processes);
    }
    return out.toString();
  }

  /** Two decimals, or blank for a figure not defined. */
  static String orBlank(@Nullable Double figure) {
    return figure == null ? "" : decimals(figure, 2);
  }

  /** One decimal, or blank for a figure not defined. */
  private static String oneDecimalOrBlank(@Nullable Double figure) {
    return figure == null ? "" : decimals(figure, 1);
  }

  /**
   * Draws, per policy, starts and refusals over time into a PNG at {@code png}, and writes the
   * figures it draws to the CSV file {@link #csvBeside(Path)}: a line per policy and bin of time,
   * {@code policy,from_s,to_s,accepted,refused,accepted_per_s,refused_per_s}.
   */
  public void chart(Path png) throws IOException {
    PacingChart.write(this, png);
  }

  /** The CSV file {@link #chart} writes beside {@code png}: {@code qlever.csv} beside {@code qlever.png}. */
  public static Path csvBeside(Path png) {
    return PacingChart.csvBeside(png);
  }
}

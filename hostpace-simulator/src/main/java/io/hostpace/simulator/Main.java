package io.hostpace.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The simulator's command line: {@code pacing SCENARIO.json [--chart FILE.png]},
 * {@code timeouts SCENARIO.json} (a {@link Simulator} by its kind, one command for both) and
 * {@code pacing-table SCENARIO.json...} (the Markdown table of BENCHMARKS.md). Prints one JSON
 * object on standard output; a bad scenario or usage prints one line naming the field or option on
 * standard error, exit status 2.
 *
 * <pre>
 * java -cp hostpace-simulator/target/classes:... io.hostpace.simulator.Main pacing scenarios/pacing/qlever-like.json --chart docs/qlever-like.png
 * </pre>
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns its exit status: 0, 1 when a file cannot be read or written, 2 for usage. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length < 2) {
      err.println("usage: pacing SCENARIO.json [--chart FILE.png] | pacing-table SCENARIO.json... | timeouts SCENARIO.json");
      return 2;
    }
    List<String> rest = List.of(args).subList(1, args.length);
    try {
      if (args[0].equals("pacing-table")) {
        out.print(PacingTable.markdown(rest.stream().map(Path::of).toList()));
        return 0;
      }
      Optional<Simulator<?>> simulator = Simulator.named(args[0]);
      if (simulator.isEmpty()) {
        err.println("unknown simulation '" + args[0] + "': expected pacing, pacing-table or timeouts");
        return 2;
      }
      return simulate(simulator.get(), rest, out, err);
    } catch (ScenarioException e) {
      err.println(e.getMessage());
      return 2;
    } catch (IOException e) {
      err.println("cannot read or write: " + e.getMessage());
      return 1;
    }
  }

  /**
   * {@code pacing|timeouts SCENARIO.json [--chart FILE.png]}: the JSON on {@code out}; the chart
   * when asked, which a pacing result has.
   */
  private static int simulate(Simulator<?> simulator, List<String> args, PrintStream out, PrintStream err)
      throws IOException {
    boolean charts = simulator == Simulator.PACING;
    Path scenario = null;
    Path chart = null;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--chart") && charts) {
        if (i + 1 >= args.size()) {
          err.println("--chart: expected a file name, such as --chart qlever-like.png");
          return 2;
        }
        chart = Path.of(args.get(++i));
      } else if (arg.startsWith("--")) {
        err.println("unknown option '" + arg + "': expected " + (charts ? "--chart FILE.png" : "none"));
        return 2;
      } else if (scenario == null) {
        scenario = Path.of(arg);
      } else {
        err.println(simulator.kind() + ": expected one scenario file, got also '" + arg + "'");
        return 2;
      }
    }
    if (scenario == null) {
      err.println(simulator.kind() + ": expected a scenario file");
      return 2;
    }
    SimulationResult result;
    try {
      result = simulator.simulate(scenario);
    } catch (ScenarioException e) {
      err.println(scenario + ": " + e.getMessage());
      return 2;
    }
    out.println(result.toJson());
    if (chart != null && result instanceof PacingResult pacing) {
      pacing.chart(chart);
    }
    return 0;
  }
}

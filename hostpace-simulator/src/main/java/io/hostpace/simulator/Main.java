package io.hostpace.simulator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulator's command line: {@code pacing SCENARIO.json [--chart FILE.png]},
 * {@code pacing-table SCENARIO.json...} (the Markdown table of BENCHMARKS.md) and
 * {@code timeouts SCENARIO.json}. Prints one JSON object on standard output; a bad scenario or
 * usage prints one line naming the field or option on standard error, exit status 2.
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
    try {
      switch (args[0]) {
        case "pacing" -> {
          return pacing(List.of(args).subList(1, args.length), out, err);
        }
        case "pacing-table" -> {
          out.print(PacingTable.markdown(List.of(args).subList(1, args.length).stream().map(Path::of).toList()));
          return 0;
        }
        case "timeouts" -> {
          if (args.length != 2) {
            err.println("timeouts: expected one scenario file, got " + (args.length - 1) + " arguments");
            return 2;
          }
          out.println(TimeoutSimulation.run(Path.of(args[1])));
          return 0;
        }
        default -> {
          err.println("unknown simulation '" + args[0] + "': expected pacing, pacing-table or timeouts");
          return 2;
        }
      }
    } catch (ScenarioException e) {
      err.println(e.getMessage());
      return 2;
    } catch (IOException e) {
      err.println("cannot read or write: " + e.getMessage());
      return 1;
    }
  }

  /**
   * {@code hostpace simulate pacing SCENARIO.json [--chart FILE.png]}: the JSON on {@code out},
   * the chart when asked. For the CLI to call as it is.
   */
  public static int pacing(List<String> args, PrintStream out, PrintStream err) throws IOException {
    Path scenario = null;
    Path chart = null;
    List<String> rest = new ArrayList<>(args);
    for (int i = 0; i < rest.size(); i++) {
      String arg = rest.get(i);
      if (arg.equals("--chart")) {
        if (i + 1 >= rest.size()) {
          err.println("--chart: expected a file name, such as --chart qlever-like.png");
          return 2;
        }
        chart = Path.of(rest.get(++i));
      } else if (arg.startsWith("--")) {
        err.println("unknown option '" + arg + "': expected --chart FILE.png");
        return 2;
      } else if (scenario == null) {
        scenario = Path.of(arg);
      } else {
        err.println("pacing: expected one scenario file, got also '" + arg + "'");
        return 2;
      }
    }
    if (scenario == null) {
      err.println("pacing: expected a scenario file");
      return 2;
    }
    try {
      PacingResult result = PacingSimulation.simulate(scenario);
      out.println(result.toJson());
      if (chart != null) {
        PacingSimulation.chart(result, chart);
      }
      return 0;
    } catch (ScenarioException e) {
      err.println(scenario + ": " + e.getMessage());
      return 2;
    }
  }
}

package io.hostpace.cli;

import io.hostpace.simulator.PacingResult;
import io.hostpace.simulator.ScenarioException;
import io.hostpace.simulator.ShippedScenario;
import io.hostpace.simulator.SimulationResult;
import io.hostpace.simulator.Simulator;
import io.hostpace.simulator.TimeoutResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code hostpace simulate pacing|timeouts SCENARIO [--json]} and {@code hostpace simulate list}:
 * replays a scenario in virtual time against each policy it names and prints a table, or with
 * {@code --json} the simulator's result as one JSON object on one line. {@code SCENARIO} is the
 * name of a scenario shipped in the jar ({@code qlever-like}) or a scenario file. A scenario that
 * does not parse, or names an unknown policy kind, gets a message naming the field; an unknown name
 * one listing the names; exit status 2 for both.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
    description = "Replay a scenario in virtual time against policies, and print what each did.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the simulation's result was printed",
        "1:simulate pacing's --chart could not be drawn",
        "2:a usage error, said in one line: no simulation named, a scenario that is neither a file nor a shipped one, "
            + "or a field of it that is wrong"},
    footerHeading = "%nExamples:%n",
    footer = {"  hostpace simulate list",
        "  hostpace simulate pacing qlever-like --chart qlever.png",
        "  hostpace simulate timeouts seed-003"},
    subcommands = {SimulateCommand.Pacing.class, SimulateCommand.Timeouts.class, SimulateCommand.Listing.class})
final class SimulateCommand implements Runnable {

  @Spec
  @SuppressWarnings("NullAway.Init")
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(),
        "a simulation is missing: try 'hostpace simulate list', 'hostpace simulate pacing qlever-like'"
            + " or 'hostpace simulate timeouts SCENARIO.json'");
  }

  /**
   * The text of the scenario {@code argument} names: a file when one is there or the argument looks
   * like a path (has a folder or ends in {@code .json}), else the shipped scenario of that name.
   */
  static String scenarioText(String kind, Path argument, Function<String, ParameterException> usage) {
    String given = argument.toString();
    boolean path = given.isEmpty() || given.contains("/") || given.contains(java.io.File.separator)
        || given.endsWith(".json") || Files.exists(argument);
    if (path) {
      return FileOption.text("SCENARIO", argument, usage);
    }
    return ShippedScenario.named(kind, given).map(ShippedScenario::text)
        .orElseThrow(() -> usage.apply("SCENARIO '" + given + "' is neither a file nor a shipped " + kind
            + " scenario: expected a file or one of " + ShippedScenario.all(kind).stream()
                .map(ShippedScenario::name).collect(Collectors.joining(", "))));
  }

  /**
   * What replaying a scenario of either kind takes: the scenario, {@code --json}, and usage errors
   * that name the scenario's file and field.
   */
  abstract static class Replay<R extends SimulationResult> implements Callable<Integer> {

    final Main.Streams streams;
    private final Simulator<R> simulator;

    @Spec
    @SuppressWarnings("NullAway.Init")
    CommandSpec spec;

    @Parameters(paramLabel = "SCENARIO", description = "a shipped scenario's name, or a scenario file")
    Path scenario = Path.of("");

    @Option(names = "--json", description = "print the result as one JSON object on one line")
    boolean json;

    Replay(Main.Streams streams, Simulator<R> simulator) {
      this.streams = streams;
      this.simulator = simulator;
    }

    /** The scenario's text; a usage error when there is none. */
    String text() {
      return scenarioText(simulator.kind(), scenario, this::usage);
    }

    /** Replays {@code text} and prints the result, as a table or with {@code --json} one JSON line. */
    R replayed(String text) {
      R result;
      try {
        result = simulator.simulate(text);
      } catch (ScenarioException e) {
        throw usage(scenario + ": " + e.getMessage());
      }
      if (json) {
        streams.out().println(result.toJson());
      } else {
        streams.out().print(result.toTable());
      }
      return result;
    }

    ParameterException usage(String message) {
      return new ParameterException(spec.commandLine(), message);
    }
  }

  /** The timeout policies of a scenario of stages (SPEC D1 to D5). */
  @Command(name = "timeouts", mixinStandardHelpOptions = true,
      description = "Replay a scenario of query stages against timeout policies (see 'hostpace simulate list').",
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:each policy's result was printed",
          "2:a usage error, said in one line: a scenario that is neither a file nor a shipped one, or a field of it "
              + "that is wrong"},
      footerHeading = "%nExamples:%n",
      footer = {"  hostpace simulate timeouts seed-003",
          "  hostpace simulate timeouts my-stages.json --json"})
  static final class Timeouts extends Replay<TimeoutResult> {

    Timeouts(Main.Streams streams) {
      super(streams, Simulator.TIMEOUTS);
    }

    @Override
    public Integer call() {
      replayed(text());
      return Main.OK;
    }
  }

  /** The learning rules of a scenario of servers and clients (SPEC R4 and the performance goal). */
  @Command(name = "pacing", mixinStandardHelpOptions = true,
      description = "Replay a scenario of servers and clients against pacing policies (see 'hostpace simulate list').",
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:each policy's result was printed, and with --chart drawn",
          "1:--chart could not be drawn",
          "2:a usage error, said in one line: a scenario that is neither a file nor a shipped one, a field of it "
              + "that is wrong, or a --chart that cannot be written"},
      footerHeading = "%nExamples:%n",
      footer = {"  hostpace simulate pacing qlever-like",
          "  hostpace simulate pacing qlever-like --chart qlever.png",
          "  hostpace simulate pacing my-scenario.json --json"})
  static final class Pacing extends Replay<PacingResult> {

    @Option(names = "--chart", paramLabel = "FILE.png",
        description = "also draw, per policy, starts and refusals over time, and write their figures to FILE.csv beside it")
    @Nullable Path chart;

    Pacing(Main.Streams streams) {
      super(streams, Simulator.PACING);
    }

    @Override
    public Integer call() throws IOException {
      String text = text();
      if (chart != null) {
        FileOption.writableWithFoldersMade("--chart", chart, this::usage);
        FileOption.writable("--chart", PacingResult.csvBeside(chart), this::usage);
      }
      PacingResult result = replayed(text);
      if (chart != null) {
        result.chart(chart);
        streams.err().println("hostpace: drew " + chart + ", its figures in " + PacingResult.csvBeside(chart));
      }
      return Main.OK;
    }
  }

  /** {@code hostpace simulate list}: the shipped scenarios, by kind, a line each. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List the scenarios shipped with hostpace, to run by name.",
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {"0:the scenarios were listed", "2:a usage error, said in one line"},
      footerHeading = "%nExamples:%n",
      footer = {"  hostpace simulate list",
          "  hostpace simulate pacing kgf-like   # one it lists, by name"})
  static final class Listing implements Callable<Integer> {

    private final Main.Streams streams;

    Listing(Main.Streams streams) {
      this.streams = streams;
    }

    @Override
    public Integer call() {
      for (String kind : List.of(ShippedScenario.PACING, ShippedScenario.TIMEOUTS)) {
        List<ShippedScenario> scenarios = ShippedScenario.all(kind);
        int width = scenarios.stream().mapToInt(s -> s.name().length()).max().orElse(0);
        streams.out().println(kind + " scenarios (hostpace simulate " + kind + " NAME):");
        for (ShippedScenario s : scenarios) {
          streams.out().println(("  " + s.name() + " ".repeat(width - s.name().length()) + "  " + s.description()).stripTrailing());
        }
        if (kind.equals(ShippedScenario.PACING)) {
          streams.out().println();
        }
      }
      return Main.OK;
    }
  }
}

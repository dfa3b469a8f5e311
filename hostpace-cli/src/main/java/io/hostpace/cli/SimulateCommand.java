package io.hostpace.cli;

import io.hostpace.simulator.ScenarioException;
import io.hostpace.simulator.TimeoutSimulation;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code hostpace simulate timeouts SCENARIO.json}: replays a scenario in virtual time against
 * each policy it names and prints one JSON object. A scenario that does not parse, or names an
 * unknown policy kind, gets a message naming the field, exit status 2.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
    description = "Replay a scenario in virtual time against policies, and print the results as JSON.",
    subcommands = {SimulateCommand.Timeouts.class, SimulateCommand.Pacing.class})
final class SimulateCommand implements Runnable {

  @picocli.CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(spec.commandLine(),
        "a simulation is missing: try 'hostpace simulate pacing SCENARIO.json' or 'hostpace simulate timeouts SCENARIO.json'");
  }

  /** The timeout policies of a scenario of stages (SPEC D1 to D5). */
  @Command(name = "timeouts", mixinStandardHelpOptions = true,
      description = "Replay a scenario of query stages against timeout policies (see hostpace-simulator/scenarios/timeouts).")
  static final class Timeouts implements java.util.concurrent.Callable<Integer> {

    private final Main.Streams streams;

    @picocli.CommandLine.Spec
    @SuppressWarnings("NullAway.Init")
    picocli.CommandLine.Model.CommandSpec spec;


    @Parameters(paramLabel = "SCENARIO.json", description = "the scenario")
    Path scenario = Path.of("");

    Timeouts(Main.Streams streams) {
      this.streams = streams;
    }

    @Override
    public Integer call() throws IOException {
      FileOption.readable("SCENARIO.json", scenario, this::usage);
      try {
        streams.out().println(TimeoutSimulation.run(scenario));
        return Main.OK;
      } catch (ScenarioException e) {
        throw usage(scenario + ": " + e.getMessage());
      } catch (java.nio.charset.CharacterCodingException e) {
        throw usage("SCENARIO.json '" + scenario + "' is not UTF-8 text");
      }
    }

    private picocli.CommandLine.ParameterException usage(String message) {
      return new picocli.CommandLine.ParameterException(spec.commandLine(), message);
    }
  }

  /** The learning rules of a scenario of servers and clients (SPEC R4 and the performance goal). */
  @Command(name = "pacing", mixinStandardHelpOptions = true,
      description = "Replay a scenario of servers and clients against pacing policies (see hostpace-simulator/scenarios/pacing).")
  static final class Pacing implements java.util.concurrent.Callable<Integer> {

    private final Main.Streams streams;

    @picocli.CommandLine.Spec
    @SuppressWarnings("NullAway.Init")
    picocli.CommandLine.Model.CommandSpec spec;


    @Parameters(paramLabel = "SCENARIO.json", description = "the scenario")
    Path scenario = Path.of("");

    @picocli.CommandLine.Option(names = "--chart", paramLabel = "FILE.png",
        description = "also draw, per policy, starts and refusals over time")
    @org.jspecify.annotations.Nullable Path chart;

    Pacing(Main.Streams streams) {
      this.streams = streams;
    }

    @Override
    public Integer call() throws IOException {
      FileOption.readable("SCENARIO.json", scenario, this::usage);
      if (chart != null) {
        FileOption.writable("--chart", chart, this::usage);
      }
      io.hostpace.simulator.PacingResult result;
      try {
        result = io.hostpace.simulator.PacingSimulation.simulate(scenario);
      } catch (ScenarioException e) {
        throw usage(scenario + ": " + e.getMessage());
      } catch (java.nio.charset.CharacterCodingException e) {
        throw usage("SCENARIO.json '" + scenario + "' is not UTF-8 text");
      }
      streams.out().println(result.toJson());
      if (chart != null) {
        io.hostpace.simulator.PacingSimulation.chart(result, chart);
      }
      return Main.OK;
    }

    private picocli.CommandLine.ParameterException usage(String message) {
      return new picocli.CommandLine.ParameterException(spec.commandLine(), message);
    }
  }
}

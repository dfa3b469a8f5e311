package io.hostpace.cli;

import io.hostpace.Hostpace;
import picocli.CommandLine.Command;

/** The top of the command line: {@code hostpace <command>}. */
@Command(
    name = "hostpace",
    mixinStandardHelpOptions = true,
    versionProvider = HostpaceCommand.Version.class,
    description = "Fetch from shared public HTTP endpoints politely: paced per host, refusals retried.",
    subcommands = {FetchCommand.class, SparqlCommand.class, DemoCommand.class, SimulateCommand.class})
final class HostpaceCommand implements Runnable {

  @picocli.CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    // The command line that runs this one, which made its subcommands with their streams.
    throw new picocli.CommandLine.ParameterException(
        spec.commandLine(), "a command is missing: try 'hostpace demo', 'hostpace fetch --help' or 'hostpace sparql --help'");
  }

  /** {@code hostpace --version}. */
  static final class Version implements picocli.CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"hostpace " + Hostpace.VERSION};
    }
  }
}

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

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(
        new picocli.CommandLine(this), "a command is missing: try 'hostpace demo', 'hostpace fetch --help' or 'hostpace sparql --help'");
  }

  /** {@code hostpace --version}. */
  static final class Version implements picocli.CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"hostpace " + Hostpace.VERSION};
    }
  }
}

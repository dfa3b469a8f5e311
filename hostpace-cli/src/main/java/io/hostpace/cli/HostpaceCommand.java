package io.hostpace.cli;

import io.hostpace.Hostpace;
import picocli.CommandLine.Command;

/** The top of the command line: {@code hostpace <command>}. */
@Command(
    name = "hostpace",
    mixinStandardHelpOptions = true,
    versionProvider = HostpaceCommand.Version.class,
    description = "Fetch from shared public HTTP endpoints politely: paced per host, refusals retried.",
    subcommands = {FetchCommand.class, SparqlCommand.class, ProxyCommand.class, DemoCommand.class, SimulateCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:all went well", "1:some work failed", "2:a usage error: nothing was sent",
        "130:interrupted (Ctrl-C)"},
    footerHeading = "%nExamples:%n",
    footer = {"  hostpace demo",
        "  hostpace fetch --max-rate 1 https://example.org/a https://example.org/b",
        "  source <(hostpace completion)   # completion in bash or zsh"})
final class HostpaceCommand implements Runnable {

  /**
   * Adds {@code hostpace completion}, picocli's generator of a bash and zsh completion script for
   * every command and option, shown in the help as the other commands are, with its exit codes
   * and examples as theirs end.
   */
  static void addCompletion(picocli.CommandLine commandLine) {
    picocli.CommandLine completion = new picocli.CommandLine(new picocli.AutoComplete.GenerateCompletion());
    // Its own name is picocli's, generate-completion: its help says the name it is run by.
    completion.setCommandName("completion");
    commandLine.addSubcommand("completion", completion);
    completion.getCommandSpec().usageMessage().hidden(false)
        .description("Print a bash and zsh completion script: source <(hostpace completion)")
        .exitCodeListHeading("%nExit codes:%n")
        .exitCodeList(new java.util.TreeMap<>(java.util.Map.of("0", "the script was printed",
            "2", "a usage error, said in one line")))
        .footerHeading("%nExamples:%n")
        .footer("  source <(hostpace completion)                 # in this shell, bash or zsh",
            "  hostpace completion > ~/.hostpace-completion  # once; in .bashrc or .zshrc:",
            "  source ~/.hostpace-completion");
  }

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

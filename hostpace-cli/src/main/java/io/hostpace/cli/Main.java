package io.hostpace.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * {@code hostpace}: exit status 0 when all went well, 1 when some work failed (a URL got no
 * HTTP answer), 2 for a usage error, which prints one line naming the option and what is wrong.
 */
public final class Main {

  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.in, System.out, System.err));
  }

  /** Runs the command in this process, for the tests and for embedding. */
  public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    Streams streams = new Streams(in, out, err);
    CommandLine commandLine = new CommandLine(new HostpaceCommand(), new StreamsFactory(streams));
    commandLine.setExpandAtFiles(false); // '--data @FILE' is ours, not picocli's argument file
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setParameterExceptionHandler((exception, arguments) -> {
      err.println("hostpace: " + exception.getMessage());
      return USAGE;
    });
    commandLine.setExecutionExceptionHandler((exception, command, parseResult) -> {
      if (exception instanceof CommandLine.ParameterException usage) {
        err.println("hostpace: " + usage.getMessage());
        return USAGE;
      }
      err.println("hostpace: " + exception);
      return FAILED;
    });
    return commandLine.execute(args);
  }

  /** The standard streams a command runs with. */
  record Streams(InputStream in, PrintStream out, PrintStream err) {}

  /** Hands each command that takes them the streams of this run. */
  private record StreamsFactory(Streams streams) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> type) throws Exception {
      try {
        return type.cast(type.getDeclaredConstructor(Streams.class).newInstance(streams));
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(type);
      }
    }
  }
}

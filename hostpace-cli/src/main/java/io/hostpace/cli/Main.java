package io.hostpace.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * {@code hostpace}: exit status 0 when all went well, 1 when some work failed (a URL got no
 * HTTP answer), 2 for a usage error, which prints one line naming the option and what is wrong,
 * 130 for a run ended by Ctrl-C.
 * Every such line goes through {@link Printable#line}: it stays one line whatever the input held,
 * and shows no password of a URI; it names no exception class.
 */
public final class Main {

  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;
  /** A run ended by Ctrl-C (SIGINT): the JVM's status for the signal, 128 + 2, as a shell's. */
  static final int INTERRUPTED = 130;

  private Main() {}

  public static void main(String[] args) {
    LogSetup.quietLibraries();
    System.exit(run(args, System.in, System.out, System.err));
  }

  /** Runs the command in this process, for the tests and for embedding. */
  public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    Streams streams = new Streams(in, out, err);
    CommandLine commandLine = new CommandLine(new HostpaceCommand(), new StreamsFactory(streams));
    HostpaceCommand.addCompletion(commandLine);
    commandLine.registerConverter(java.nio.file.Path.class, FileOption::convert);
    commandLine.registerConverter(Integer.class, Numbers::whole);
    commandLine.registerConverter(int.class, Numbers::whole);
    commandLine.setExpandAtFiles(false); // '--data @FILE' is ours, not picocli's argument file
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setParameterExceptionHandler((exception, arguments) -> {
      // picocli starts some of its messages with "Error: ", which the "hostpace: " before says.
      err.println("hostpace: " + Printable.line(String.valueOf(exception.getMessage()).replaceFirst("^Error: ", "")));
      return USAGE;
    });
    commandLine.setExecutionExceptionHandler((exception, command, parseResult) -> {
      if (exception instanceof CommandLine.ParameterException usage) {
        err.println("hostpace: " + Printable.line(String.valueOf(usage.getMessage())));
        return USAGE;
      }
      err.println("hostpace: " + Printable.line(failure(exception)));
      return FAILED;
    });
    try (LogSetup logs = LogSetup.toStderr(err)) {
      return commandLine.execute(args);
    }
  }

  /** What went wrong in a run, said without the exception's class where its message says it. */
  static String failure(Throwable exception) {
    if (exception instanceof java.nio.file.FileSystemException file) {
      String reason = file.getReason();
      return file.getFile() + ": " + (reason != null ? reason
          : exception instanceof java.nio.file.NoSuchFileException ? "no such file or folder"
          : exception instanceof java.nio.file.AccessDeniedException ? "permission denied"
          : "cannot be read or written");
    }
    String message = exception.getMessage();
    return message == null || message.isBlank() ? exception.getClass().getSimpleName() : message;
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

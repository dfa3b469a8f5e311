package io.hostpace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What the command line knows of the terminal it draws on: whether standard error is one, and
 * how wide it is.
 *
 * <p>Java 17 has no way to ask whether standard error is a terminal: {@code System.console()}
 * is there only when standard input and standard output both are, so it is absent for
 * {@code hostpace fetch > out.jsonl} although the progress line would show. On Linux the
 * descriptor's link says it: {@code /proc/self/fd/2} names a terminal device ({@code /dev/pts/3},
 * {@code /dev/tty1}, {@code /dev/console}), or a file, a pipe ({@code pipe:[1234]}) or a socket.
 * Where there is no such link (macOS, Windows), the console is the one sign left, and standard
 * error is taken for a terminal when the console is there.
 */
final class Terminal {

  /** The width a summary takes when {@code COLUMNS} says none. */
  static final int DEFAULT_COLUMNS = 80;

  private static final Pattern DEVICE = Pattern.compile("/dev/(pts/\\d+|tty[A-Za-z0-9]*|console)");

  private final Path standardError;
  private final boolean console;

  /**
   * @param standardError the link that names the file standard error is, {@code /proc/self/fd/2} on Linux
   * @param console whether the JVM has a console, the sign taken where there is no such link
   */
  Terminal(Path standardError, boolean console) {
    this.standardError = standardError;
    this.console = console;
  }

  /** This process's terminal. */
  static Terminal ofThisProcess() {
    return new Terminal(Path.of("/proc/self/fd/2"), System.console() != null);
  }

  /** Whether standard error is a terminal, by the rule above. */
  boolean standardErrorIsTerminal() {
    Path descriptors = standardError.getParent();
    if (descriptors == null || !Files.isDirectory(descriptors)) {
      return console;
    }
    String target;
    try {
      target = Files.readSymbolicLink(standardError).toString();
    } catch (IOException | UnsupportedOperationException e) {
      return false; // a descriptor that is closed, or no link: nothing to draw on
    }
    return DEVICE.matcher(target).matches();
  }

  /**
   * The columns a summary or a progress line may take: {@code COLUMNS} when it is a positive
   * whole number, else {@link #DEFAULT_COLUMNS}.
   */
  static int columns(Map<String, String> environment) {
    String columns = environment.get("COLUMNS");
    if (columns != null) {
      try {
        int width = Integer.parseInt(columns.strip());
        if (width > 0) {
          return width;
        }
      } catch (NumberFormatException e) {
        // not a width: the default
      }
    }
    return DEFAULT_COLUMNS;
  }
}

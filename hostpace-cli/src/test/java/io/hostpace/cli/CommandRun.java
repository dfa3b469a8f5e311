package io.hostpace.cli;

import io.hostpace.testkit.ClosedPorts;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one run of the command line printed, and its exit status: {@code CommandRun.of("fetch", url)}
 * runs {@link Main#run} in this process with nothing on standard input, {@code withInput} with some.
 * For what only a JVM of its own shows (the environment, signals, a kill), {@link #process} starts
 * the command as {@code bin/hostpace} does. Every method makes what it uses, so test classes that
 * run at once share nothing through it.
 */
record CommandRun(int status, String out, String err) {

  /** Runs {@code hostpace args} in this process with an empty standard input. */
  static CommandRun of(String... args) {
    return withInput("", args);
  }

  /** Runs {@code hostpace args} in this process with {@code stdin} as its standard input. */
  static CommandRun withInput(String stdin, String... args) {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    int status = Main.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
        new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));
    return new CommandRun(status, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
  }

  /** A port on 127.0.0.1 that refuses connections while this JVM runs ({@link ClosedPorts}). */
  static int closedPort() throws IOException {
    return ClosedPorts.next();
  }

  /** {@code hostpace args} as a JVM of its own, small and quick to start, for the caller to redirect and start. */
  static ProcessBuilder process(String... args) {
    return process(List.of(), args);
  }

  /**
   * {@code hostpace args} as a JVM of its own, as {@link #process(String...)}, with
   * {@code jvmOptions} given to the JVM before its main class: what only a JVM's start can set,
   * such as {@code -Djdk.net.hosts.file=FILE}, which makes its resolver read host names from FILE
   * alone (the JDK's resolver cannot be told a name from inside a running JVM).
   */
  static ProcessBuilder process(List<String> jvmOptions, String... args) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-XX:TieredStopAtLevel=1"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command);
  }

  /**
   * Runs {@code hostpace args} as a process of its own with {@code environment} added to this one's,
   * nothing on its standard input, and returns once it exited.
   */
  static Exited inProcessOfItsOwn(Map<String, String> environment, String... args) throws IOException, InterruptedException {
    ProcessBuilder builder = process(args).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Process started = builder.start();
    started.getOutputStream().close();
    String output = new String(started.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Exited(started.waitFor(), output);
  }

  /** A process's exit status and what it printed, standard output and error together as they came. */
  record Exited(int status, String output) {}
}

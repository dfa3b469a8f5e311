package io.hostpace.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One worker of {@code hostpace demo --fleet}: {@code hostpace fetch} in a JVM of its own, started
 * from the same jar or classpath as this one ({@code java.class.path}) with the same {@code java},
 * its JSON lines and its errors written to temporary files. {@link #await} waits for it to end by a
 * deadline and destroys it if it overruns; {@link #close()} destroys it if it still runs and deletes
 * its files, so that no worker outlives the demo.
 */
final class WorkerProcess implements AutoCloseable {

  /** Small and quick to start: a worker fetches a few dozen URLs. */
  private static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
  /** The exit status of a worker that was destroyed at its deadline. */
  static final int STOPPED = -1;
  private static final Pattern STATUS = Pattern.compile("\"status\":(\\d+)");
  private static final Pattern ATTEMPTS = Pattern.compile("\"attempts\":(\\d+)");

  private final String name;
  private final Process process;
  private final Path records;
  private final Path errors;
  private final long startNanos;
  private final java.util.concurrent.CompletableFuture<Long> endNanos; // System.nanoTime() when it exited

  private WorkerProcess(String name, Process process, Path records, Path errors, long startNanos) {
    this.name = name;
    this.process = process;
    this.records = records;
    this.errors = errors;
    this.startNanos = startNanos;
    this.endNanos = process.onExit().thenApply(exited -> System.nanoTime());
  }

  /**
   * What one worker did: its exit status ({@link #STOPPED} when it was destroyed), its URLs, those answered 200,
   * its refusals, and how long it ran, from its start to its exit.
   */
  record Result(String name, int exitStatus, int urls, int answered, int refusals, Duration took, String lastError) {
    /** Still running at its deadline, and so destroyed. */
    boolean stopped() {
      return exitStatus == STOPPED;
    }

    /** Ended with an error: a URL without an HTTP answer (1), a usage error (2), or a crash. */
    boolean failed() {
      return exitStatus != Main.OK && exitStatus != STOPPED;
    }
  }

  /** Starts {@code hostpace fetch fetchArguments} in a new JVM. */
  static WorkerProcess start(String name, List<String> fetchArguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.add("-cp");
    command.add(classPath());
    command.add(Main.class.getName());
    command.add("fetch");
    command.addAll(fetchArguments);
    Path records = Files.createTempFile("hostpace-demo-worker-", ".jsonl");
    Path errors = Files.createTempFile("hostpace-demo-worker-", ".err");
    try {
      long startNanos = System.nanoTime();
      Process process = new ProcessBuilder(command)
          .redirectOutput(records.toFile())
          .redirectError(errors.toFile())
          .start();
      process.getOutputStream().close(); // it reads no input
      return new WorkerProcess(name, process, records, errors, startNanos);
    } catch (IOException e) {
      Files.deleteIfExists(records);
      Files.deleteIfExists(errors);
      throw new IOException("cannot start " + name + " (" + command.get(0) + "): " + Main.failure(e), e);
    }
  }

  /** The jar this runs from ({@code java -jar}), or its classpath; never empty. */
  static String classPath() {
    String classPath = System.getProperty("java.class.path", "");
    if (classPath.isBlank()) {
      throw new IllegalStateException("cannot start the demo's workers: java.class.path is empty, so the jar or"
          + " classes this command runs from are unknown; run it as java -jar hostpace.jar demo --fleet");
    }
    return classPath;
  }

  /** The worker's process id, to see that it is gone. */
  long pid() {
    return process.pid();
  }

  /**
   * Waits until the worker ends, at most until {@code deadlineNanos} ({@link System#nanoTime()}),
   * then destroys it; reads what it printed.
   */
  Result await(long deadlineNanos) throws InterruptedException, IOException {
    long left = Math.max(0, deadlineNanos - System.nanoTime());
    int exitStatus;
    if (process.waitFor(left, TimeUnit.NANOSECONDS)) {
      exitStatus = process.exitValue();
    } else {
      destroy();
      exitStatus = STOPPED;
    }
    int urls = 0;
    int answered = 0;
    int refusals = 0;
    for (String line : Files.readAllLines(records, StandardCharsets.UTF_8)) {
      Matcher status = STATUS.matcher(line);
      Matcher attempts = ATTEMPTS.matcher(line);
      if (!attempts.find()) {
        continue;
      }
      urls++;
      // Every attempt but the last was refused (nothing else is retried), and the last too if it was a 429.
      boolean refusedLast = status.find() && status.group(1).equals("429");
      refusals += Integer.parseInt(attempts.group(1)) - 1 + (refusedLast ? 1 : 0);
      if (status.reset().find() && status.group(1).equals("200")) {
        answered++;
      }
    }
    String lastError = exitStatus == STOPPED ? "still running at its deadline, it was stopped"
        : "exit status " + exitStatus + ": " + lastLine(errors);
    Duration took = Duration.ofNanos(endNanos.getNow(System.nanoTime()) - startNanos);
    return new Result(name, exitStatus, urls, answered, refusals, took, lastError);
  }

  private static String lastLine(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (!lines.get(i).isBlank()) {
        return lines.get(i).strip();
      }
    }
    return "";
  }

  private void destroy() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** Destroys the worker if it still runs, and deletes its files. */
  @Override
  public void close() throws IOException, InterruptedException {
    try {
      if (process.isAlive()) {
        destroy();
      }
    } finally {
      Files.deleteIfExists(records);
      Files.deleteIfExists(errors);
    }
  }
}

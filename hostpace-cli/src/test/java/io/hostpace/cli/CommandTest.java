package io.hostpace.cli;

/**
 * A test class that runs the command line in this process: {@link #run} runs {@code hostpace args}
 * with {@link #stdin} as its standard input and keeps what it printed in {@link #out} and
 * {@link #err}. Each test method has an instance of its own, so classes that run at once share
 * nothing through these fields.
 */
abstract class CommandTest {

  /** The standard input of the next {@link #run}: nothing unless a test sets it. */
  String stdin = "";
  /** What the last {@link #run} printed on standard output. */
  String out = "";
  /** What the last {@link #run} printed on standard error. */
  String err = "";

  /** Runs {@code hostpace args}, keeps what it printed, and returns its exit status. */
  int run(String... args) {
    CommandRun ran = CommandRun.withInput(stdin, args);
    out = ran.out();
    err = ran.err();
    return ran.status();
  }
}

package io.hostpace;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One process of {@link HostStateFileSharingTest}: loads the state file {@code args[0]}, says
 * "loaded" on standard output, waits for a line on standard input (so that every process has
 * loaded the file before any saves), teaches host {@code args[1]} the interval {@code args[2]}
 * (nanoseconds) as the engine would, through the store's state, and saves. Exits 0 when saved.
 */
final class HostStateFileProcess {

  private HostStateFileProcess() {}

  public static void main(String[] args) throws Exception {
    Clock clock = Clock.system();
    HostStateFile kept = HostStateFile.load(Path.of(args[0]), clock, Duration.ofDays(1));
    System.out.println("loaded");
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    kept.open(args[1]).interval(Long.parseLong(args[2]), clock.nanoTime());
    kept.save();
  }
}

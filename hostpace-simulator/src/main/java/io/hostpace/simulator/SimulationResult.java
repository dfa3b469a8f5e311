package io.hostpace.simulator;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * What a {@link Simulator} reports: a row per policy of the scenario, in the order the scenario
 * names them, written as one JSON object on one line or as a table for a terminal. Fields are
 * only ever added, so that readers that pick them by name keep working.
 */
public sealed interface SimulationResult permits PacingResult, TimeoutResult {

  /** This result as one JSON object on one line. */
  String toJson();

  /** This result as a table for a terminal ({@link TextTable}), each heading with its unit. */
  String toTable();

  /** Writes {@link #toJson()} and a line end to {@code out}, leaving it open. */
  default void writeJson(OutputStream out) {
    try {
      out.write((toJson() + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

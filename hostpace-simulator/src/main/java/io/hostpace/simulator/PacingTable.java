package io.hostpace.simulator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The results of several pacing scenarios as one Markdown table, a row per scenario and policy. */
final class PacingTable {

  private PacingTable() {}

  static String markdown(List<Path> scenarios) throws IOException {
    StringBuilder out = new StringBuilder()
        .append("| scenario | ideal s | policy | completed | lost | refusals | refused % | refused after 10 s,"
            + " % of requests | finish s | goodput | p50 wait ms | p99 wait ms |\n")
        .append("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Path file : scenarios) {
      PacingResult result = PacingSimulation.simulate(file);
      String name = file.getFileName().toString().replaceFirst("\\.json$", "");
      boolean first = true;
      for (PacingResult.Policy p : result.policies()) {
        out.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %d | %.1f | %.1f | %.1f | %.2f | %d | %d |%n",
            first ? name : "", first ? Double.toString(result.idealSeconds()) : "",
            p.name().equals("hostpace") ? "**hostpace**" : p.name(), p.completed(), p.lost(), p.refusals(),
            p.refusalPct(), p.lateRefusalPct(), p.finishSeconds(), p.goodputRatio(), p.p50WaitMs(), p.p99WaitMs()));
        first = false;
      }
    }
    return out.toString();
  }
}

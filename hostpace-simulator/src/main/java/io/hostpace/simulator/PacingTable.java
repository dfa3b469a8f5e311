package io.hostpace.simulator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The results of several pacing scenarios as Markdown: a table with a row per scenario and policy
 * (the refusals after the first window blank for a scenario without a fixed-window server), and,
 * when some scenario has several processes, a second with a row per such scenario and policy:
 * the rate the server accepted at, each process's join time and refusals, in process order, and
 * the processes' shares of the server while all ran and their rate then, of the server's rate
 * (blank where not defined).
 */
final class PacingTable {

  private PacingTable() {}

  static String markdown(List<Path> scenarios) throws IOException {
    StringBuilder out = new StringBuilder()
        .append("| scenario | ideal s | policy | completed | lost | refusals | refused % | refused after 10 s,"
            + " % of attempts then | refused after the first window, % of attempts then | finish s | goodput"
            + " | p50 wait ms | p99 wait ms |\n")
        .append("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    List<String> processRows = new ArrayList<>();
    for (Path file : scenarios) {
      PacingResult result;
      try {
        result = Simulator.PACING.simulate(file);
      } catch (ScenarioException e) {
        throw e.in(file); // which of the files is at fault
      }
      String name = file.getFileName().toString().replaceFirst("\\.json$", "");
      boolean first = true;
      for (PacingResult.Policy p : result.policies()) {
        String policy = p.name().equals("hostpace") ? "**hostpace**" : p.name();
        out.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %d | %.1f | %.1f | %s | %.1f | %.2f | %d | %d |%n",
            first ? name : "", first ? Double.toString(result.idealSeconds()) : "",
            policy, p.completed(), p.lost(), p.refusals(), p.refusalPct(), p.lateRefusalPct(),
            oneDecimal(p.firstWindowRefusalPct()), p.finishSeconds(), p.goodputRatio(), p.p50WaitMs(), p.p99WaitMs()));
        if (p.processes().size() > 1) {
          processRows.add(String.format(Locale.ROOT, "| %s | %s | %.3f | %s | %s | %s | %s | %s |%n",
              first ? name : "", policy, p.acceptedPerSecond(),
              each(p, process -> seconds(process.joinSeconds())),
              each(p, process -> Integer.toString(process.refusals())),
              each(p, process -> Integer.toString(process.openingRefusals())),
              twoDecimals(p.sharesJain()), twoDecimals(p.togetherOfRate())));
        }
        first = false;
      }
    }
    if (!processRows.isEmpty()) {
      out.append('\n')
          .append("| scenario | policy | accepted a second | processes join at s | refusals, by process"
              + " | of them in its first 10 s | shares while all ran (Jain) | together, of the host's rate, while all ran |\n")
          .append("| --- | --- | ---: | --- | --- | --- | ---: | ---: |\n");
      processRows.forEach(out::append);
    }
    return out.toString();
  }

  private static String each(PacingResult.Policy policy, Function<PacingResult.Process, String> figure) {
    return policy.processes().stream().map(figure).collect(Collectors.joining(", "));
  }

  /** One decimal, as the other percentages; blank for a figure not defined (no fixed-window server). */
  private static String oneDecimal(@Nullable Double figure) {
    return figure == null ? "" : String.format(Locale.ROOT, "%.1f", figure);
  }

  /** Two decimals, as the table's other figures; blank for a figure not defined. */
  private static String twoDecimals(@Nullable Double figure) {
    return figure == null ? "" : String.format(Locale.ROOT, "%.2f", figure);
  }

  /** Seconds without a trailing ".0": {@code 30}, {@code 2.5}. */
  private static String seconds(double seconds) {
    return seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds);
  }
}

package io.hostpace.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The figures the pacing chart draws and its CSV holds: per policy, the attempts started in each
 * bin of time, accepted and refused, as counts and as rates a second, on one time scale for every
 * policy; and each policy's own rate scale, set by the bins after the first, so that an opening
 * burst does not flatten the rest. Where the scenario has several processes, also each process's
 * accepted attempts in each bin: how the server's rate was shared over time.
 *
 * <p>Bins are 1, 2 or 5 times a power of ten seconds, at most {@value #BINS} across the longest
 * finish, which the last one holds: a run that finishes at 476.3 s spans 480 s in 96 bins of 5 s.
 */
final class PacingBins {

  /** At most this many bins across. */
  static final int BINS = 100;

  final double span;
  final double width;
  final int count;
  final List<Row> rows;

  /** One policy's bins; {@code byProcess[p]}, process {@code p}'s accepted attempts, when it has several. */
  record Row(PacingResult.Policy policy, int[] accepted, int[] refused, int[][] byProcess, double scale) {

    double processRate(int process, int bin, double width) {
      return byProcess[process][bin] / width;
    }

    double acceptedRate(int bin, double width) {
      return accepted[bin] / width;
    }

    double refusedRate(int bin, double width) {
      return refused[bin] / width;
    }
  }

  PacingBins(PacingResult result) {
    double longest = 1;
    for (PacingResult.Policy p : result.policies()) {
      longest = Math.max(longest, p.finishSeconds());
    }
    width = niceCeil(longest / BINS);
    count = Math.max(1, (int) Math.ceil(longest / width - 1e-9));
    span = count * width;
    List<Row> list = new ArrayList<>();
    for (PacingResult.Policy p : result.policies()) {
      int[] started = histogram(p.starts());
      int[] refused = histogram(p.refused());
      int[] accepted = new int[count];
      double maxRate = 0.1;
      for (int b = 0; b < count; b++) {
        accepted[b] = started[b] - refused[b];
        if (b > 0) {
          maxRate = Math.max(maxRate, started[b] / width);
        }
      }
      int[][] byProcess = new int[p.processes().size() > 1 ? p.processes().size() : 0][];
      for (int i = 0; i < byProcess.length; i++) {
        byProcess[i] = histogram(p.processes().get(i).accepted());
      }
      list.add(new Row(p, accepted, refused, byProcess, niceCeil(maxRate * 1.1)));
    }
    rows = List.copyOf(list);
  }

  double from(int bin) {
    return bin * width;
  }

  /**
   * The figures as CSV, a line per policy and bin, every bin of every policy:
   * {@code policy,from_s,to_s,accepted,refused,accepted_per_s,refused_per_s}; where the scenario
   * has several processes, then each one's accepted a second, {@code accepted_per_s_0.0} for client
   * 0's process 0 and so on.
   */
  String csv() {
    StringBuilder out = new StringBuilder("policy,from_s,to_s,accepted,refused,accepted_per_s,refused_per_s");
    List<PacingResult.Process> processes = rows.isEmpty() || rows.get(0).byProcess().length == 0
        ? List.of() : rows.get(0).policy().processes();
    for (PacingResult.Process process : processes) {
      out.append(",accepted_per_s_").append(process.client()).append('.').append(process.process());
    }
    out.append('\n');
    for (Row row : rows) {
      for (int b = 0; b < count; b++) {
        out.append(row.policy().name()).append(',')
            .append(plain(from(b))).append(',').append(plain(from(b + 1))).append(',')
            .append(row.accepted()[b]).append(',').append(row.refused()[b]).append(',')
            .append(plain(row.acceptedRate(b, width))).append(',').append(plain(row.refusedRate(b, width)));
        for (int i = 0; i < row.byProcess().length; i++) {
          out.append(',').append(plain(row.processRate(i, b, width)));
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private int[] histogram(double[] times) {
    int[] counts = new int[count];
    for (double t : times) {
      int b = (int) Math.floor(t / width);
      counts[Math.max(0, Math.min(count - 1, b))]++;
    }
    return counts;
  }

  /** 1, 2 or 5 times a power of ten, at least {@code value}. */
  static double niceCeil(double value) {
    double power = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * power >= value - 1e-9) {
        return step * power;
      }
    }
    return 10 * power;
  }

  /** A number as a person writes it: {@code 2}, {@code 0.5}, {@code 0.333}; three decimals at most. */
  static String plain(double value) {
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    return new java.math.BigDecimal(String.format(Locale.ROOT, "%.3f", value)).stripTrailingZeros().toPlainString();
  }
}

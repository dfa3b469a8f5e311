package io.hostpace.cli;

import java.time.Duration;
import java.util.Locale;

/**
 * What the progress line of {@code hostpace fetch} says at one moment, a function of the counts
 * and the time alone: {@code 46 of 200 done, 1 in flight, 153 waiting, 0:12, 3.8/s, about 0:41 left}
 * (done of all, in flight and waiting in the engine's queues, the time since the start).
 * The rate is the URLs done per second since the start; the time left is what is not done at
 * that rate, said only once {@link #ESTIMATE_AFTER_DONE} are done and
 * {@link #ESTIMATE_AFTER} has passed, as fewer say little of the rest.
 */
record ProgressLine(int done, int total, int inFlight, int waiting, Duration elapsed) {

  /** The URLs done before the line estimates what is left. */
  static final int ESTIMATE_AFTER_DONE = 5;
  /** The time run before the line estimates what is left. */
  static final Duration ESTIMATE_AFTER = Duration.ofSeconds(2);

  ProgressLine {
    if (done < 0 || total < 0 || inFlight < 0 || waiting < 0 || elapsed.isNegative()) {
      throw new IllegalArgumentException("a progress line counts from zero: done " + done + ", total " + total
          + ", in flight " + inFlight + ", waiting " + waiting + ", elapsed " + elapsed);
    }
  }

  /** The URLs done per second since the start, 0 before any time has passed. */
  double rate() {
    double seconds = elapsed.toNanos() / 1e9;
    return seconds > 0 ? done / seconds : 0;
  }

  /** The line, cut to {@code width - 1} columns so that it never wraps (a terminal wraps at its last column). */
  String text(int width) {
    StringBuilder line = new StringBuilder()
        .append(done).append(" of ").append(total).append(" done, ")
        .append(inFlight).append(" in flight, ")
        .append(waiting).append(" waiting, ")
        .append(clock(elapsed)).append(", ")
        .append(rate(rate()));
    if (done < total && done >= ESTIMATE_AFTER_DONE && elapsed.compareTo(ESTIMATE_AFTER) >= 0) {
      // Up to the next second, so the last moments say 0:01, not 0:00.
      long leftSeconds = (long) Math.ceil((total - done) / rate());
      line.append(", about ").append(clock(Duration.ofSeconds(leftSeconds))).append(" left");
    }
    int room = Math.max(1, width - 1);
    return line.length() <= room ? line.toString() : line.substring(0, room);
  }

  /** {@code 3.8/s}, or {@code 1.6/min} below a tenth a second, where a second's figure would say 0.0. */
  private static String rate(double perSecond) {
    return perSecond > 0 && perSecond < 0.1
        ? String.format(Locale.ROOT, "%.1f/min", perSecond * 60)
        : String.format(Locale.ROOT, "%.1f/s", perSecond);
  }

  /** {@code 0:07}, {@code 12:30}, {@code 1:02:03}: whole seconds, as a clock shows them. */
  static String clock(Duration duration) {
    long seconds = duration.toSeconds();
    long hours = seconds / 3600;
    long minutes = seconds / 60 % 60;
    return hours > 0
        ? String.format(Locale.ROOT, "%d:%02d:%02d", hours, minutes, seconds % 60)
        : String.format(Locale.ROOT, "%d:%02d", minutes, seconds % 60);
  }
}

package io.hostpace.cli;

import io.hostpace.HostpaceEvent;
import io.hostpace.HostpaceListener;
import io.hostpace.Rate;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The table {@code hostpace fetch} prints at the end, a row per host (and group): requests,
 * answers by status, refusals, retries, the learned interval and the longest pause, and what else
 * the default rule learned: how many at once the host holds, and the quota it counts in fixed
 * windows; then the run's totals (URLs, completed, failed, refusals, retries, the time it took).
 * Laid out in lines no wider than it is told: a table when that fits, else a line per host with
 * what it taught wrapped below. Built from the engine's events, so it outlives the engine letting
 * an idle host go.
 */
final class HostSummary implements HostpaceListener {

  private static final class Row {
    int requests;
    final Map<Integer, Integer> statuses = new TreeMap<>();
    int noAnswer;
    int refusals;
    int retries;
    Duration interval = Duration.ZERO;
    Duration longestPause = Duration.ZERO;
    int inFlightLimit;
    @Nullable Rate quota;
  }

  private final Map<String, Row> rows = new TreeMap<>();
  private final Map<URI, String> hostOf = new ConcurrentHashMap<>();
  private int completed; // guarded by this
  private int failed; // guarded by this

  @Override
  public synchronized void onEvent(HostpaceEvent event) {
    Row row = rows.computeIfAbsent(event.key(), key -> new Row());
    if (event instanceof HostpaceEvent.Queued queued) {
      hostOf.putIfAbsent(queued.uri(), queued.key());
      if (queued.attempt() == 1) {
        row.requests++;
      }
    } else if (event instanceof HostpaceEvent.Refused) {
      row.refusals++;
    } else if (event instanceof HostpaceEvent.Retried) {
      row.retries++;
    } else if (event instanceof HostpaceEvent.IntervalChanged changed) {
      row.interval = changed.to();
    } else if (event instanceof HostpaceEvent.InFlightLimitChanged changed) {
      row.inFlightLimit = changed.to();
    } else if (event instanceof HostpaceEvent.QuotaChanged changed) {
      row.quota = changed.to();
    } else if (event instanceof HostpaceEvent.Paused paused) {
      if (paused.pause().compareTo(row.longestPause) > 0) {
        row.longestPause = paused.pause();
      }
    }
  }

  /** Counts the outcome of one call. */
  synchronized void outcome(URI uri, FetchRecord record) {
    String host = hostOf.get(uri);
    if (host == null) {
      return; // never reached a queue: a bad URL
    }
    // A host is in hostOf only after an event of it made its row.
    Row row = Objects.requireNonNull(rows.get(host), "no row for host '" + host + "'");
    if (record.answered()) {
      row.statuses.merge(record.status(), 1, Integer::sum);
    } else {
      row.noAnswer++;
    }
  }

  /** The last interval the engine learned for {@code key}, zero when none. */
  synchronized Duration interval(String key) {
    Row row = rows.get(key);
    return row == null ? Duration.ZERO : row.interval;
  }

  /** The longest pause {@code key} asked for (a {@code Retry-After}, an announced quota), zero when none. */
  synchronized Duration longestPause(String key) {
    Row row = rows.get(key);
    return row == null ? Duration.ZERO : row.longestPause;
  }

  /** Counts one URL done, whether or not it reached a host: completed or failed. */
  synchronized void finished(FetchRecord record) {
    if (record.complete()) {
      completed++;
    } else {
      failed++;
    }
  }

  private static final String[] HEADINGS =
      {"host", "requests", "answers", "refusals", "retries", "interval", "max pause", "at once", "quota"};
  /** The columns aligned left; the others, numbers, are aligned right. */
  private static final java.util.Set<Integer> LEFT = java.util.Set.of(0, 2);

  /**
   * Prints the summary of a run of {@code urls} URLs that took {@code elapsed}, in lines of at
   * most {@code width} columns: the table of hosts when it fits, else each host on a line of its
   * own followed by what it taught, wrapped; then the totals. A word longer than the width (a
   * long host name) has a line of its own.
   */
  synchronized void print(PrintStream err, int width, Duration elapsed, int urls) {
    List<String[]> cells = new ArrayList<>();
    for (Map.Entry<String, Row> entry : rows.entrySet()) {
      Row row = entry.getValue();
      StringBuilder answers = new StringBuilder();
      row.statuses.forEach((status, count) -> answers.append(answers.length() > 0 ? " " : "").append(status).append(':').append(count));
      if (row.noAnswer > 0) {
        answers.append(answers.length() > 0 ? " " : "").append("none:").append(row.noAnswer);
      }
      cells.add(new String[] {entry.getKey(), entry.getKey().startsWith("*.") ? "-" : Integer.toString(row.requests),
          answers.length() == 0 ? "-" : answers.toString(), Integer.toString(row.refusals), Integer.toString(row.retries),
          millis(row.interval), millis(row.longestPause),
          row.inFlightLimit == 0 ? "-" : Integer.toString(row.inFlightLimit), quota(row.quota)});
    }
    int[] widths = new int[HEADINGS.length];
    int tableWidth = 2 * (HEADINGS.length - 1);
    for (int column = 0; column < HEADINGS.length; column++) {
      widths[column] = HEADINGS[column].length();
      for (String[] row : cells) {
        widths[column] = Math.max(widths[column], row[column].length());
      }
      tableWidth += widths[column];
    }
    if (!cells.isEmpty() && tableWidth <= width) {
      err.println(tableLine(HEADINGS, widths));
      for (String[] row : cells) {
        err.println(tableLine(row, widths));
      }
    } else {
      for (String[] row : cells) {
        List<String> taught = new ArrayList<>();
        for (int column = 1; column < HEADINGS.length; column++) {
          // The counts always; what was learned only when something was.
          if (column <= 4 || !row[column].equals("-")) {
            taught.add(HEADINGS[column] + " " + row[column]);
          }
        }
        err.println(row[0]);
        wrap("  ", "  ", taught, width).forEach(err::println);
      }
    }
    int refusals = 0;
    int retries = 0;
    for (Map.Entry<String, Row> entry : rows.entrySet()) {
      if (!entry.getKey().startsWith("*.")) {
        refusals += entry.getValue().refusals;
        retries += entry.getValue().retries;
      }
    }
    int done = completed + failed;
    List<String> totals = List.of(done == urls ? Counted.of(urls, "request", "requests")
            : done + " of " + Counted.of(urls, "request", "requests") + " done",
        completed + " completed", failed + " failed", Counted.of(refusals, "refusal", "refusals"),
        Counted.of(retries, "retry", "retries"),
        "in " + elapsed(elapsed));
    wrap("total: ", "  ", totals, width).forEach(err::println);
  }

  /** One line of the table, its columns two spaces apart. */
  private static String tableLine(String[] cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int column = 0; column < cells.length; column++) {
      if (column > 0) {
        line.append("  ");
      }
      String pad = " ".repeat(widths[column] - cells[column].length());
      line.append(LEFT.contains(column) ? cells[column] + pad : pad + cells[column]);
    }
    return line.toString().stripTrailing();
  }

  /**
   * {@code items} joined by ", " in lines of at most {@code width} columns, the first starting
   * with {@code first}, the others with {@code indent}; an item is never split, so one longer
   * than the width has a line of its own.
   */
  static List<String> wrap(String first, String indent, List<String> items, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder(first);
    int start = first.length();
    for (int i = 0; i < items.size(); i++) {
      String item = items.get(i) + (i < items.size() - 1 ? "," : "");
      if (line.length() > start && line.length() + 1 + item.length() > width) {
        lines.add(line.toString());
        line = new StringBuilder(indent);
        start = indent.length();
      }
      line.append(line.length() > start ? " " : "").append(item);
    }
    lines.add(line.toString());
    return lines;
  }

  /** {@code 12.3 s} under a minute, then {@code 2:05} or {@code 1:02:03}. */
  static String elapsed(Duration elapsed) {
    return elapsed.compareTo(Duration.ofMinutes(1)) < 0
        ? String.format(java.util.Locale.ROOT, "%.1f s", elapsed.toMillis() / 1000.0)
        : ProgressLine.clock(elapsed);
  }

  /** {@code 60 per 60 s}: the window is the time from one window's first start to the next one's. */
  private static String quota(@Nullable Rate quota) {
    if (quota == null) {
      return "-";
    }
    double seconds = quota.per().toMillis() / 1000.0;
    return quota.permits() + " per " + (seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds)) + " s";
  }

  private static String millis(Duration duration) {
    return duration.isZero() ? "-" : duration.toMillis() + " ms";
  }
}

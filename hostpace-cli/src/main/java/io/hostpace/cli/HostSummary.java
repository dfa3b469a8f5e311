package io.hostpace.cli;

import io.hostpace.HostpaceEvent;
import io.hostpace.HostpaceListener;
import io.hostpace.Rate;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The table {@code hostpace fetch} prints at the end, a row per host (and group): requests,
 * answers by status, refusals, retries, the learned interval and the longest pause, and what else
 * the default rule learned: how many at once the host holds, and the quota it counts in fixed
 * windows. Built from the engine's events, so it outlives the engine letting an idle host go.
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

  synchronized void print(PrintStream err) {
    if (rows.isEmpty()) {
      return;
    }
    String format = "%-32s %8s  %-24s %8s %8s %10s %10s %8s %14s%n";
    err.printf(format, "host", "requests", "answers (status:count)", "refusals", "retries", "interval", "max pause",
        "at once", "quota");
    for (Map.Entry<String, Row> entry : rows.entrySet()) {
      Row row = entry.getValue();
      StringBuilder answers = new StringBuilder();
      row.statuses.forEach((status, count) -> answers.append(answers.length() > 0 ? " " : "").append(status).append(':').append(count));
      if (row.noAnswer > 0) {
        answers.append(answers.length() > 0 ? " " : "").append("none:").append(row.noAnswer);
      }
      err.printf(format, entry.getKey(), entry.getKey().startsWith("*.") ? "-" : Integer.toString(row.requests),
          answers.length() == 0 ? "-" : answers, row.refusals, row.retries, millis(row.interval), millis(row.longestPause),
          row.inFlightLimit == 0 ? "-" : Integer.toString(row.inFlightLimit), quota(row.quota));
    }
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

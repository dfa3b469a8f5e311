package io.hostpace;

import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What hosts taught, kept in a file across runs (SPEC S1): the next run starts each host at the
 * pace, in-flight limit and pause the last one left it with, so its first requests do not pay
 * for them again (a burst of 32 refused by a host that takes one a second, say).
 *
 * <pre>{@code
 * HostStateFile kept = HostStateFile.load(Path.of("hostpace-state.tsv"));
 * Hostpace engine = Hostpace.builder().hostStateStore(kept).build();
 * ... the run ...
 * kept.save();
 * }</pre>
 *
 * <p>Kept per host and group: the learned interval, the learned in-flight limit, and a pause
 * that has not ended (as a wall-clock time). Not kept: the learning rule's own memory (the rule
 * goes on from the kept pace, probing as after any change), a learned quota (learned again from
 * the host's first wall of refusals), the time of the last start (the first request of a run
 * never waits, SPEC P11). What a host taught longer than {@code keepFor} before the run began is
 * not loaded, and the engine forgets what an idle host taught as it always does
 * ({@link Hostpace.Builder#forgetIdleAfter}), here too.
 *
 * <p>The file is text, a line per host: key, the wall-clock time it was saved (Unix
 * milliseconds), the interval (nanoseconds), the in-flight limit, the end of its pause (Unix
 * milliseconds, 0 for none), separated by tabs; lines starting with {@code #} are comments.
 * {@link #save()} writes a new file beside it and moves it in place, so a run that dies while
 * saving leaves the last one whole.
 *
 * <p>Thread-safe: the engine changes states under its lock, and {@link #save()} may run on any
 * thread at any time (it reads what each change published, never a state mid-change). One file
 * serves one engine at a time: two processes that save the same file overwrite each other's
 * (sharing what hosts taught between running processes is SPEC S2's, not this class's).
 */
public final class HostStateFile implements HostStateStore {

  private static final String HEADER =
      "# hostpace host state, v1: key, saved (Unix ms), interval (ns), in-flight limit, paused until (Unix ms, 0: none)";

  /** What one host taught, as its last change left it; times are the clock's nanoseconds. */
  private record Learned(long interval, int inFlightLimit, long pausedUntil, boolean paused, long at) {
    boolean nothing(long now) {
      return interval == 0 && inFlightLimit == 0 && !(paused && pausedUntil - now > 0);
    }
  }

  private static final long YEAR_NANOS = Duration.ofDays(365).toNanos();

  private final Path file;
  private final Clock clock;
  private final Duration keepFor;
  private final Map<String, Learned> learned = new ConcurrentHashMap<>();
  private final HostStateStore states = HostStateStore.inMemory(this::changed);

  private HostStateFile(Path file, Clock clock, Duration keepFor) {
    this.file = file;
    this.clock = clock;
    this.keepFor = keepFor;
  }

  /** {@link #load(Path, Clock, Duration)} on the system clock, keeping what was taught in the last day. */
  public static HostStateFile load(Path file) throws IOException {
    return load(file, Clock.system(), Duration.ofDays(1));
  }

  /**
   * What {@code file} kept of the hosts, or nothing when there is no such file yet; {@code clock}
   * must be the engine's. Entries saved more than {@code keepFor} ago are left out.
   *
   * @throws IOException the file cannot be read
   * @throws IllegalArgumentException a line is not one this class writes; the message names the
   *     file, the line and what is wrong with it
   */
  public static HostStateFile load(Path file, Clock clock, Duration keepFor) throws IOException {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(clock, "clock");
    if (keepFor.isNegative()) {
      throw new IllegalArgumentException("keepFor must be zero or more, got " + keepFor);
    }
    HostStateFile kept = new HostStateFile(file, clock, keepFor);
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return kept;
    }
    long nowNanos = clock.nanoTime();
    long nowMillis = clock.instant().toEpochMilli();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] fields = line.split("\t");
      if (fields.length != 5 || fields[0].isEmpty()) {
        throw bad(file, i, "expected 5 fields separated by tabs, got " + fields.length);
      }
      long saved = number(file, i, "saved", fields[1]);
      long interval = number(file, i, "interval", fields[2]);
      long limit = number(file, i, "in-flight limit", fields[3]);
      long pausedUntil = number(file, i, "paused until", fields[4]);
      if (limit > Integer.MAX_VALUE) {
        throw bad(file, i, "in-flight limit " + limit + " is too large");
      }
      if (interval > YEAR_NANOS) {
        throw bad(file, i, "interval " + interval + " ns is more than a year");
      }
      if (pausedUntil > nowMillis + YEAR_NANOS / 1_000_000L) {
        throw bad(file, i, "paused until " + pausedUntil + " is more than a year from now");
      }
      String key;
      try {
        key = HostKey.normaliseLimitKey(fields[0]); // as the engine keys it now, however it was written
      } catch (IllegalArgumentException e) {
        throw bad(file, i, "key '" + fields[0] + "' is not a host's: " + e.getMessage());
      }
      if (nowMillis - saved > keepFor.toMillis()) {
        continue; // taught too long ago
      }
      long pauseLeft = pausedUntil == 0 ? 0 : Math.max(0, pausedUntil - nowMillis);
      Learned taught = new Learned(interval, (int) limit,
          nowNanos + pauseLeft * 1_000_000L, pauseLeft > 0, nowNanos - (nowMillis - saved) * 1_000_000L);
      // Two spellings of one host (a file an older run keyed otherwise): the later saved is what it taught last.
      kept.learned.merge(key, taught, (earlier, later) -> later.at() - earlier.at() >= 0 ? later : earlier);
    }
    return kept;
  }

  private static long number(Path file, int line, String field, String text) {
    try {
      long value = Long.parseLong(text.strip());
      if (value < 0) {
        throw bad(file, line, field + " must be zero or more, got " + text);
      }
      return value;
    } catch (NumberFormatException e) {
      throw bad(file, line, field + " is not a whole number: '" + text + "'");
    }
  }

  private static IllegalArgumentException bad(Path file, int line, String what) {
    return new IllegalArgumentException("host state file " + file + ", line " + (line + 1) + ": " + what);
  }

  /** The file this store loads from and saves to. */
  public Path file() {
    return file;
  }

  /** The hosts and groups it knows something of now, by key. */
  public List<String> keys() {
    long now = clock.nanoTime();
    return learned.entrySet().stream().filter(e -> !e.getValue().nothing(now)).map(Map.Entry::getKey).sorted().toList();
  }

  /**
   * Writes what every host taught, as its last change left it, to {@link #file()}: a new file
   * beside it, moved in place. Hosts that taught nothing, or only longer than {@code keepFor}
   * ago, are left out.
   */
  public void save() throws IOException {
    long nowNanos = clock.nanoTime();
    Instant nowWall = clock.instant();
    long nowMillis = nowWall.toEpochMilli();
    Map<String, Learned> sorted = new TreeMap<>(learned);
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path temp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try {
      try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
        out.write(HEADER);
        out.write('\n');
        for (Map.Entry<String, Learned> entry : sorted.entrySet()) {
          Learned host = entry.getValue();
          long saved = nowMillis - (nowNanos - host.at()) / 1_000_000L;
          if (host.nothing(nowNanos) || nowMillis - saved > keepFor.toMillis()) {
            continue;
          }
          long pausedUntil = host.paused() && host.pausedUntil() - nowNanos > 0
              ? nowMillis + (host.pausedUntil() - nowNanos + 999_999L) / 1_000_000L
              : 0;
          out.write(entry.getKey() + "\t" + saved + "\t" + host.interval() + "\t" + host.inFlightLimit() + "\t"
              + pausedUntil + "\n");
        }
      }
      try {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** {@link #save()}, for a place that cannot throw a checked exception. */
  public void saveUnchecked() {
    try {
      save();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save host state to " + file, e);
    }
  }

  /**
   * What a state's change taught, published whole so that {@link #save()} never reads a state
   * mid-change; called under the engine's lock.
   */
  private void changed(HostState state) {
    Learned now = new Learned(state.interval(), state.inFlightLimit(), state.pausedUntil(), state.paused(),
        clock.nanoTime());
    if (now.nothing(now.at())) {
      learned.remove(state.key());
    } else {
      learned.put(state.key(), now);
    }
  }

  @Override
  public HostState open(String key) {
    HostState state = states.open(key);
    Learned known = learned.get(key);
    if (known != null) {
      long now = clock.nanoTime();
      state.interval(known.interval(), now);
      state.inFlightLimit(known.inFlightLimit());
      if (known.paused() && known.pausedUntil() - now > 0) {
        state.pauseUntil(known.pausedUntil());
      }
    }
    return state;
  }

  @Override
  public void close(HostState state) {
    // Every change was published as it was made.
  }

  @Override
  public String toString() {
    return "HostStateFile{" + file + "}";
  }
}

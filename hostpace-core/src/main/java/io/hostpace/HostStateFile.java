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
 * pace, in-flight limit, quota and pause the last one left it with, so its first requests do not
 * pay for them again (a burst of 32 refused by a host that takes one a second, say).
 *
 * <pre>{@code
 * HostStateFile kept = HostStateFile.load(Path.of("hostpace-state.tsv"));
 * Hostpace engine = Hostpace.builder().hostStateStore(kept).build();
 * ... the run ...
 * kept.save();
 * }</pre>
 *
 * <p>Kept per host and group: the learned interval, the learned in-flight limit, the learned
 * quota (so many starts a window, the engine's first start of a run then a window's probe), and a
 * pause that has not ended (as a wall-clock time). Not kept: the learning rule's own memory (the
 * rule goes on from the kept pace, probing as after any change), the time of the last start (the
 * first request of a run never waits, SPEC P11), where the host's quota windows begin. What a
 * host taught longer than {@code keepFor} before the run began is not loaded, and the engine
 * forgets what an idle host taught as it always does ({@link Hostpace.Builder#forgetIdleAfter}),
 * here too. The engine holds what it loads to its own limits, as it does for every store: a kept
 * pause lasts at most this run's retry delay limit ({@link Hostpace.Builder#retryDelayLimit}).
 *
 * <p>The file is text, a line per host: key, the wall-clock time it was saved (Unix
 * milliseconds), the interval (nanoseconds), the in-flight limit, the end of its pause (Unix
 * milliseconds, 0 for none), the quota's permits (0 for none) and window (nanoseconds, 0 for
 * none), separated by tabs; lines starting with {@code #} are comments, the first one naming the
 * format's version. This is version 2; a file of version 1 (the same, without the quota's two
 * fields) loads as well, with no quota. {@link #save()} writes a new file beside it and moves it
 * in place, so a run that dies while saving leaves the last one whole.
 *
 * <p>Thread-safe: the engine changes states under its lock, and {@link #save()} may run on any
 * thread at any time (it reads what each change published, never a state mid-change). One file
 * serves one engine at a time: two processes that save the same file overwrite each other's
 * (sharing what hosts taught between running processes is SPEC S2's, not this class's).
 */
public final class HostStateFile implements HostStateStore {

  private static final System.Logger LOG = System.getLogger(HostStateFile.class.getName());

  /** How the header of a file names its version: this, then the version's number. */
  private static final String VERSION_MARK = "# hostpace host state, v";
  /** The version {@link #save()} writes; {@link #load} reads it and every one before. */
  private static final int VERSION = 2;
  private static final String HEADER = VERSION_MARK + VERSION + ": key, saved (Unix ms), interval (ns),"
      + " in-flight limit, paused until (Unix ms, 0: none), quota permits (0: none), quota window (ns)";
  /** The fields of a line of version 1, and of version 2, which adds the quota's permits and window. */
  private static final int FIELDS_V1 = 5;
  private static final int FIELDS_V2 = 7;

  /** What one host taught, as its last change left it; times are the clock's nanoseconds. */
  private record Learned(
      long interval, int inFlightLimit, long pausedUntil, boolean paused, int quotaPermits, long quotaWindow, long at) {
    boolean nothing(long now) {
      return interval == 0 && inFlightLimit == 0 && quotaPermits == 0 && !(paused && pausedUntil - now > 0);
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
   * @throws IllegalArgumentException a line is not one this class writes (of this version or an
   *     earlier one); the message names the file, the line and what is wrong with it
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
      if (line.startsWith(VERSION_MARK)) {
        checkVersion(file, i, line);
      }
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] fields = line.split("\t");
      if (fields.length != FIELDS_V2 && fields.length != FIELDS_V1 || fields[0].isEmpty()) {
        throw bad(file, i, "expected " + FIELDS_V2 + " fields separated by tabs (" + FIELDS_V1
            + " in a file of version 1), got " + fields.length);
      }
      long saved = number(file, i, "saved", fields[1]);
      long interval = number(file, i, "interval", fields[2]);
      long limit = number(file, i, "in-flight limit", fields[3]);
      long pausedUntil = number(file, i, "paused until", fields[4]);
      long permits = fields.length == FIELDS_V2 ? number(file, i, "quota permits", fields[5]) : 0;
      long window = fields.length == FIELDS_V2 ? number(file, i, "quota window", fields[6]) : 0;
      if (limit > Integer.MAX_VALUE) {
        throw bad(file, i, "in-flight limit " + limit + " is too large");
      }
      if (interval > YEAR_NANOS) {
        throw bad(file, i, "interval " + interval + " ns is more than a year");
      }
      if (permits > Integer.MAX_VALUE) {
        throw bad(file, i, "quota permits " + permits + " is too large");
      }
      if (window > YEAR_NANOS) {
        throw bad(file, i, "quota window " + window + " ns is more than a year");
      }
      if ((permits == 0) != (window == 0)) {
        throw bad(file, i, permits == 0
            ? "quota window " + window + " ns without quota permits (0 permits: no quota, and a window of 0)"
            : "quota permits " + permits + " without a quota window (0 ns)");
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
      Learned taught = new Learned(interval, (int) limit, nowNanos + pauseLeft * 1_000_000L, pauseLeft > 0,
          (int) permits, window, nowNanos - (nowMillis - saved) * 1_000_000L);
      // Two spellings of one host (a file an older run keyed otherwise): the later saved is what it taught last.
      kept.learned.merge(key, taught, (earlier, later) -> later.at() - earlier.at() >= 0 ? later : earlier);
    }
    return kept;
  }

  /**
   * A header line that names the version of the file: one this class reads (its own or an earlier
   * one), or an error that says the file was written by a later version of Hostpace.
   */
  private static void checkVersion(Path file, int line, String header) {
    String text = header.substring(VERSION_MARK.length());
    int end = 0;
    while (end < text.length() && Character.isDigit(text.charAt(end))) {
      end++;
    }
    int version;
    try {
      version = Integer.parseInt(text.substring(0, end));
    } catch (NumberFormatException e) {
      throw bad(file, line, "version is not a whole number: '" + header + "'");
    }
    if (version < 1 || version > VERSION) {
      throw bad(file, line, "version " + version + " is not one this Hostpace reads (1 to " + VERSION
          + "): the file was written by another release");
    }
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
   * ago, are left out. A file that cannot be written is logged at {@code WARNING} on the
   * {@code System.Logger} {@code io.hostpace.HostStateFile}, with the exception, and thrown: a
   * run often saves as it ends, where an exception is easily lost, and the next run then starts
   * from nothing without saying why.
   *
   * @throws IOException the file or its temporary sibling cannot be written or moved in place
   */
  public void save() throws IOException {
    save(LOG);
  }

  /** {@link #save()}, warning on {@code log}. */
  void save(System.Logger log) throws IOException {
    try {
      write();
    } catch (IOException | RuntimeException e) {
      log.log(System.Logger.Level.WARNING, "cannot save host state to " + file + ": " + e.getMessage()
          + "; the next run starts without what this one learned", e);
      throw e;
    }
  }

  private void write() throws IOException {
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
              + pausedUntil + "\t" + host.quotaPermits() + "\t" + host.quotaWindow() + "\n");
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
    int permits = Math.max(0, state.quotaPermits());
    Learned now = new Learned(state.interval(), state.inFlightLimit(), state.pausedUntil(), state.paused(),
        permits, permits > 0 ? state.quotaWindow() : 0, clock.nanoTime());
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
      if (known.quotaPermits() > 0) {
        state.quota(known.quotaPermits(), known.quotaWindow());
      }
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

package io.hostpace;

import io.hostpace.internal.NumberText;
import io.hostpace.internal.Redaction;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

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
 * <p>The file is text, a line per host: key, the wall-clock time of what the host taught (Unix
 * milliseconds), the interval (nanoseconds), the in-flight limit, the end of its pause (Unix
 * milliseconds, 0 for none), the quota's permits (0 for none) and window (nanoseconds, 0 for
 * none), separated by tabs, each line ended by a newline; lines starting with {@code #} are
 * comments, the first one naming the format's version. This is version 2; a file of version 1
 * (the same, without the quota's two fields) loads as well, with no quota. A line with the fields
 * of another version than its file's header names, or a last line without its newline, is a line
 * cut short, and an error that names it, never a value read wrong. A line of zeros says a host
 * was forgotten (or taught nothing) at its time.
 *
 * <p>Processes may share a file. {@link #save()} merges: under an exclusive lock on a file beside
 * it ({@code NAME.lock}, which stays), it reads the file as it is now and keeps, per host, the
 * newer of what is there and what this store knows, by their times. So 8 processes that each
 * teach their own host all find their hosts in the file, and a host this one loaded and never
 * changed keeps what another process saved of it since; a host this one forgot after another's
 * last save is written as forgotten, so that an older entry does not come back. A file whose
 * lines cannot be read is left as it is, and the save fails. The new content is written to a
 * file beside the one it replaces and moved in place, so a run that dies while saving leaves the
 * last one whole; through a symbolic link, the file the link leads to is replaced and the link
 * stays; the replaced file's POSIX permissions are kept.
 *
 * <p>Thread-safe: the engine changes states under its lock, and {@link #save()} may run on any
 * thread at any time (it reads what each change published, never a state mid-change). A store
 * serves one engine; engines, in this process or others, that share what hosts taught as they run
 * share a fleet (SPEC S2): a file merges what each run knew when it saved.
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
  /** The symbolic links a save follows to the file it replaces, as many as Linux follows. */
  private static final int MAX_LINKS = 40;

  /**
   * A monitor per lock file, taken before its file lock: a file lock is held by the whole process,
   * so two saves of this process to one file would otherwise overlap, which {@link FileChannel#lock()}
   * refuses rather than waits for.
   */
  private static final Map<Path, Object> SAVING = new ConcurrentHashMap<>();

  /**
   * A line of the file, as written: times are wall-clock Unix milliseconds. {@code saved} is the
   * time of what the host taught, which a merge compares.
   */
  private record Line(
      String key, long saved, long interval, int inFlightLimit, long pausedUntil, int quotaPermits, long quotaWindow) {
    boolean nothing(long nowMillis) {
      return interval == 0 && inFlightLimit == 0 && quotaPermits == 0 && pausedUntil - nowMillis <= 0;
    }

    /** The line as the file holds it; a host that taught nothing as zeros, with its time. */
    String text(long nowMillis) {
      return nothing(nowMillis)
          ? key + "\t" + saved + "\t0\t0\t0\t0\t0\n"
          : key + "\t" + saved + "\t" + interval + "\t" + inFlightLimit + "\t" + pausedUntil + "\t" + quotaPermits
              + "\t" + quotaWindow + "\n";
    }
  }

  /**
   * What one host taught, as its last change left it; times are the clock's nanoseconds. A host
   * that taught nothing (forgotten, say) stays as such, with its time, so that a save does not let
   * an older entry of the file bring it back. {@code loaded} is the line it came from while nothing
   * here changed it, written back as it was.
   */
  private record Learned(long interval, int inFlightLimit, long pausedUntil, boolean paused, int quotaPermits,
      long quotaWindow, long at, @Nullable Line loaded) {
    boolean nothing(long now) {
      return interval == 0 && inFlightLimit == 0 && quotaPermits == 0 && !(paused && pausedUntil - now > 0);
    }

    /** The line of {@code key} for a file saved at {@code nowNanos}, {@code nowMillis}. */
    Line line(String key, long nowNanos, long nowMillis) {
      Line kept = loaded;
      if (kept != null) {
        return kept;
      }
      long pauseEnd = paused && pausedUntil - nowNanos > 0
          ? nowMillis + (pausedUntil - nowNanos + 999_999L) / 1_000_000L
          : 0;
      return new Line(key, nowMillis - (nowNanos - at) / 1_000_000L, interval, inFlightLimit, pauseEnd, quotaPermits,
          quotaWindow);
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
   *     earlier one), or is cut short; the message names the file, the line and what is wrong with it
   */
  public static HostStateFile load(Path file, Clock clock, Duration keepFor) throws IOException {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(clock, "clock");
    if (keepFor.isNegative()) {
      throw new IllegalArgumentException("keepFor must be zero or more, got " + keepFor);
    }
    HostStateFile kept = new HostStateFile(file, clock, keepFor);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return kept;
    }
    long nowNanos = clock.nanoTime();
    long nowMillis = clock.instant().toEpochMilli();
    for (Line line : read(file, text, nowMillis).values()) {
      if (nowMillis - line.saved() > keepFor.toMillis()) {
        continue; // taught too long ago
      }
      long pauseLeft = line.pausedUntil() == 0 ? 0 : Math.max(0, line.pausedUntil() - nowMillis);
      kept.learned.put(line.key(), new Learned(line.interval(), line.inFlightLimit(),
          nowNanos + pauseLeft * 1_000_000L, pauseLeft > 0, line.quotaPermits(), line.quotaWindow(),
          nowNanos - (nowMillis - line.saved()) * 1_000_000L, line));
    }
    return kept;
  }

  /**
   * The lines of {@code text}, the content of {@code file}, by key as the engine keys it now.
   *
   * @throws IllegalArgumentException a line is not one this class writes, or is cut short
   */
  private static Map<String, Line> read(Path file, String text, long nowMillis) {
    Map<String, Line> lines = new HashMap<>();
    String[] texts = text.split("\n", -1);
    int version = 0; // none named: a line of either version's fields
    for (int i = 0; i < texts.length; i++) {
      String line = texts[i].strip();
      if (i == texts.length - 1 && !line.isEmpty()) {
        // save ends every line with a newline: the file was cut short, and the line's last field may be too
        throw bad(file, i, "the line is incomplete: the file ends mid-line, without the newline that ends every line");
      }
      if (line.startsWith(VERSION_MARK)) {
        version = checkVersion(file, i, line);
      }
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] fields = line.split("\t");
      if (version == 0 && fields.length != FIELDS_V2 && fields.length != FIELDS_V1) {
        throw bad(file, i, "expected " + FIELDS_V2 + " fields separated by tabs (" + FIELDS_V1
            + " in a file of version 1), got " + fields.length);
      }
      int expected = version == 1 ? FIELDS_V1 : FIELDS_V2;
      if (version != 0 && fields.length != expected) {
        throw bad(file, i, "expected " + expected + " fields separated by tabs, as the file's version " + version
            + " has, got " + fields.length);
      }
      if (fields[0].isEmpty()) {
        throw bad(file, i, "the key is empty");
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
      Line read = new Line(key, saved, interval, (int) limit, pausedUntil, (int) permits, window);
      // Two spellings of one host (a file an older run keyed otherwise): the later saved is what it taught last.
      lines.merge(key, read, (earlier, later) -> later.saved() - earlier.saved() >= 0 ? later : earlier);
    }
    return lines;
  }

  /**
   * The version a header line names: one this class reads (its own or an earlier one), or an
   * error that says the file was written by a later version of Hostpace.
   */
  private static int checkVersion(Path file, int line, String header) {
    String text = header.substring(VERSION_MARK.length());
    int end = 0;
    while (end < text.length() && text.charAt(end) >= '0' && text.charAt(end) <= '9') {
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
    return version;
  }

  private static long number(Path file, int line, String field, String text) {
    String digits = text.strip();
    if (!NumberText.WHOLE.matcher(digits).matches()) {
      throw bad(file, line, field + " is not a whole number: '" + text + "'");
    }
    try {
      long value = Long.parseLong(digits);
      if (value < 0) {
        throw bad(file, line, field + " must be zero or more, got " + text);
      }
      return value;
    } catch (NumberFormatException e) {
      throw bad(file, line, field + " is not a whole number: '" + text + "'");
    }
  }

  private static IllegalArgumentException bad(Path file, int line, String what) {
    return new IllegalArgumentException(
        Redaction.printable("host state file " + file + ", line " + (line + 1) + ": " + what));
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
   * Writes what every host taught, as its last change left it, to {@link #file()}, merged with
   * what the file holds now: under a lock on {@code NAME.lock} beside the file, of each host the
   * newer of the file's entry and this store's is kept, a host forgotten here after the file's
   * entry as forgotten. The result is written to a new file beside it and moved in place (beside
   * the file a symbolic link leads to, keeping the link), with the replaced file's POSIX
   * permissions. Entries of longer than {@code keepFor} ago are left out. A file that cannot be
   * written is logged at {@code WARNING} on the {@code System.Logger}
   * {@code io.hostpace.HostStateFile}, with the exception, and thrown: a run often saves as it
   * ends, where an exception is easily lost, and the next run then starts from nothing without
   * saying why.
   *
   * @throws IOException the file, its lock or its temporary sibling cannot be written or moved in
   *     place; or the file holds a line that cannot be read (the message names the file and the
   *     line, as {@link #load} does), and is left as it is
   */
  public void save() throws IOException {
    save(LOG);
  }

  /** {@link #save()}, warning on {@code log}. */
  void save(System.Logger log) throws IOException {
    try {
      write();
    } catch (IOException | RuntimeException e) {
      log.log(System.Logger.Level.WARNING, Redaction.printable("cannot save host state to " + file + ": " + e.getMessage()
          + "; the next run starts without what this one learned"), e);
      throw e;
    }
  }

  private void write() throws IOException {
    Path target = linkedFile(file);
    Path dir = target.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path lockFile = target.resolveSibling(target.getFileName() + ".lock");
    try (FileChannel lock = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      synchronized (SAVING.computeIfAbsent(lockFile.toRealPath(), path -> new Object())) {
        try (FileLock held = lock.lock()) {
          merge(target, dir);
        }
      }
    }
  }

  /** Merges what this store knows into {@code target}, in {@code dir}, under the file's lock. */
  private void merge(Path target, @Nullable Path dir) throws IOException {
    long nowNanos = clock.nanoTime();
    Instant nowWall = clock.instant();
    long nowMillis = nowWall.toEpochMilli();
    Map<String, Line> merged = new TreeMap<>(onDisk(target, nowMillis));
    for (Map.Entry<String, Learned> entry : learned.entrySet()) {
      Line ours = entry.getValue().line(entry.getKey(), nowNanos, nowMillis);
      if (nowMillis - ours.saved() > keepFor.toMillis() && ours.nothing(nowMillis)) {
        learned.remove(entry.getKey(), entry.getValue()); // forgotten so long ago that no entry it hides is kept
      }
      // Of the same time, this store's: its own last save, changed again in the same millisecond.
      merged.merge(entry.getKey(), ours, (disk, mine) -> mine.saved() - disk.saved() >= 0 ? mine : disk);
    }
    Path temp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
    try {
      keepPermissions(target, temp);
      try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
        out.write(HEADER);
        out.write('\n');
        for (Line line : merged.values()) {
          if (nowMillis - line.saved() <= keepFor.toMillis()) {
            out.write(line.text(nowMillis));
          }
        }
      }
      try {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * What {@code target} holds now, read as {@link #load} reads it.
   *
   * @throws IOException it cannot be read, or holds a line that cannot be (named as load names it)
   */
  private static Map<String, Line> onDisk(Path target, long nowMillis) throws IOException {
    String text;
    try {
      text = Files.readString(target, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (CharacterCodingException e) {
      throw new IOException(
          Redaction.printable("host state file " + target + " is not UTF-8 text, so not one this class wrote"), e);
    }
    try {
      return read(target, text, nowMillis);
    } catch (IllegalArgumentException e) {
      // Another process's, or another release's: not saved over, so that what it holds is not lost.
      throw new IOException(e.getMessage(), e);
    }
  }

  /** The file a save replaces: {@code file}, or the one its symbolic links lead to. */
  private static Path linkedFile(Path file) throws IOException {
    Path target = file;
    for (int links = 0; Files.isSymbolicLink(target); links++) {
      if (links == MAX_LINKS) {
        throw new FileSystemException(file.toString(), null, "more than " + MAX_LINKS + " symbolic links to follow");
      }
      target = target.resolveSibling(Files.readSymbolicLink(target));
    }
    return target;
  }

  /** Gives {@code temp} the POSIX permissions of {@code target}, where it exists and the file system has them. */
  private static void keepPermissions(Path target, Path temp) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(target, PosixFileAttributeView.class);
    if (view == null) {
      return;
    }
    Set<PosixFilePermission> permissions;
    try {
      permissions = view.readAttributes().permissions();
    } catch (NoSuchFileException e) {
      return; // a new file: the temporary file's own, as created
    }
    Files.setPosixFilePermissions(temp, permissions);
  }

  /** {@link #save()}, for a place that cannot throw a checked exception. */
  public void saveUnchecked() {
    try {
      save();
    } catch (IOException e) {
      throw new UncheckedIOException(Redaction.printable("cannot save host state to " + file), e);
    }
  }

  /**
   * What a state's change taught, published whole so that {@link #save()} never reads a state
   * mid-change; called under the engine's lock. A change to nothing is kept too, with its time. The
   * interval kept is the host's pace ({@link HostState#pace()}): a start the rule holds back longer
   * after a run of refusals (SPEC R14) is not what the host taught.
   */
  private void changed(HostState state) {
    int permits = Math.max(0, state.quotaPermits());
    learned.put(state.key(), new Learned(state.pace(), state.inFlightLimit(), state.pausedUntil(), state.paused(),
        permits, permits > 0 ? state.quotaWindow() : 0, clock.nanoTime(), null));
  }

  @Override
  public HostState open(String key) {
    HostState state = states.open(key);
    Learned known = learned.get(key);
    long now = clock.nanoTime();
    if (known != null && !known.nothing(now)) {
      state.interval(known.interval(), now);
      state.inFlightLimit(known.inFlightLimit());
      if (known.quotaPermits() > 0) {
        state.quota(known.quotaPermits(), known.quotaWindow());
      }
      if (known.paused() && known.pausedUntil() - now > 0) {
        state.pauseUntil(known.pausedUntil());
      }
      // Brought in, not taught: it keeps its time, older than what another process saves of the host since.
      learned.put(key, known);
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

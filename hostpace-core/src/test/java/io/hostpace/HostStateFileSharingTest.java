package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hostpace.spi.HostState;
import io.hostpace.testing.ReadOnlyFolder;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC S1: a state file shared by processes keeps, of each host, what was taught last; a save
 * keeps the file's link and permissions; a line cut short is an error that names it.
 */
class HostStateFileSharingTest {

  final VirtualTime time = VirtualTime.create();
  @TempDir Path dir;

  HostStateFile load() throws IOException {
    return HostStateFile.load(dir.resolve("state.tsv"), time, Duration.ofDays(1));
  }

  /** Teaches {@code key} an interval of {@code millis} through its state, as the engine does. */
  HostState teach(HostStateFile kept, String key, long millis) {
    HostState state = kept.open(key);
    state.interval(millis * 1_000_000L, time.nanoTime());
    return state;
  }

  /** A process loads the file, teaches {@code key} an interval of {@code millis}, and saves it. */
  void taughtAndSaved(String key, long millis) throws IOException {
    HostStateFile kept = load();
    teach(kept, key, millis);
    kept.save();
  }

  long interval(String key) throws IOException {
    return load().open(key).interval() / 1_000_000L;
  }

  @Test
  void S1_twoProcessesSavingOneFileKeepBothTheirHosts() throws IOException {
    HostStateFile first = load();
    HostStateFile second = load();
    teach(first, "a.test", 1000);
    teach(second, "b.test", 2000);

    first.save();
    second.save(); // a last writer that loaded the file before the first saved

    assertThat(load().keys()).containsExactly("a.test", "b.test");
    assertThat(interval("a.test")).isEqualTo(1000);
    assertThat(interval("b.test")).isEqualTo(2000);
  }

  @Test
  void S1_ofOneHostWhatWasTaughtLastIsKeptWhicheverSavesLast() throws IOException {
    HostStateFile earlier = load();
    HostStateFile later = load();
    teach(earlier, "x.test", 1000);  // at 0 s
    time.advance(Duration.ofSeconds(1));
    teach(later, "x.test", 2000);    // at 1 s

    later.save();
    earlier.save();
    assertThat(interval("x.test")).isEqualTo(2000);

    time.advance(Duration.ofSeconds(1));
    teach(earlier, "x.test", 3000);  // at 2 s
    earlier.save();
    later.save();
    assertThat(interval("x.test")).isEqualTo(3000);
  }

  @Test
  void S1_aHostLoadedAndOpenedButNotChangedIsOlderThanWhatAnotherProcessSavedSince() throws IOException {
    taughtAndSaved("x.test", 1000);             // at 0 s
    time.advance(Duration.ofSeconds(1));
    HostStateFile reader = load();
    assertThat(reader.open("x.test").interval()).isEqualTo(1_000_000_000L); // as the engine opens it, at 1 s
    time.advance(Duration.ofSeconds(1));
    taughtAndSaved("x.test", 3000);             // at 2 s
    time.advance(Duration.ofSeconds(1));

    reader.save();                              // at 3 s, what it loaded, taught at 0 s

    assertThat(interval("x.test")).isEqualTo(3000);
  }

  @Test
  void S1_aHostForgottenAfterAnotherProcessSavedItStaysForgotten() throws IOException {
    taughtAndSaved("x.test", 1000);             // at 0 s
    HostStateFile forgetting = load();
    HostStateFile loadedOnly = load();
    HostStateFile older = load();
    time.advance(Duration.ofMillis(500));
    teach(older, "x.test", 5000);               // at 0.5 s
    HostState state = teach(forgetting, "x.test", 2000);
    older.save();
    time.advance(Duration.ofMillis(500));
    state.interval(0, time.nanoTime());         // at 1 s: reset to nothing, as the engine forgets an idle host

    forgetting.save();
    assertThat(load().keys()).isEmpty();
    assertThat(Files.readAllLines(dir.resolve("state.tsv"))).last().asString()
        .isEqualTo("x.test\t" + time.instant().toEpochMilli() + "\t0\t0\t0\t0\t0");

    time.advance(Duration.ofSeconds(1));
    loadedOnly.save();                          // it loaded what was taught at 0 s
    older.save();                               // it taught at 0.5 s
    assertThat(load().keys()).isEmpty();

    time.advance(Duration.ofSeconds(1));
    teach(older, "x.test", 7000);               // taught again after it was forgotten: kept
    older.save();
    assertThat(interval("x.test")).isEqualTo(7000);
  }

  @Test
  void S1_aForgottenHostIsDroppedFromTheFileAfterKeepFor() throws IOException {
    HostStateFile kept = load();
    teach(kept, "x.test", 1000).interval(0, time.nanoTime());
    kept.save();
    assertThat(Files.readAllLines(dir.resolve("state.tsv"))).hasSize(2);
    time.advance(Duration.ofDays(1).plusSeconds(1));
    kept.save();
    assertThat(Files.readAllLines(dir.resolve("state.tsv"))).hasSize(1);
  }

  @Test
  void S1_aFileWhoseLinesCannotBeReadAtSaveIsLeftAsItIsAndTheSaveFailsNamingTheLine() throws IOException {
    HostStateFile kept = load();
    teach(kept, "x.test", 1000);
    Path file = dir.resolve("state.tsv");
    String other = "# hostpace host state, v3: a later release's\ny.test\t1\t0\t0\t0\t0\t0\t9\n";
    Files.writeString(file, other);

    assertThatThrownBy(() -> kept.save(new RecordingLogger(System.Logger.Level.INFO))).isInstanceOf(IOException.class)
        .hasMessage("host state file " + file + ", line 1: version 3 is not one this Hostpace reads (1 to 2):"
            + " the file was written by another release");
    assertThat(Files.readString(file)).isEqualTo(other);

    Files.writeString(file, "# hostpace host state, v2\ny.test\t1\t0\t0\t0\n");
    assertThatThrownBy(() -> kept.save(new RecordingLogger(System.Logger.Level.INFO)))
        .hasMessageEndingWith("line 2: expected 7 fields separated by tabs, as the file's version 2 has, got 5");
  }

  @Test
  void S1_aLineCutShortIsAnErrorNamingItNeverAValueReadWrong() throws IOException {
    Path file = dir.resolve("state.tsv");
    long now = time.instant().toEpochMilli();
    String header = "# hostpace host state, v2: key, saved (Unix ms), interval (ns), in-flight limit, paused until"
        + " (Unix ms, 0: none), quota permits (0: none), quota window (ns)\n";
    // Cut in its fifth field: 5 fields, which a file of version 1 would have.
    Files.writeString(file, header + "a.test\t" + now + "\t1000000000\t0\t0\t0\t0\nb.test\t" + now + "\t2000000000\t4\t0\n");
    assertThatThrownBy(this::load).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host state file " + file + ", line 3: expected 7 fields separated by tabs, as the file's version 2 has, got 5");

    // Cut in its interval, where the file ends: no newline after it.
    Files.writeString(file, header + "a.test\t" + now + "\t1000000000\t0\t0\t0\t0\nb.test\t" + now + "\t20");
    assertThatThrownBy(this::load).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host state file " + file + ", line 3: the line is incomplete: the file ends mid-line,"
            + " without the newline that ends every line");

    // A file of version 1 has 5 fields, and a line of 7 is not one of them.
    Files.writeString(file, "# hostpace host state, v1\na.test\t" + now + "\t1000000000\t0\t0\t0\t0\n");
    assertThatThrownBy(this::load)
        .hasMessageEndingWith("line 2: expected 5 fields separated by tabs, as the file's version 1 has, got 7");
    Files.writeString(file, "# hostpace host state, v1\na.test\t" + now + "\t1000000000\t0\t0\n");
    assertThat(load().keys()).containsExactly("a.test");
  }

  @Test
  void S1_savingThroughASymbolicLinkWritesTheFileItLeadsToAndKeepsTheLink() throws IOException {
    Files.createDirectories(dir.resolve("real"));
    Path link = dir.resolve("state.tsv");
    try {
      Files.createSymbolicLink(link, Path.of("real", "kept.tsv"));
    } catch (UnsupportedOperationException | IOException e) {
      assumeTrue(false, "symbolic links cannot be made here: " + e);
    }
    HostStateFile kept = load();
    teach(kept, "x.test", 1000);

    kept.save();
    kept.save(); // the second replaces the file the link leads to again, as it is now

    assertThat(link).isSymbolicLink();
    assertThat(Files.readSymbolicLink(link)).isEqualTo(Path.of("real", "kept.tsv"));
    assertThat(Files.readAllLines(dir.resolve("real/kept.tsv"))).last().asString().startsWith("x.test\t");
    assertThat(interval("x.test")).isEqualTo(1000);
    try (var files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("state.tsv", "real");
    }
  }

  @Test
  void S1_aSaveKeepsTheFilesPermissionsAndANewFileIsTheOwnersAlone() throws IOException {
    assumeTrue(Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null, "no POSIX permissions here");
    HostStateFile kept = load();
    teach(kept, "x.test", 1000);
    kept.save();
    Path file = dir.resolve("state.tsv");
    assertThat(Files.getPosixFilePermissions(file)).containsExactlyInAnyOrder(
        PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    Set<PosixFilePermission> shared = PosixFilePermissions.fromString("rw-rw-r--");
    Files.setPosixFilePermissions(file, shared);
    teach(kept, "y.test", 2000);
    kept.save();

    assertThat(Files.getPosixFilePermissions(file)).isEqualTo(shared);
    assertThat(load().keys()).containsExactly("x.test", "y.test");
  }

  @Test
  void S1_aFileInAFolderThatCannotBeWrittenFailsToSaveAndIsLeftAsItIs() throws IOException {
    assumeTrue(Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null, "no POSIX permissions here");
    Path folder = Files.createDirectories(dir.resolve("read-only"));
    Path file = folder.resolve("state.tsv");
    HostStateFile kept = HostStateFile.load(file, time, Duration.ofDays(1));
    teach(kept, "x.test", 1000);
    kept.save();
    String saved = Files.readString(file);
    teach(kept, "y.test", 2000);
    try (ReadOnlyFolder readOnly = ReadOnlyFolder.make(folder)) {
      assumeTrue(readOnly.binds(), "permission bits do not bind this user (root)");
      RecordingLogger log = new RecordingLogger(System.Logger.Level.INFO);

      assertThatThrownBy(() -> kept.save(log)).isInstanceOf(IOException.class);

      assertThat(Files.readString(file)).isEqualTo(saved);
      assertThat(log.at(System.Logger.Level.WARNING)).singleElement()
          .satisfies(line -> assertThat(line.message()).startsWith("cannot save host state to " + file));
    }
  }

  /**
   * 8 JVMs load one file, each teaches its own host and saves, all at once, in 3 rounds: the file
   * then holds every host with what its process taught it last. Every process has loaded the file
   * before any saves, so each save finds the file changed since its load.
   */
  @Test
  void S1_eightProcessesSharingOneFileKeepEveryHostsLearning() throws Exception {
    Path file = dir.resolve("shared.tsv");
    int processes = 8;
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // The test classes and the module's classes, wherever the build put them (class path or module path).
    String classPath = String.join(File.pathSeparator,
        Path.of(HostStateFileProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(),
        Path.of(HostStateFile.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(),
        System.getProperty("java.class.path"));
    for (int round = 1; round <= 3; round++) {
      List<Process> started = new ArrayList<>();
      List<Path> errors = new ArrayList<>();
      for (int i = 0; i < processes; i++) {
        Path error = dir.resolve("process-" + round + "-" + i + ".err");
        errors.add(error);
        started.add(new ProcessBuilder(java, "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", classPath,
            HostStateFileProcess.class.getName(), file.toString(), "host" + i + ".test", Long.toString(taught(i, round)))
            .redirectError(error.toFile())
            .start());
      }
      for (Process process : started) { // each has loaded the file
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          out.readLine();
        }
      }
      for (Process process : started) { // then all teach and save at once
        try (OutputStream in = process.getOutputStream()) {
          in.write("go\n".getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
          // it ended already; its exit status and standard error say why
        }
      }
      for (int i = 0; i < processes; i++) {
        int status = started.get(i).waitFor();
        assertThat(status).as("round %d, process %d: %s", round, i, Files.readString(errors.get(i))).isZero();
      }
    }
    HostStateFile kept = HostStateFile.load(file);
    List<String> hosts = new ArrayList<>();
    for (int i = 0; i < processes; i++) {
      hosts.add("host" + i + ".test");
    }
    assertThat(kept.keys()).containsExactlyElementsOf(hosts);
    for (int i = 0; i < processes; i++) {
      assertThat(kept.open("host" + i + ".test").interval()).as("host%d.test", i).isEqualTo(taught(i, 3));
    }
  }

  /** The interval, in nanoseconds, process {@code i} teaches its host in {@code round}. */
  static long taught(int i, int round) {
    return (i + 1) * 1_000_000_000L + round;
  }
}

package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hostpace.testing.ReadOnlyFolder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * SPEC S1, I5: a {@code --state} file that cannot be saved is found before any request where it
 * can be, and else fails the run at its end. Isolated: the warning of a save that failed goes
 * through the JVM's logger {@code io.hostpace}, whose lines every run in the JVM would print.
 */
@Isolated
class StateFileTest extends ServedCommandTest {

  @Test
  void S1_aStateFileThatCannotBeSavedAtTheEndIsAWarningAndExitStatusOne(@TempDir Path dir) throws IOException {
    Path state = dir.resolve("state.tsv");
    Files.writeString(state, "# hostpace host state, v2\n");
    // While the run fetches, another release writes the file in a version this one does not read: the save leaves it.
    String later = "# hostpace host state, v3: a later release's\nx.test\t1\t0\t0\t0\t0\t0\t9\n";
    server.onRequest.put("/ok", () -> {
      try {
        Files.writeString(state, later);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });

    int status = run("fetch", "--quiet", "--state", state.toString(), server.url("/ok"));

    assertThat(status).as(err).isEqualTo(1);
    assertThat(out.lines()).singleElement().asString().contains("\"status\":200");
    assertThat(err.lines()).as(err).singleElement().asString()
        .contains(" WARN cannot save host state to " + state + ": host state file " + state + ", line 1: version 3");
    assertThat(Files.readString(state)).isEqualTo(later);
  }

  @Test
  void S1_aStateFileInAFolderThatCannotBeWrittenIsAUsageErrorBeforeAnyRequest(@TempDir Path dir) throws IOException {
    assumeTrue(Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null, "no POSIX permissions here");
    Path folder = Files.createDirectories(dir.resolve("read-only"));
    Path state = folder.resolve("state.tsv");
    Files.writeString(state, "# hostpace host state, v2\n");
    try (ReadOnlyFolder readOnly = ReadOnlyFolder.make(folder)) {
      assumeTrue(readOnly.binds(), "permission bits do not bind this user (root)");

      assertThat(run("fetch", "--state", state.toString(), server.url("/ok"))).isEqualTo(2);

      assertThat(err.strip()).isEqualTo("hostpace: --state '" + state + "' cannot be saved: a new file cannot be made"
          + " in its folder '" + folder + "': permission denied");
      assertThat(server.seen).doesNotContainKey("/ok");
    }
  }
}

package io.hostpace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read-only folder the state-file tests make. */
class ReadOnlyFolderTest {

  @Test
  void aFolderIsReadOnlyUntilClosedAndBindsSaysWhetherAFileCanBeMadeInIt(@TempDir Path dir) throws IOException {
    assumeTrue(Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null, "no POSIX permissions here");
    Path folder = Files.createDirectories(dir.resolve("read-only"));
    Set<PosixFilePermission> before = Files.getPosixFilePermissions(folder);

    try (ReadOnlyFolder readOnly = ReadOnlyFolder.make(folder)) {
      assertThat(Files.getPosixFilePermissions(folder)).isEqualTo(PosixFilePermissions.fromString("r-xr-xr-x"));
      boolean made;
      try {
        Files.createDirectory(folder.resolve("other"));
        made = true;
      } catch (IOException e) {
        made = false;
      }
      assertThat(readOnly.binds()).as("binds() as a folder made in it shows").isEqualTo(!made);
    }

    assertThat(Files.getPosixFilePermissions(folder)).isEqualTo(before);
    try (Stream<Path> left = Files.list(folder)) {
      assertThat(left).as("binds() leaves no file behind").allMatch(path -> path.endsWith("other"));
    }
  }
}

package io.hostpace.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A folder made read-only ({@code r-xr-xr-x}) for a test that a file cannot be made in it, its
 * permissions given back on {@link #close()}. Permission bits do not bind every user: root may
 * still write, so a test asks {@link #binds()} and is skipped when they do not:
 *
 * <pre>{@code
 * try (ReadOnlyFolder readOnly = ReadOnlyFolder.make(folder)) {
 *   assumeTrue(readOnly.binds(), "permission bits do not bind this user (root)");
 *   ...
 * }
 * }</pre>
 *
 * <p>Needs a file system with POSIX permissions.
 */
public final class ReadOnlyFolder implements AutoCloseable {

  private final Path folder;
  private final Set<PosixFilePermission> before;

  private ReadOnlyFolder(Path folder, Set<PosixFilePermission> before) {
    this.folder = folder;
    this.before = before;
  }

  /** Makes {@code folder} read-only until the answer is closed. */
  public static ReadOnlyFolder make(Path folder) throws IOException {
    Set<PosixFilePermission> before = Files.getPosixFilePermissions(folder);
    Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("r-xr-xr-x"));
    return new ReadOnlyFolder(folder, before);
  }

  /** Whether the bits bind this user: no file can be made in the folder. */
  public boolean binds() {
    try {
      Files.delete(Files.createTempFile(folder, "probe", ".tmp"));
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** Gives the folder back the permissions it had. */
  @Override
  public void close() throws IOException {
    Files.setPosixFilePermissions(folder, before);
  }
}

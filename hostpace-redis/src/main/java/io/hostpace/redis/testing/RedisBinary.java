package io.hostpace.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where a test or the demo finds a {@code redis-server} to run: the one on {@code PATH} if there
 * is one, else the binary that the {@code com.github.codemonstur:embedded-redis} jar ships for
 * this machine (Redis 6.2 for Linux and macOS, on x86-64 and arm64), copied once per JVM to a
 * temporary file. So the tests of fleets and {@code hostpace demo --fleet} need nothing
 * installed: the Maven dependency brings the server. The jar is looked up as a resource, not
 * compiled against, so it is an optional dependency of this module: only what starts Redis (the
 * tests, the command line) brings it.
 */
final class RedisBinary {

  private static @Nullable Path bundled; // copied at most once per JVM

  private RedisBinary() {}

  /**
   * The {@code redis-server} on {@code PATH}, else the bundled one.
   *
   * @throws IOException if there is neither, saying what to install or add
   */
  static String find() throws IOException {
    Optional<Path> onPath = onPath();
    if (onPath.isPresent()) {
      return onPath.get().toString();
    }
    return bundled().toString();
  }

  /** The {@code redis-server} on {@code PATH}, if there is one. */
  static Optional<Path> onPath() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * The binary the embedded-redis jar ships for this machine, copied to an executable temporary file.
   *
   * @throws IOException if it ships none for this machine, or is not on the classpath
   */
  static synchronized Path bundled() throws IOException {
    if (bundled != null && Files.isExecutable(bundled)) {
      return bundled;
    }
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String resource = resourceFor(os, arch);
    if (resource == null) {
      throw new IOException("no redis-server on PATH, and the embedded-redis jar ships none for "
          + os + " on " + arch + ": install redis-server (Debian/Ubuntu: apt-get install redis-server)");
    }
    try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("no redis-server on PATH, and " + resource + " is not on the classpath: add"
            + " com.github.codemonstur:embedded-redis to the dependencies, or install redis-server");
      }
      Path copy = Files.createTempFile("hostpace-redis-server-", "");
      Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      if (!copy.toFile().setExecutable(true, true)) {
        throw new IOException("could not make " + copy + " executable");
      }
      copy.toFile().deleteOnExit();
      bundled = copy;
      return copy;
    }
  }

  /** The jar's resource for {@code os} and {@code arch} as Java names them, or null if it ships none. */
  static @Nullable String resourceFor(String os, String arch) {
    boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
    boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
    if (os.startsWith("linux")) {
      return x64 ? "redis-server-6.2.6-v5-linux-amd64" : arm64 ? "redis-server-6.2.7-linux-arm64" : null;
    }
    if (os.startsWith("mac")) {
      return x64 ? "redis-server-6.2.6-v5-darwin-amd64" : arm64 ? "redis-server-6.2.6-v5-darwin-arm64" : null;
    }
    return null;
  }
}

package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.sun.net.httpserver.HttpServer;
import io.hostpace.HostStateFile;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C: {@code hostpace fetch} in a JVM of its own, held by a host on 127.0.0.1 that asked it to
 * come back in an hour, is sent SIGINT. It stops, prints the summary of what it did, saves its
 * {@code --state} and exits with 130: a run that ended by itself would have waited out the hour,
 * so ending at all is the test, and a run that does not is failed by the build's default timeout.
 */
class InterruptTest {

  @TempDir Path dir;
  HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newCachedThreadPool());
    // Every request refused, for an hour: the host holds the run until then.
    server.createContext("/", exchange -> {
      try (exchange) {
        exchange.getResponseHeaders().set("Retry-After", "3600");
        exchange.sendResponseHeaders(429, -1);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void I5_ctrlCPrintsTheSummarySavesTheStateAndExits130() throws Exception {
    assumeFalse(sigintIgnored(), "this JVM ignores SIGINT, and so would the one it starts");
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    Path state = dir.resolve("hosts.tsv");
    Path out = dir.resolve("out.jsonl");
    Path err = dir.resolve("err.txt");
    ProcessBuilder builder = CommandRun.process("fetch", "--progress", "--retry-delay-limit", "3600", "--state",
        state.toString(), base + "/a", base + "/b", base + "/c").redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().put("COLUMNS", "200");
    Process fetch = builder.start();
    try {
      // Waits until the progress line says the refused URL waits with the others for the pause.
      while (!lastLine(err).startsWith("0 of 3 done, 0 in flight, 3 waiting")) {
        assertThat(fetch.isAlive()).as(Files.readString(err)).isTrue();
        Thread.sleep(50); // polling another process's output, not timing anything
      }
      assertThat(new ProcessBuilder("kill", "-INT", Long.toString(fetch.pid())).start().waitFor()).isZero();

      fetch.waitFor(); // long before the host's hour, or never
      String printed = Files.readString(err, StandardCharsets.UTF_8);
      assertThat(fetch.exitValue()).as(printed).isEqualTo(Main.INTERRUPTED);
      assertThat(printed).contains("127.0.0.1:" + server.getAddress().getPort())
          .contains("total: 0 of 3 requests done, 0 completed, 0 failed, 1 refusal")
          .contains("hostpace: interrupted");
      assertThat(Files.readString(out)).as("no record for a URL not done").isEmpty();
      assertThat(state).exists();
      assertThat(HostStateFile.load(state).keys()).as("the host's pause is kept")
          .containsExactly("127.0.0.1:" + server.getAddress().getPort());
    } finally {
      fetch.destroyForcibly();
    }
  }

  /** What follows the progress line's last redraw on standard error. */
  private static String lastLine(Path err) throws IOException {
    String text = Files.readString(err, StandardCharsets.ISO_8859_1);
    return text.substring(text.lastIndexOf('\r') + 1);
  }

  /** Whether SIGINT (2) is in this process's mask of ignored signals; a child inherits it. */
  static boolean sigintIgnored() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.exists(status)) {
      return false;
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & (1L << 1)) != 0;
      }
    }
    return false;
  }
}

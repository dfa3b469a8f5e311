package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.redis.testing.RedisServer;
import io.hostpace.testkit.TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * SPEC R8 and S3 with real worker processes and a real Redis: a host on 127.0.0.1 that announces
 * its quota ({@code X-RateLimit-Limit/-Remaining/-Reset}, 10 requests in fixed windows of 2 s, the
 * reset in whole seconds rounded up) and refuses beyond with a bare 429; four workers, each a JVM
 * of its own ({@link QuotaWorker}) with 25 URLs, started a second apart, so that the later ones
 * join mid-window. Alone, each spends the windows as if it were the host's only client; as a
 * fleet they spend them together, the late ones from what the fleet keeps of the host. What is
 * counted is the server's refusals, never how long anything took; where the windows fall against
 * the workers' starts is the wall clock's, so the test is tagged {@code wall-clock}, run by
 * {@code -Pthorough}. {@code FleetAnnouncedWindowTest} holds the same in virtual time.
 */
class AnnouncedQuotaWorkersTest {

  static final long WINDOW = TimeUnit.SECONDS.toNanos(2);
  static final int PER_WINDOW = 10;
  static final int URLS = 25;

  /** The host: 10 a window of 2 s from its start, each answer saying what is left and when the window ends. */
  static final class AnnouncingHost implements TestServer.Handler {
    private final long start = System.nanoTime();
    private long window = -1;
    private int taken;
    final AtomicInteger refused = new AtomicInteger();
    /** What it refused: when (seconds since it started) and the path. */
    final List<String> refusals = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void handle(TestServer.Request request, com.sun.net.httpserver.HttpExchange exchange) throws IOException {
      boolean accepted;
      int remaining;
      long reset;
      synchronized (this) {
        long at = System.nanoTime() - start;
        if (at / WINDOW != window) {
          window = at / WINDOW;
          taken = 0;
        }
        accepted = ++taken <= PER_WINDOW;
        remaining = Math.max(0, PER_WINDOW - taken);
        reset = (window + 1) * WINDOW - at;
      }
      if (!accepted) {
        refused.incrementAndGet();
        refusals.add(String.format(java.util.Locale.ROOT, "%.3f %s", (System.nanoTime() - start) / 1e9, request.path()));
      }
      TestServer.reply(exchange, accepted ? 200 : 429, accepted ? "ok" : "over the quota",
          "X-RateLimit-Limit", Integer.toString(PER_WINDOW),
          "X-RateLimit-Remaining", Integer.toString(remaining),
          "X-RateLimit-Reset", Long.toString((reset + 999_999_999L) / 1_000_000_000L));
    }
  }

  /** Four workers a second apart, with the fleet of {@code redisUri} or alone; the host's refusals once all ended. */
  int refusals(String redisUri, String fleetName, List<Path> logs) throws Exception {
    AnnouncingHost host = new AnnouncingHost();
    List<Process> workers = new ArrayList<>();
    try (TestServer server = TestServer.start(host)) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      for (int w = 0; w < 4; w++) {
        if (w > 0) {
          Thread.sleep(1000); // the next joins a second later: mid-window
        }
        Path log = Files.createTempFile("quota-worker-", ".log");
        logs.add(log);
        workers.add(new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"), QuotaWorker.class.getName(),
            redisUri, fleetName, server.uri("").toString(), "w" + w, Integer.toString(URLS))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start());
      }
      for (Process worker : workers) {
        assertThat(worker.waitFor(3, TimeUnit.MINUTES)).as("a worker ended").isTrue();
      }
      System.out.println(redisUri + ": refused " + host.refusals);
      return host.refused.get();
    } finally {
      for (Process worker : workers) {
        worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  @Tag("wall-clock")
  void S3_R8_workersJoiningMidWindowAsAFleetAreRefusedLessByAHostThatAnnouncesItsQuotaThanAlone(TestReporter reporter)
      throws Exception {
    List<Path> logs = new ArrayList<>();
    try (RedisServer redis = RedisServer.start()) {
      int alone = refusals("alone", "unused", logs);
      int together = refusals(redis.uri(), "quota-" + Long.toHexString(System.nanoTime()), logs);
      reporter.publishEntry("refusals alone, as a fleet", alone + ", " + together);
      System.out.println("refusals alone " + alone + ", as a fleet " + together);
      StringBuilder printed = new StringBuilder();
      for (Path log : logs) {
        printed.append(Files.readString(log));
      }
      assertThat(together).as("refused as a fleet, against %d alone; the workers said:%n%s", alone, printed)
          .isLessThan(alone);
    } finally {
      for (Path log : logs) {
        Files.deleteIfExists(log);
      }
    }
  }
}

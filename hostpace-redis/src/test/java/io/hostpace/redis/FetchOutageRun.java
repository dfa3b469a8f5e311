package io.hostpace.redis;

import io.hostpace.redis.testing.RedisServer;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testkit.BucketServer;
import io.hostpace.testkit.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A Redis outage under real {@code hostpace fetch} processes (SPEC S4), from outside, timed
 * against an undisturbed run: four workers, each {@code java -jar hostpace.jar fetch} with 60 URLs
 * of its own, as a fleet over a Redis on 127.0.0.1, against a server on 127.0.0.1 that holds one
 * token bucket of 4 requests a second, burst 4 (or as given), and answers a bare 429 beyond it
 * ({@link BucketServer}). A run's clock starts once the server has had a request of each of the
 * four; in an outage run Redis is stopped 10 s later and started again, empty, on the same port
 * 10 s after that ({@link RedisServer#restart()}). What is counted is the server's: requests
 * accepted, refusals before the outage, during it and after, the first and last request, and each
 * worker's exit status, finish time and URLs answered 200 (its JSON lines). Not a test:
 * run by hand, its figures go to BENCHMARKS.md. It starts and stops Redis, the server and the
 * workers itself; each run's workers' output is kept in a directory it names.
 *
 * <p>Arguments: the command line's jar; {@code configured} (each worker told the host takes 4 a
 * second, {@code --host 127.0.0.1:PORT=perSecond:4}) or {@code learned} (told nothing); how many
 * runs of each kind, undisturbed and outage taking turns; and, optionally, the bucket's burst (4
 * unless given): with a burst of 1 the server refuses any two starts closer than a quarter of a
 * second, so that starts the workers bunch up as they rejoin the fleet show as refusals.
 *
 * <pre>
 * java -cp ... io.hostpace.redis.FetchOutageRun hostpace-cli/target/hostpace.jar configured 2
 * </pre>
 */
final class FetchOutageRun {

  static final int WORKERS = 4;
  static final int URLS = 60;
  static final double PER_SECOND = 4;
  static final int BURST = 4;
  static final long OUTAGE_AT = TimeUnit.SECONDS.toNanos(10);
  static final long OUTAGE_FOR = TimeUnit.SECONDS.toNanos(10);

  private FetchOutageRun() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3 || args.length > 4 || !List.of("configured", "learned").contains(args[1])) {
      throw new IllegalArgumentException("expected the jar, configured or learned, the runs of each kind and"
          + " optionally the bucket's burst, got " + List.of(args));
    }
    int burst = args.length == 4 ? Integer.parseInt(args[3]) : BURST;
    if (burst < 1) {
      throw new IllegalArgumentException("the bucket's burst must be at least 1, was " + burst);
    }
    Path jar = Path.of(args[0]);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException("no jar at " + jar.toAbsolutePath() + ": build hostpace-cli first");
    }
    boolean configured = args[1].equals("configured");
    int runs = Integer.parseInt(args[2]);
    System.out.println("| run | Redis | accepted | accepted 0-10 s, 10-20 s, after | refused 0-10 s | refused 10-20 s | refused after 20 s"
        + " | first and last request (s) | accepted a second between them | workers' finish (s) | whole run (s)"
        + " | exit statuses | URLs answered 200 | refusals by worker |");
    System.out.println("| --- | --- | ---: | --- | ---: | ---: | ---: | --- | ---: | --- | ---: | --- | ---: | --- |");
    for (int run = 1; run <= runs; run++) {
      for (boolean outage : new boolean[] {false, true}) {
        System.out.println(run(jar, configured, burst, outage, run));
      }
    }
  }

  /** One run, its row of the table. */
  static String run(Path jar, boolean configured, int burst, boolean outage, int number) throws Exception {
    Path dir = Files.createTempDirectory("fetch-outage-");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> workers = new ArrayList<>();
    RedisServer redis = RedisServer.start();
    Thread killer = new Thread(() -> {
      workers.forEach(Process::destroyForcibly);
      redis.close();
    });
    Runtime.getRuntime().addShutdownHook(killer); // none outlives a run stopped by Ctrl-C
    try (redis) {
      BucketServer bucket = new BucketServer(PER_SECOND, burst, 429, RetryAfter.none());
      long madeAt = System.nanoTime(); // the bucket's origin, within microseconds
      try (TestServer server = TestServer.start(bucket)) {
        String fleet = "outage-" + Long.toHexString(System.nanoTime());
        for (int w = 0; w < WORKERS; w++) {
          List<String> urls = new ArrayList<>();
          for (int n = 0; n < URLS; n++) {
            urls.add(server.uri("/w" + w + "/" + n).toString());
          }
          Files.write(dir.resolve("w" + w + ".urls"), urls);
        }
        long[] ended = new long[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
          List<String> command = new ArrayList<>(List.of(java, "-jar", jar.toString(), "fetch",
              "--fleet", fleet, "--redis", redis.uri(),
              "--input", dir.resolve("w" + w + ".urls").toString(),
              "--output", dir.resolve("w" + w + ".jsonl").toString()));
          if (configured) {
            command.addAll(List.of("--host", server.hostKey() + "=perSecond:" + (int) PER_SECOND));
          }
          workers.add(new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("w" + w + ".log").toFile())
              .start());
        }
        long startedAt = System.nanoTime();
        List<Thread> waits = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
          int worker = w;
          Thread wait = new Thread(() -> {
            try {
              workers.get(worker).waitFor();
              ended[worker] = System.nanoTime();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
          wait.start();
          waits.add(wait);
        }
        // The run's clock starts once every worker is sending: a JVM of the command line takes
        // seconds to start on a busy machine, and one that met no Redis at its start would stop
        // with a usage error, not ride the outage out.
        long sendingAt = allSending(bucket, workers, startedAt);
        long stoppedAt = 0;
        long restartedAt = 0;
        if (outage) {
          sleepUntil(sendingAt + OUTAGE_AT);
          stoppedAt = System.nanoTime();
          redis.stop();
          sleepUntil(stoppedAt + OUTAGE_FOR);
          redis.restart(); // empty: nothing saved
          restartedAt = System.nanoTime();
        }
        for (Thread wait : waits) {
          wait.join(TimeUnit.MINUTES.toMillis(5));
        }
        long from = sendingAt - madeAt;
        long accepted = bucket.accepted();
        long before = 0;
        long during = 0;
        long after = 0;
        long[] refusedBy = new long[WORKERS];
        List<BucketServer.Answer> answers = bucket.answers();
        long first = answers.isEmpty() ? 0 : answers.get(0).at().toNanos() - from;
        long lastRequest = answers.isEmpty() ? 0 : answers.get(answers.size() - 1).at().toNanos() - from;
        long[] acceptedIn = new long[3];
        List<String> decided = new ArrayList<>();
        for (BucketServer.Answer answer : answers) {
          long at = answer.at().toNanos() - from; // since every worker was sending
          decided.add(String.format(Locale.ROOT, "%.3f %s %d", at / 1e9, answer.path(), answer.status()));
          int window = at < OUTAGE_AT ? 0 : at < OUTAGE_AT + OUTAGE_FOR ? 1 : 2;
          if (answer.accepted()) {
            acceptedIn[window]++;
            continue;
          }
          if (window == 0) {
            before++;
          } else if (window == 1) {
            during++;
          } else {
            after++;
          }
          refusedBy[Integer.parseInt(answer.path().split("/")[1].substring(1))]++;
        }
        Files.write(dir.resolve("answers.txt"), decided); // each request as the server decided it
        StringBuilder finish = new StringBuilder();
        StringBuilder statuses = new StringBuilder();
        StringBuilder refusals = new StringBuilder();
        long answered = 0;
        long last = sendingAt;
        for (int w = 0; w < WORKERS; w++) {
          Process worker = workers.get(w);
          boolean done = !worker.isAlive();
          finish.append(w == 0 ? "" : ", ").append(done ? seconds(ended[w] - sendingAt) : "still running");
          statuses.append(w == 0 ? "" : ", ").append(done ? Integer.toString(worker.exitValue()) : "-");
          refusals.append(w == 0 ? "" : ", ").append(refusedBy[w]);
          last = Math.max(last, ended[w]);
          Path out = dir.resolve("w" + w + ".jsonl");
          if (Files.exists(out)) {
            answered += Files.readAllLines(out).stream().filter(line -> line.contains("\"status\":200")).count();
          }
        }
        String timing = (outage ? String.format(Locale.ROOT, "stopped at %s s, started again empty at %s s",
            seconds(stoppedAt - sendingAt), seconds(restartedAt - sendingAt)) : "undisturbed")
            + String.format(Locale.ROOT, " (all four sending %s s after their launch)", seconds(sendingAt - startedAt));
        return String.format(Locale.ROOT, "| %d | %s | %d | %d, %d, %d | %d | %d | %d | %s, %s | %.2f | %s | %s | %s | %d of %d | %s |",
            number, timing, accepted, acceptedIn[0], acceptedIn[1], acceptedIn[2], before, during, after, seconds(first), seconds(lastRequest),
            accepted / ((lastRequest - first) / 1e9), finish, seconds(last - sendingAt), statuses,
            answered, WORKERS * URLS, refusals) + "\n(the workers' output: " + dir + ")";
      }
    } finally {
      for (Process worker : workers) {
        worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      Runtime.getRuntime().removeShutdownHook(killer);
    }
  }

  /**
   * When the server has had a request of every worker (paths {@code /w<i>/}), polled every 10 ms;
   * or when a worker ended, or a minute after {@code startedAt}, whichever comes first.
   */
  static long allSending(BucketServer bucket, List<Process> workers, long startedAt) throws InterruptedException {
    while (System.nanoTime() - startedAt < TimeUnit.MINUTES.toNanos(1) && workers.stream().allMatch(Process::isAlive)) {
      long sending = bucket.answers().stream().map(answer -> answer.path().split("/")[1]).distinct().count();
      if (sending == WORKERS) {
        break;
      }
      Thread.sleep(10);
    }
    return System.nanoTime();
  }

  static void sleepUntil(long nanoTime) throws InterruptedException {
    long left = nanoTime - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
  }
}

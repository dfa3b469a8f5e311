package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpExchange;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.testkit.RedisServer;
import io.hostpace.testkit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC S4: a fleet survives its parts failing. Each test has a Redis of its own, which it stops,
 * kills and starts again, and a server on 127.0.0.1 that counts the requests it holds at once;
 * the workers are engines with a {@link RedisFleet} each, in this JVM or (to be killed) in JVMs of
 * their own ({@link FleetWorker}). The clock is the wall clock: what is checked is bounds (never
 * more in flight than the limit, no call longer than its limits, no more starts than the rate),
 * never how fast anything goes.
 */
class FleetFailuresTest {

  static final Duration BOUND = Duration.ofSeconds(90);

  RedisServer redis;
  final List<AutoCloseable> closing = new ArrayList<>();
  final List<Process> workers = new ArrayList<>();
  final Map<String, Path> workerLogs = new ConcurrentHashMap<>();
  final String fleetName = "s4-" + Long.toHexString(System.nanoTime());

  @BeforeEach
  void startRedis() throws Exception {
    redis = RedisServer.start();
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (Process worker : workers) {
      worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    for (Path log : workerLogs.values()) {
      Files.deleteIfExists(log);
    }
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    redis.close();
  }

  <T extends AutoCloseable> T closed(T resource) {
    closing.add(resource);
    return resource;
  }

  /**
   * The requests a server holds at once, all of them and those of the workers other than the
   * victim's (paths under {@code /victim/}), with the most of each; the victim's are held until
   * {@link #letVictimGo()}, the others' for {@code holdMillis}.
   */
  static final class Counting implements TestServer.Handler {
    final long holdMillis;
    final AtomicInteger held = new AtomicInteger();
    final AtomicInteger maxHeld = new AtomicInteger();
    final AtomicInteger victims = new AtomicInteger();
    final AtomicInteger others = new AtomicInteger();
    final AtomicInteger maxOthers = new AtomicInteger();
    final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    final CountDownLatch victimGoes = new CountDownLatch(1);

    Counting(long holdMillis) {
      this.holdMillis = holdMillis;
    }

    @Override
    public void handle(TestServer.Request request, HttpExchange exchange) throws IOException, InterruptedException {
      String worker = request.path().split("/")[1];
      seen.computeIfAbsent(worker, w -> new AtomicInteger()).incrementAndGet();
      boolean victim = worker.equals("victim");
      maxHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
      AtomicInteger mine = victim ? victims : others;
      int now = mine.incrementAndGet();
      if (!victim) {
        maxOthers.accumulateAndGet(now, Math::max);
      }
      try {
        if (victim) {
          victimGoes.await(60, TimeUnit.SECONDS);
        } else {
          Thread.sleep(holdMillis);
        }
      } finally {
        mine.decrementAndGet();
        held.decrementAndGet();
      }
      TestServer.reply(exchange, 200, "ok"); // throws for the victim's: it is dead
    }

    void letVictimGo() {
      victimGoes.countDown();
    }

    int seen(String worker) {
      AtomicInteger count = seen.get(worker);
      return count == null ? 0 : count.get();
    }
  }

  /** Starts a {@link FleetWorker} JVM named {@code name}; it is killed after the test. */
  Process worker(TestServer server, String name, int inFlight, Duration lease, int callers) throws IOException {
    Path log = Files.createTempFile("fleet-worker-" + name + "-", ".log");
    workerLogs.put(name, log);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), FleetWorker.class.getName(),
        redis.uri(), fleetName, server.uri("").toString(), server.hostKey(), Integer.toString(inFlight),
        Long.toString(lease.toMillis()), Integer.toString(callers), name, "120")
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    workers.add(process);
    return process;
  }

  /** Polls {@code condition} every 10 ms for at most {@code within}; whether it held. */
  static boolean await(Duration within, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  @Test
  void S4_aWorkerKilledWithItsPlacesHeldGivesThemBackWithinTheLeaseAndTheFleetNeverExceedsTheLimit() {
    assertTimeoutPreemptively(BOUND, () -> {
      int limit = 4;
      Duration lease = Duration.ofSeconds(4);
      Counting counting = new Counting(200);
      TestServer server = closed(TestServer.start(counting));
      RedisClient plainClient = RedisClient.create(redis.uri());
      closed(() -> plainClient.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
      RedisCommands<String, String> plain = plainClient.connect().sync();
      String places = "hostpace:" + fleetName + ":places:" + server.hostKey();
      worker(server, "b", limit, lease, 3);
      worker(server, "c", limit, lease, 3);
      check(await(Duration.ofSeconds(30), () -> counting.seen("b") > 5 && counting.seen("c") > 5),
          "workers b and c run");

      // The server holds the victim's requests: it holds places when it is killed, a second after
      // its first came at the latest, well within their lease (else they would have run out while
      // it lived, and the fleet let more in than the limit).
      Process victim = worker(server, "victim", limit, lease, limit);
      check(await(Duration.ofSeconds(30), () -> counting.victims.get() > 0), "the victim holds a place");
      await(Duration.ofSeconds(1), () -> counting.victims.get() > 1);
      victim.destroyForcibly(); // SIGKILL: it releases nothing
      check(victim.waitFor(10, TimeUnit.SECONDS), "the victim is dead");
      long killedAt = System.nanoTime();
      int held = counting.victims.get();
      counting.letVictimGo(); // the server lets its requests go: only Redis still holds their places
      check(await(Duration.ofSeconds(5), () -> counting.victims.get() == 0), "the server let the victim's requests go");
      String origin = origin("victim");
      List<ScoredValue<String>> dead = plain.zrangeWithScores(places, 0, -1).stream()
          .filter(place -> place.getValue().startsWith(origin + ":")).toList();
      assertThat(dead).as("the victim's places, still held in Redis").hasSize(held);
      long redisNow = redisMicros(plain);
      long firstEnds = (long) dead.stream().mapToDouble(ScoredValue::getScore).min().orElseThrow();
      long lastEnds = (long) dead.stream().mapToDouble(ScoredValue::getScore).max().orElseThrow();

      // Until the first of its leases runs out, the others hold no more than the places left them.
      counting.maxOthers.set(counting.others.get());
      Thread.sleep(Math.max(0, TimeUnit.MICROSECONDS.toMillis(firstEnds - redisNow) - 300));
      assertThat(counting.maxOthers.get()).as("b and c at once while the dead victim's %d places are held", held)
          .isLessThanOrEqualTo(limit - held);

      // Its places come back within the lease: then the others use the whole limit again.
      long regainWithin = TimeUnit.MICROSECONDS.toMillis(lastEnds - redisNow) + 2000; // a second's retry, and margin
      check(await(Duration.ofMillis(regainWithin), () -> counting.maxOthers.get() == limit),
          "b and c hold the whole limit again within the lease of the kill (and a second's retry)");
      assertThat(System.nanoTime() - killedAt).isLessThan(lease.plusSeconds(2).toNanos());
      assertThat(plain.zrange(places, 0, -1)).as("places held now")
          .doesNotContainAnyElementsOf(dead.stream().map(ScoredValue::getValue).toList());
      Thread.sleep(500);
      assertThat(counting.maxHeld.get()).as("the most the fleet held at the server at once, over the whole run")
          .isEqualTo(limit);
    });
  }

  /** Fails with the workers' logs when {@code condition} did not hold. */
  void check(boolean condition, String what) throws IOException {
    if (!condition) {
      StringBuilder logs = new StringBuilder();
      for (Map.Entry<String, Path> log : logs().entrySet()) {
        logs.append("\n--- ").append(log.getKey()).append(":\n").append(Files.readString(log.getValue()));
      }
      throw new AssertionError("expected: " + what + logs);
    }
  }

  /** The id of worker {@code name}'s process in the fleet, as its places in Redis are named. */
  String origin(String name) throws IOException {
    String log = Files.readString(logs().get(name));
    Matcher matcher = Pattern.compile(name + " ready: RedisFleet\\{[^,]+, process ([0-9a-f]+)").matcher(log);
    if (!matcher.find()) {
      throw new AssertionError("worker " + name + " did not say it was ready: " + log);
    }
    return matcher.group(1);
  }

  Map<String, Path> logs() {
    return workerLogs;
  }

  /** Redis's clock ({@code TIME}) in microseconds, as the fleet's scripts read it. */
  static long redisMicros(RedisCommands<String, String> redis) {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
  }
}

package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import io.hostpace.Limits;
import io.hostpace.testing.RefusingServer.RetryAfter;
import io.hostpace.testkit.BucketServer;
import io.hostpace.redis.testing.RedisServer;
import io.hostpace.testkit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC S4: a fleet survives its parts failing. Each test has a Redis of its own, which it stops,
 * kills and starts again, and a server on 127.0.0.1 that counts the requests it holds at once;
 * the workers are engines with a {@link RedisFleet} each, in this JVM or (to be killed) in JVMs of
 * their own ({@link FleetWorker}). The clock is the wall clock: what is checked is bounds (never
 * more in flight than the limit, no call longer than its limits, no more starts than the rate),
 * never how fast anything goes. A worker killed and Redis down for ten seconds are held to those
 * bounds over windows of the wall clock (a lease, a second, the outage), which a busy machine can
 * miss for no fault of the fleet: they are tagged {@code wall-clock}, run by {@code -Pthorough};
 * {@code RedisFleetDownTest} holds a fleet whose Redis is gone to its answers without timing.
 */
class FleetFailuresTest {


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
  @Tag("wall-clock")
  void S4_aWorkerHoldsItsPlacesLongerThanTheLeaseWhileItLivesAndKilledGivesThemBackWithinALease() throws Exception {
    int limit = 4;
    Duration lease = Duration.ofSeconds(3); // renewed every second by each worker's heartbeat
    Counting counting = new Counting(200);
    TestServer server = closed(TestServer.start(counting));
    RedisClient plainClient = RedisClient.create(redis.uri());
    closed(() -> plainClient.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    RedisCommands<String, String> plain = plainClient.connect().sync();
    String places = new RedisKeys(fleetName).places(server.hostKey());
    worker(server, "b", limit, lease, 3);
    worker(server, "c", limit, lease, 3);
    check(await(Duration.ofSeconds(30), () -> counting.seen("b") > 5 && counting.seen("c") > 5),
        "workers b and c run");

    // The server holds the victim's requests until after the kill: while it lives they keep
    // their places for twice the lease, as its heartbeat renews them, and b and c never get them.
    Process victim = worker(server, "victim", limit, lease, limit);
    check(await(Duration.ofSeconds(30), () -> counting.victims.get() > 0), "the victim holds a place");
    await(Duration.ofSeconds(1), () -> counting.victims.get() > 1);
    String origin = origin("victim");
    List<ScoredValue<String>> first = victimsPlaces(plain, places, origin);
    assertThat(first).as("the victim's places in Redis").isNotEmpty();
    Thread.sleep(lease.multipliedBy(2).toMillis());
    List<ScoredValue<String>> renewed = victimsPlaces(plain, places, origin);
    for (ScoredValue<String> place : first) {
      assertThat(renewed).as("the victim's place %s, held twice its lease", place.getValue())
          .anySatisfy(now -> {
            assertThat(now.getValue()).isEqualTo(place.getValue());
            assertThat(now.getScore()).as("its lease, renewed").isGreaterThan(place.getScore());
          });
    }
    assertThat(counting.maxHeld.get()).as("the most the fleet held at the server at once, while the victim lived")
        .isLessThanOrEqualTo(limit);

    victim.destroyForcibly(); // SIGKILL: it releases nothing, and renews nothing
    check(victim.waitFor(10, TimeUnit.SECONDS), "the victim is dead");
    int held = counting.victims.get();
    counting.letVictimGo(); // the server lets its requests go: only Redis still holds their places
    check(await(Duration.ofSeconds(5), () -> counting.victims.get() == 0), "the server let the victim's requests go");
    List<ScoredValue<String>> dead = victimsPlaces(plain, places, origin);
    assertThat(dead).as("the victim's places, still held in Redis (a claim granted may not have reached the server)")
        .hasSizeGreaterThanOrEqualTo(held);
    long redisNow = OnRealRedis.redisMicros(plain);
    long firstEnds = (long) dead.stream().mapToDouble(ScoredValue::getScore).min().orElseThrow();
    long lastEnds = (long) dead.stream().mapToDouble(ScoredValue::getScore).max().orElseThrow();
    assertThat(lastEnds - redisNow).as("when the last of the dead victim's leases runs out, after Redis's time read"
        + " since the kill, on Redis's clock, µs: within a lease of its last renewal")
        .isLessThanOrEqualTo(TimeUnit.NANOSECONDS.toMicros(lease.toNanos()));

    // Until the first of its leases runs out, the others hold no more than the places left them.
    counting.maxOthers.set(counting.others.get());
    Thread.sleep(Math.max(0, Math.min(TimeUnit.MICROSECONDS.toMillis(firstEnds - redisNow), lease.toMillis()) - 300));
    assertThat(counting.maxOthers.get()).as("b and c at once while the dead victim's %d places are held", dead.size())
        .isLessThanOrEqualTo(limit - dead.size());

    // Its places come back within a lease of its last renewal: then the others use the whole limit again.
    long regainWithin = Math.min(TimeUnit.MICROSECONDS.toMillis(lastEnds - redisNow), lease.toMillis())
        + 2000; // a second's retry, and margin
    check(await(Duration.ofMillis(regainWithin), () -> counting.maxOthers.get() == limit),
        "b and c hold the whole limit again within the lease of the kill (and a second's retry)");
    assertThat(plain.zrange(places, 0, -1)).as("places held by the time b and c hold the whole limit again")
        .doesNotContainAnyElementsOf(dead.stream().map(ScoredValue::getValue).toList());
    Thread.sleep(500);
    assertThat(counting.maxHeld.get()).as("the most the fleet held at the server at once, over the whole run")
        .isEqualTo(limit);
  }

  /** The places the worker whose fleet is {@code origin} holds in Redis, with when their lease runs out. */
  static List<ScoredValue<String>> victimsPlaces(RedisCommands<String, String> plain, String places, String origin) {
    return plain.zrangeWithScores(places, 0, -1).stream()
        .filter(place -> place.getValue().startsWith(origin + ":")).toList();
  }

  /** One call of an in-process worker: when it was made and ended (nanoTime), and its status. */
  record Call(String worker, long madeAt, long endedAt, int status) {
  }

  /**
   * Engines in this JVM, each with a {@link RedisFleet} of its own, whose callers send GETs to
   * {@code server} one after the other, to {@code /w<i>/<n>}, until {@link #stop()}: each call
   * recorded.
   */
  final class InProcessWorkers implements AutoCloseable {
    final List<RedisFleet> fleets = new ArrayList<>();
    final List<Hostpace> engines = new ArrayList<>();
    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<Thread> callers = new ArrayList<>();
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicInteger failed = new AtomicInteger();

    InProcessWorkers(TestServer server, int count, Limits limits) {
      HttpClient client = HttpGet.client();
      for (int w = 0; w < count; w++) {
        RedisFleet fleet = RedisFleet.connect(redis.uri(), fleetName);
        fleets.add(fleet);
        Hostpace engine = Hostpace.builder().fleet(fleet).addLimit(server.hostKey(), limits).build();
        engines.add(engine);
        String name = "w" + w;
        AtomicInteger sent = new AtomicInteger();
        Thread caller = new Thread(() -> {
          while (running.get()) {
            long madeAt = System.nanoTime();
            try {
              HttpResponse<String> response =
                  engine.send(new HttpGet(client, server.uri("/" + name + "/" + sent.incrementAndGet())));
              calls.add(new Call(name, madeAt, System.nanoTime(), response.statusCode()));
            } catch (IOException | RuntimeException e) {
              failed.incrementAndGet();
              calls.add(new Call(name, madeAt, System.nanoTime(), -1));
            } catch (InterruptedException e) {
              return;
            }
          }
        }, "caller-" + name);
        caller.setDaemon(true);
        callers.add(caller);
      }
      callers.forEach(Thread::start);
    }

    /**
     * The spacing each worker claims {@code hostKey}'s starts with, in ms: its learned interval, or
     * the configured rate's {@code rateSpacing} if that is longer.
     */
    List<Long> spacings(String hostKey, long rateSpacing) {
      return engines.stream().map(engine -> engine.snapshot().stream().filter(h -> h.key().equals(hostKey))
          .mapToLong(h -> Math.max(rateSpacing, h.interval().toMillis())).findFirst().orElse(rateSpacing)).toList();
    }

    /** How many claims the fleets answered unclaimed, in all. */
    long unclaimed() {
      return fleets.stream().mapToLong(RedisFleet::claimsUnclaimed).sum();
    }

    /** Stops the callers once their calls end, and waits for them; whether each ended. */
    boolean stop() throws InterruptedException {
      running.set(false);
      boolean ended = true;
      for (Thread caller : callers) {
        caller.join(10_000);
        ended &= !caller.isAlive();
      }
      return ended;
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      callers.forEach(Thread::interrupt);
      for (Thread caller : callers) {
        caller.join(5_000);
      }
      fleets.forEach(RedisFleet::close);
    }
  }

  /** The answers of {@code bucket} decided from {@code from} to {@code to} nanoTime, {@code madeAt} its origin. */
  static List<BucketServer.Answer> between(BucketServer bucket, long madeAt, long from, long to) {
    return bucket.answers().stream()
        .filter(a -> a.at().toNanos() + madeAt - from >= 0 && a.at().toNanos() + madeAt - to < 0).toList();
  }

  /** The most of {@code answers} in any second, each counted from one of them. */
  static int mostInASecond(List<BucketServer.Answer> answers) {
    int most = 0;
    for (int i = 0; i < answers.size(); i++) {
      long from = answers.get(i).at().toNanos();
      int in = 0;
      for (int j = i; j < answers.size() && answers.get(j).at().toNanos() - from < 1_000_000_000L; j++) {
        in++;
      }
      most = Math.max(most, in);
    }
    return most;
  }

  /** The refusals among {@code answers}. */
  static long refusals(List<BucketServer.Answer> answers) {
    return answers.stream().filter(a -> !a.accepted()).count();
  }

  @Test
  @Tag("wall-clock")
  void S4_whileRedisIsDownForTenSecondsEachWorkerPacesAtItsShareAndNoCallWaitsForItThenTheyRejoin() throws Exception {
    int workers = 3;
    int perSecond = 2; // the host's rate, for the fleet, which the server enforces: not workers times it
    long madeAt = System.nanoTime();
    BucketServer bucket = new BucketServer(perSecond, perSecond, 429, RetryAfter.none());
    TestServer server = closed(TestServer.start(bucket));
    InProcessWorkers fleet = closed(new InProcessWorkers(server, workers, Limits.perSecond(perSecond)));

    Thread.sleep(3000); // the workers find the host and each other
    long beforeFrom = System.nanoTime();
    Thread.sleep(10_000); // 10 s as a fleet, to count what the host refuses of it
    long stoppedAt = System.nanoTime();
    assertThat(fleet.fleets).as("each worker counted the fleet's processes")
        .allSatisfy(f -> assertThat(f.processes()).isEqualTo(workers));
    redis.stop();
    Thread.sleep(10_000);
    long restartedAt = System.nanoTime();
    redis.restart();
    long unclaimedAtRestart = fleet.unclaimed();

    // They rejoin: claims are no longer unclaimed, and so granted by Redis again.
    long rejoinedAt = 0;
    long unclaimed = fleet.unclaimed();
    long quietSince = System.nanoTime();
    while (System.nanoTime() - restartedAt < Duration.ofSeconds(20).toNanos()) {
      Thread.sleep(100);
      long now = fleet.unclaimed();
      if (now != unclaimed) {
        unclaimed = now;
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince > Duration.ofMillis(1500).toNanos()) {
        rejoinedAt = quietSince;
        break;
      }
    }
    assertThat(rejoinedAt).as("the workers rejoined: no claim unclaimed for 1.5 s, within 20 s of the restart")
        .isPositive();
    List<List<Long>> spacings = new ArrayList<>();
    for (int s = 0; s < 5; s++) {
      Thread.sleep(1000);
      spacings.add(fleet.spacings(server.hostKey(), 1000L / perSecond));
    }
    long measuredTo = System.nanoTime();
    assertThat(fleet.stop()).as("every caller's last call ended").isTrue();

    // While Redis is down (from half a second after it stopped: the fleets see it go), each
    // worker paces at its share, the host's rate for 3: the host refuses the fleet no more than it
    // did while Redis answered (twice that, and a refusal for each worker's first start alone,
    // whose phases the fleet no longer spreads).
    assertThat(unclaimedAtRestart).as("claims unclaimed while Redis was down").isGreaterThan(workers);
    List<BucketServer.Answer> before = between(bucket, madeAt, beforeFrom, stoppedAt);
    List<BucketServer.Answer> alone = between(bucket, madeAt, stoppedAt, restartedAt);
    for (int w = 0; w < workers; w++) {
      String path = "/w" + w + "/";
      assertThat(alone.stream().filter(a -> a.path().startsWith(path)).count())
          .as("starts of worker %d in the 10 s Redis was down, at its share", w).isPositive();
    }
    assertThat(refusals(alone)).as("refusals in the 10 s Redis was down; %d in the 10 s before", refusals(before))
        .isLessThanOrEqualTo(2 * refusals(before) + workers - 1);

    // No call waits for Redis, nothing is lost: every call ended with the server's answer. Each
    // worker's caller sends one call after the other, so a call held until Redis came back would
    // leave its worker no call both made and ended while Redis was down (from half a second after
    // it stopped); each waits its share and a claim's timeout at most, so each worker has several.
    assertThat(fleet.failed).as("calls that failed").hasValue(0);
    assertThat(fleet.calls).allSatisfy(call -> assertThat(call.status()).isIn(200, 429));
    for (int w = 0; w < workers; w++) {
      String name = "w" + w;
      assertThat(fleet.calls.stream().filter(call -> call.worker().equals(name)
              && call.madeAt() - stoppedAt > 500_000_000L && call.endedAt() - restartedAt < 0).count())
          .as("calls of worker %d made and ended while Redis was down", w).isGreaterThanOrEqualTo(2);
    }

    // Once rejoined, one pace: the host is paced by its configured rate, which every worker claims
    // with, unless one learned a longer interval (alone, at its share, while Redis was down: it
    // would then claim with that, and never find so long a gap between the others' grants). Each
    // rejoined with the pace the fleet keeps (here, as Redis came back empty, what the first to
    // rejoin held as it was lost), so the spacings they claim with are within 5 % of each other.
    assertThat(spacings).as("the spacing each worker claims with, each second of the 5 s once rejoined, ms")
        .allSatisfy(second -> assertThat(Collections.max(second)).as("%s", second).isLessThanOrEqualTo(Collections.min(second) * 105 / 100));

    // Once rejoined, the fleet's rate again.
    List<BucketServer.Answer> rejoined = between(bucket, madeAt, rejoinedAt, measuredTo);
    assertThat(mostInASecond(rejoined)).as("most starts in a second once rejoined")
        .isLessThanOrEqualTo(perSecond + workers);
    assertThat(rejoined).as("starts once rejoined: claims are granted again").isNotEmpty();
  }

  @Test
  void S4_redisRestartedEmptyHoldsNoHostBackAndTheFleetLearnsAgain() throws Exception {
    int limit = 2;
    CountDownLatch firstHeld = new CountDownLatch(1);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    AtomicBoolean refuseNext = new AtomicBoolean();
    TestServer server = closed(TestServer.start((request, exchange) -> {
      maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        if (request.path().startsWith("/held/")) {
          firstHeld.await(30, TimeUnit.SECONDS);
        } else {
          Thread.sleep(150);
        }
      } finally {
        inFlight.decrementAndGet();
      }
      if (refuseNext.compareAndSet(true, false)) {
        TestServer.reply(exchange, 429, "refused", "Retry-After", "3");
      } else {
        TestServer.reply(exchange, 200, "ok");
      }
    }));
    CompletableFuture<HostpaceEvent.Paused> bPaused = new CompletableFuture<>();
    RedisFleet fleetA = closed(RedisFleet.connect(redis.uri(), fleetName));
    RedisFleet fleetB = closed(RedisFleet.connect(redis.uri(), fleetName));
    Limits twoAtOnce = Limits.inFlight(limit);
    Hostpace a = Hostpace.builder().fleet(fleetA).addLimit(server.hostKey(), twoAtOnce).build();
    Hostpace b = Hostpace.builder().fleet(fleetB).addLimit(server.hostKey(), twoAtOnce)
        .addListener(event -> {
          if (event instanceof HostpaceEvent.Paused paused) {
            bPaused.complete(paused);
          }
        }).build();
    HttpClient client = HttpGet.client();
    RedisClient plainClient = RedisClient.create(redis.uri());
    closed(() -> plainClient.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    String places = new RedisKeys(fleetName).places(server.hostKey());

    // At 0 s a holds both of the host's places, and b's call waits for one.
    List<CompletableFuture<HttpResponse<String>>> held = List.of(
        a.execute(new HttpGet(client, server.uri("/held/1"))), a.execute(new HttpGet(client, server.uri("/held/2"))));
    check(await(Duration.ofSeconds(10), () -> inFlight.get() == limit), "a holds both places");
    CompletableFuture<HttpResponse<String>> waiting = b.execute(new HttpGet(client, server.uri("/b/waiting")));
    Thread.sleep(1500);
    assertThat(server.requests("/b/waiting")).as("b's call, held back by the fleet").isEmpty();
    assertThat(plainClient.connect().sync().zcard(places)).isEqualTo(limit);

    // Redis crashes and comes back empty; a's answers come meanwhile, and their releases are lost.
    redis.kill();
    firstHeld.countDown();
    for (CompletableFuture<HttpResponse<String>> call : held) {
      assertThat(call.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
    assertThat(fleetA.releasesLost()).as("a's releases, sent while Redis was down").isEqualTo(limit);
    redis.restart();
    RedisCommands<String, String> plain = plainClient.connect().sync();
    assertThat(plain.dbsize()).as("keys in the Redis restarted").isZero();

    // No stale lease holds the host: b's call goes, though the places it waited for were held
    // by a, whose releases of them were lost (and whose renewals bring back none of them).
    assertThat(waiting.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

    // Once both are back, the fleet holds the host's places in the new Redis: both use the
    // whole limit again, and never more.
    long unclaimed = fleetA.claimsUnclaimed() + fleetB.claimsUnclaimed();
    AtomicInteger placesSeen = new AtomicInteger();
    for (int round = 0; round < 3; round++) {
      maxInFlight.set(0);
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        calls.add(a.execute(new HttpGet(client, server.uri("/a/" + round + "-" + i))));
        calls.add(b.execute(new HttpGet(client, server.uri("/b/" + round + "-" + i))));
      }
      await(Duration.ofSeconds(2), () -> {
        placesSeen.accumulateAndGet((int) Math.min(Integer.MAX_VALUE, plain.zcard(places)), Math::max);
        return calls.stream().allMatch(CompletableFuture::isDone);
      });
      for (CompletableFuture<HttpResponse<String>> call : calls) {
        assertThat(call.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }
      if (fleetA.claimsUnclaimed() + fleetB.claimsUnclaimed() == unclaimed) { // a round with Redis answering
        assertThat(maxInFlight.get()).as("most in flight at once, round %d", round).isEqualTo(limit);
      }
      unclaimed = fleetA.claimsUnclaimed() + fleetB.claimsUnclaimed();
    }
    assertThat(placesSeen.get()).as("places the fleet held at once in the new Redis").isEqualTo(limit);

    // And it learns again: a refusal a meets pauses b, through the channel subscribed anew.
    refuseNext.set(true);
    CompletableFuture<HttpResponse<String>> refusedCall = a.execute(new HttpGet(client, server.uri("/a/refused")));
    assertThat(bPaused.get(10, TimeUnit.SECONDS).pause()).isGreaterThan(Duration.ofSeconds(1));
    assertThat(refusedCall.get(10, TimeUnit.SECONDS).statusCode()).as("a's call, retried after the pause").isEqualTo(200);
  }

  /** Fails with the workers' logs when {@code condition} did not hold. */
  void check(boolean condition, String what) throws IOException {
    if (!condition) {
      StringBuilder logs = new StringBuilder();
      for (Map.Entry<String, Path> log : workerLogs.entrySet()) {
        logs.append("\n--- ").append(log.getKey()).append(":\n").append(Files.readString(log.getValue()));
      }
      throw new AssertionError("expected: " + what + logs);
    }
  }

  /** The id of worker {@code name}'s process in the fleet, as its places in Redis are named. */
  String origin(String name) throws IOException {
    String log = Files.readString(workerLogs.get(name));
    Matcher matcher = Pattern.compile(name + " ready: RedisFleet\\{[^,]+, process ([0-9a-f]+)").matcher(log);
    if (!matcher.find()) {
      throw new AssertionError("worker " + name + " did not say it was ready: " + log);
    }
    return matcher.group(1);
  }
}

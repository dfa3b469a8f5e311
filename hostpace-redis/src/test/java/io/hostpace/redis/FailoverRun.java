package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.Fleet;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two workers of one fleet that claim starts and places of one host, one claim after another,
 * while Redis fails over under them (SPEC S5), and the checks every failover must pass: each claim
 * is answered exactly once and soon (none hangs), and claims go on to the new master.
 */
final class FailoverRun {

  static final String HOST = "query.wikidata.org";

  /** What fails Redis over: kills a master, or promotes a replica. */
  interface Failover {
    void run() throws Exception;
  }

  /** One claim: when it was asked, how many answers came, and the first answer. */
  static final class Asked {
    final long askedAt = System.nanoTime();
    final AtomicInteger answers = new AtomicInteger();
    final CompletableFuture<Long> answer = new CompletableFuture<>();

    void hear(long value) {
      if (answers.incrementAndGet() == 1) {
        answer.complete(value);
      }
    }
  }

  private final RedisFleet a;
  private final RedisFleet b;
  private final ConcurrentLinkedQueue<Asked> asked = new ConcurrentLinkedQueue<>();
  private final List<String> hung = new CopyOnWriteArrayList<>();
  private long failedOverAt;

  private FailoverRun(RedisFleet a, RedisFleet b) {
    this.a = a;
    this.b = b;
  }

  /**
   * Runs the two workers, fails Redis over half a second in, stops them two seconds after, and
   * waits until an answer given twice would have come.
   */
  static FailoverRun of(RedisFleet a, RedisFleet b, Failover failover) throws Exception {
    FailoverRun run = new FailoverRun(a, b);
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> workers = new ArrayList<>();
    try {
      for (RedisFleet fleet : List.of(a, b)) {
        Thread worker = new Thread(() -> work(fleet, stop, run.asked, run.hung), "worker of " + fleet);
        worker.start();
        workers.add(worker);
      }
      Thread.sleep(500);
      failover.run();
      run.failedOverAt = System.nanoTime();
      Thread.sleep(2000);
    } finally {
      stop.set(true);
      for (Thread worker : workers) {
        worker.join(10_000);
      }
    }
    Thread.sleep(RedisFleet.TIMEOUT_MILLIS + 500);
    return run;
  }

  /**
   * Every claim was answered once and none hung; claims after the failover were granted, the last
   * ones by Redis; a claim now is granted, and the last start is on the master at {@code newMaster}.
   */
  void assertClaimsWentOnTo(String newMaster, String fleetName, String label) throws Exception {
    assertThat(hung).as("claims without an answer in 5 s").isEmpty();
    assertThat(asked).allSatisfy(claim -> assertThat(claim.answers).as("answers of one claim").hasValue(1));
    List<Asked> afterwards = asked.stream().filter(claim -> claim.askedAt > failedOverAt).toList();
    assertThat(afterwards).as("claims after the promotion").isNotEmpty();
    assertThat(afterwards.stream().filter(claim -> claim.answer.join() != Fleet.UNCLAIMED).findFirst())
        .as("a claim granted by the new master")
        .isPresent();
    Asked last = afterwards.get(afterwards.size() - 1);
    assertThat(last.answer.join()).as("the last claims are answered by Redis").isNotEqualTo(Fleet.UNCLAIMED);

    CompletableFuture<Long> minute = new CompletableFuture<>();
    a.claimStart(HOST, TimeUnit.MINUTES.toNanos(1), minute::complete); // the workers' keys expired by now
    assertThat(minute.get(5, TimeUnit.SECONDS)).isZero();
    RedisClient client = RedisClient.create(newMaster);
    try {
      assertThat(client.connect().sync().get(new RedisKeys(fleetName).last(HOST))).as("the last start, on the new master")
          .matches("[0-9]{16,}");
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    System.out.printf("S5 %s: %d claims, %d after the promotion, %d unclaimed in all%n",
        label, asked.size(), afterwards.size(), a.claimsUnclaimed() + b.claimsUnclaimed());
  }

  /** Claims a start and then a place of {@link #HOST}, each after the last was answered, until stopped. */
  private static void work(RedisFleet fleet, AtomicBoolean stop, ConcurrentLinkedQueue<Asked> asked, List<String> hung) {
    for (long place = 0; !stop.get(); place++) {
      Asked start = new Asked();
      asked.add(start);
      fleet.claimStart(HOST, 1000, start::hear); // 1 µs apart: granted but for a race with the other worker
      Asked held = new Asked();
      asked.add(held);
      fleet.claimPlace(HOST, place, 1000, 0, held::hear);
      for (Asked claim : List.of(start, held)) {
        try {
          claim.answer.get(5, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          hung.add(fleet + " claim asked at " + claim.askedAt);
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
      if (held.answer.join() > 0) {
        fleet.releasePlace(HOST, place);
      }
      if (start.answer.join() == Fleet.UNCLAIMED) { // Redis cannot be reached: answered at once, so not in a tight loop
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}

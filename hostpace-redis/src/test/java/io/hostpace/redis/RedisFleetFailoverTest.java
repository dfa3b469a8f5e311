package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.Fleet;
import io.hostpace.redis.testing.RedisCluster;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * SPEC S5: a replica promoted while the fleet's workers claim. Two processes claim starts and
 * places of one host one after another, on a Cluster whose master of that host's slot has a
 * replica; mid-run the replica takes the slot over ({@code CLUSTER FAILOVER}). What is checked:
 * every claim is answered exactly once and soon (none hangs), and claims go on to the new master
 * within a few seconds.
 */
class RedisFleetFailoverTest {

  static final String HOST = "query.wikidata.org";

  final String fleetName = "failover-" + Long.toHexString(System.nanoTime());
  final RedisKeys names = new RedisKeys(fleetName);

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

  /** Claims a start and then a place of {@link #HOST}, each after the last was answered, until stopped. */
  static void work(RedisFleet fleet, AtomicBoolean stop, ConcurrentLinkedQueue<Asked> asked, List<String> hung) {
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

  @Test
  void S5_claimsGoOnToAReplicaPromotedWhileWorkersRunAndEachIsAnsweredOnce() throws Exception {
    try (RedisCluster cluster = RedisCluster.startWithReplicaFor(names.last(HOST))) {
      String before = cluster.uriHolding(names.last(HOST));
      RedisFleet a = RedisFleet.connectCluster(cluster.uris(), fleetName);
      RedisFleet b = RedisFleet.connectCluster(cluster.uris(), fleetName);
      AtomicBoolean stop = new AtomicBoolean();
      ConcurrentLinkedQueue<Asked> asked = new ConcurrentLinkedQueue<>();
      List<String> hung = new java.util.concurrent.CopyOnWriteArrayList<>();
      List<Thread> workers = new ArrayList<>();
      try {
        for (RedisFleet fleet : List.of(a, b)) {
          Thread worker = new Thread(() -> work(fleet, stop, asked, hung), "worker of " + fleet);
          worker.start();
          workers.add(worker);
        }
        Thread.sleep(500);
        cluster.promoteReplica();
        long promoted = System.nanoTime();
        Thread.sleep(2000);
        stop.set(true);
        for (Thread worker : workers) {
          worker.join(10_000);
        }
        Thread.sleep(RedisFleet.TIMEOUT_MILLIS + 500); // an answer given twice would come by then

        String after = cluster.uriHolding(names.last(HOST));
        assertThat(after).as("the replica holds the host's slot").isNotEqualTo(before);
        assertThat(hung).as("claims without an answer in 5 s").isEmpty();
        assertThat(asked).allSatisfy(claim -> assertThat(claim.answers).as("answers of one claim").hasValue(1));
        List<Asked> afterwards = asked.stream().filter(claim -> claim.askedAt > promoted).toList();
        assertThat(afterwards).as("claims after the promotion").isNotEmpty();
        assertThat(afterwards.stream().filter(claim -> claim.answer.join() != Fleet.UNCLAIMED).findFirst())
            .as("a claim granted by the new master")
            .isPresent();
        Asked last = afterwards.get(afterwards.size() - 1);
        assertThat(last.answer.join()).as("the last claims are answered by Redis").isNotEqualTo(Fleet.UNCLAIMED);

        CompletableFuture<Long> minute = new CompletableFuture<>();
        a.claimStart(HOST, TimeUnit.MINUTES.toNanos(1), minute::complete); // the workers' keys expired by now
        assertThat(minute.get(5, TimeUnit.SECONDS)).isZero();
        RedisClient newMaster = RedisClient.create(after);
        try {
          assertThat(newMaster.connect().sync().get(names.last(HOST))).as("the last start, on the new master")
              .matches("[0-9]{16,}");
        } finally {
          newMaster.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        System.out.printf("S5 failover: %d claims, %d after the promotion, %d unclaimed in all%n",
            asked.size(), afterwards.size(), a.claimsUnclaimed() + b.claimsUnclaimed());
      } finally {
        stop.set(true);
        a.close();
        b.close();
      }
    }
  }
}

package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.redis.RedisFleetFailoverTest.Asked;
import io.hostpace.spi.Fleet;
import io.hostpace.redis.testing.RedisSentinel;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * SPEC S5 on Redis with a replica and a Sentinel: while two workers of a fleet connected through
 * the Sentinel ({@code redis-sentinel://}) claim, the master is killed and the Sentinel promotes
 * the replica; the workers' claims are unclaimed meanwhile and go on to the new master once it is
 * promoted, every claim answered once and none hanging.
 */
class RedisFleetSentinelTest {

  final String fleetName = "sentinel-" + Long.toHexString(System.nanoTime());

  @Test
  void S5_claimsThroughASentinelGoOnToTheReplicaItPromotesWhenTheMasterDiesAndEachIsAnsweredOnce() throws Exception {
    try (RedisSentinel redis = RedisSentinel.start()) {
      int before = redis.masterPort();
      RedisFleet a = RedisFleet.connect(redis.uri(), fleetName);
      RedisFleet b = RedisFleet.connect(redis.uri(), fleetName);
      AtomicBoolean stop = new AtomicBoolean();
      ConcurrentLinkedQueue<Asked> asked = new ConcurrentLinkedQueue<>();
      List<String> hung = new CopyOnWriteArrayList<>();
      List<Thread> workers = new ArrayList<>();
      try {
        for (RedisFleet fleet : List.of(a, b)) {
          Thread worker = new Thread(() -> RedisFleetFailoverTest.work(fleet, stop, asked, hung), "worker of " + fleet);
          worker.start();
          workers.add(worker);
        }
        Thread.sleep(500);
        redis.killMaster();
        long promoted = System.nanoTime();
        Thread.sleep(2000);
        stop.set(true);
        for (Thread worker : workers) {
          worker.join(10_000);
        }
        Thread.sleep(RedisFleet.TIMEOUT_MILLIS + 500); // an answer given twice would come by then

        assertThat(redis.masterPort()).as("the replica is the master").isNotEqualTo(before);
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
        a.claimStart(RedisFleetFailoverTest.HOST, TimeUnit.MINUTES.toNanos(1), minute::complete); // the workers' keys expired by now
        assertThat(minute.get(5, TimeUnit.SECONDS)).isZero();
        RedisClient newMaster = RedisClient.create("redis://127.0.0.1:" + redis.masterPort());
        try {
          assertThat(newMaster.connect().sync().get(new RedisKeys(fleetName).last(RedisFleetFailoverTest.HOST)))
              .as("the last start, on the new master").matches("[0-9]{16,}");
        } finally {
          newMaster.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        System.out.printf("S5 sentinel failover: %d claims, %d after the promotion, %d unclaimed in all%n",
            asked.size(), afterwards.size(), a.claimsUnclaimed() + b.claimsUnclaimed());
      } finally {
        stop.set(true);
        a.close();
        b.close();
      }
    }
  }
}

package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.redis.testing.RedisSentinel;
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
      try {
        FailoverRun run = FailoverRun.of(a, b, redis::killMaster);

        assertThat(redis.masterPort()).as("the replica is the master").isNotEqualTo(before);
        run.assertClaimsWentOnTo("redis://127.0.0.1:" + redis.masterPort(), fleetName, "sentinel failover");
      } finally {
        a.close();
        b.close();
      }
    }
  }
}

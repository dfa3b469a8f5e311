package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.redis.testing.RedisCluster;
import org.junit.jupiter.api.Test;

/**
 * SPEC S5: a replica promoted while the fleet's workers claim. Two processes claim starts and
 * places of one host one after another, on a Cluster whose master of that host's slot has a
 * replica; mid-run the replica takes the slot over ({@code CLUSTER FAILOVER}). What is checked:
 * every claim is answered exactly once and soon (none hangs), and claims go on to the new master
 * within a few seconds.
 */
class RedisFleetFailoverTest {

  final String fleetName = "failover-" + Long.toHexString(System.nanoTime());
  final RedisKeys names = new RedisKeys(fleetName);

  @Test
  void S5_claimsGoOnToAReplicaPromotedWhileWorkersRunAndEachIsAnsweredOnce() throws Exception {
    try (RedisCluster cluster = RedisCluster.startWithReplicaFor(names.last(FailoverRun.HOST))) {
      String before = cluster.uriHolding(names.last(FailoverRun.HOST));
      RedisFleet a = RedisFleet.connectCluster(cluster.uris(), fleetName);
      RedisFleet b = RedisFleet.connectCluster(cluster.uris(), fleetName);
      try {
        FailoverRun run = FailoverRun.of(a, b, cluster::promoteReplica);

        String after = cluster.uriHolding(names.last(FailoverRun.HOST));
        assertThat(after).as("the replica holds the host's slot").isNotEqualTo(before);
        run.assertClaimsWentOnTo(after, fleetName, "failover");
      } finally {
        a.close();
        b.close();
      }
    }
  }
}

package io.hostpace.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The testkit's Redis Cluster (SPEC S5) is one a client can use: three masters that share the
 * slots, a replica that follows the master of a key's slot, and a failover to it.
 */
class RedisClusterTest {

  @Test
  void S5_threeMastersServeKeysOfEverySlotAndAPromotedReplicaTakesItsMastersSlot() throws Exception {
    try (RedisCluster cluster = RedisCluster.startWithReplicaFor("{example.org}")) {
      assertThat(cluster.uris()).hasSize(3);
      assertThat(cluster.slot("{example.org}:x")).isEqualTo(cluster.slot("{example.org}"));
      RedisClusterClient client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
      try {
        RedisAdvancedClusterCommands<String, String> redis = client.connect().sync();
        assertThat(redis.clusterInfo()).contains("cluster_state:ok", "cluster_known_nodes:4", "cluster_size:3");
        for (String key : new String[] {"{example.org}", "{wikidata.org}", "{dbpedia.org}", "{uniprot.org}"}) {
          redis.set(key, "v" + cluster.slot(key));
        }
        String before = cluster.uriHolding("{example.org}");
        assertThat(cluster.uris()).contains(before);

        cluster.promoteReplica();

        String after = cluster.uriHolding("{example.org}");
        assertThat(after).as("the replica holds the slot now").isNotEqualTo(before);
        assertThat(cluster.uris()).doesNotContain(after);
        assertThat(redis.get("{example.org}")).as("its data came along")
            .isEqualTo("v" + cluster.slot("{example.org}"));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void S5_aClusterWithoutAReplicaSaysSoWhenAskedToPromoteOne() throws Exception {
    try (RedisCluster cluster = RedisCluster.start()) {
      assertThatThrownBy(cluster::promoteReplica).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no replica");
    }
  }
}

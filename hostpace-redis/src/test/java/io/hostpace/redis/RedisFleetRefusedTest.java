package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.redis.testing.RedisServer;
import io.lettuce.core.AclCategory;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SPEC S5: a Redis that answers but never runs the fleet's scripts (a read-only replica, a user
 * without scripting) is no fleet: it is refused as the fleet is made, saying what Redis answered
 * and what to do, rather than taken and every claim answered unclaimed, each process pacing alone.
 */
class RedisFleetRefusedTest extends OnRealRedis {

  @Test
  void S5_aReadOnlyReplicaIsRefusedNamingItsErrorAndTheMaster() throws Exception {
    try (RedisServer replica = RedisServer.start()) {
      RedisClient client = RedisClient.create(replica.uri());
      try (var connection = client.connect()) {
        redis().configSet("repl-diskless-sync", "yes"); // the sync goes over the socket: no dump.rdb left on disk
        redis().configSet("repl-diskless-sync-delay", "0");
        connection.sync().configSet("repl-diskless-load", "on-empty-db");
        connection.sync().replicaof("127.0.0.1", server.port());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!connection.sync().info("replication").contains("master_link_status:up")) { // synced: no LOADING
          assertThat(System.nanoTime() - deadline).as("the replica synced within %d s", WAIT_SECONDS).isNegative();
          Thread.sleep(10);
        }
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }

      assertThatThrownBy(() -> process(replica.uri(), fleetName))
          .isInstanceOf(RedisCommandExecutionException.class)
          .hasMessageStartingWith("fleet '" + fleetName + "': Redis refused its scripts")
          .hasMessageContaining("READONLY")
          .hasMessageContaining("connect to the master");
    }
  }

  @Test
  void S5_aUserWithoutScriptingIsRefusedNamingItsErrorAndWhatToGrant() {
    String user = fleetName.replace('.', '-');
    redis().aclSetuser(user, new AclSetuserArgs().on().addPassword("secret").allKeys().allChannels().allCommands()
        .removeCategory(AclCategory.SCRIPTING)); // EVAL, EVALSHA and SCRIPT refused: NOPERM
    try {
      String uri = "redis://" + user + ":secret@127.0.0.1:" + server.port();
      assertThatThrownBy(() -> process(uri, fleetName))
          .isInstanceOf(RedisCommandExecutionException.class)
          .hasMessageStartingWith("fleet '" + fleetName + "': Redis refused its scripts")
          .hasMessageContaining("NOPERM")
          .hasMessageContaining("the ACL category scripting")
          .hasMessageNotContaining("secret");
    } finally {
      redis().aclDeluser(user);
    }
  }

  @Test
  void S5_aMasterIsTakenAndCountsThisProcess() {
    assertThat(process().processes()).isEqualTo(1);
  }

  /** A process of the fleet {@code name} on the Redis at {@code uri}, closed after the test. */
  RedisFleet process(String uri, String name) {
    RedisFleet fleet = RedisFleet.connect(uri, name);
    fleets.add(fleet);
    return fleet;
  }
}

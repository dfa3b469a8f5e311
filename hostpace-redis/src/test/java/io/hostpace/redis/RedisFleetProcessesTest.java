package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SPEC S4: a fleet counts its processes alive, each scored by its heartbeat on Redis's clock, so
 * that while Redis cannot be reached each paces at its share. Beats are asked here
 * ({@link RedisFleet#renewNow}) rather than waited for; a dead process is a member whose beats
 * stopped.
 */
class RedisFleetProcessesTest extends OnRealRedis {

  static void beat(RedisFleet fleet) throws Exception {
    fleet.renewNow().get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void S4_aFleetCountsItsLiveProcessesAndOneClosedLeavesAtOnce() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    RedisFleet c = process();
    RedisFleet otherFleet = process(fleetName + "-other");
    beat(a);
    assertThat(a.processes()).as("a, b and c, counted in as each was built").isEqualTo(3);
    assertThat(otherFleet.processes()).as("another fleet's, alone").isEqualTo(1);
    assertThat(redis().ttl(new RedisKeys(fleetName).processes())).as("the set expires once nobody beats").isPositive();

    c.close();
    beat(a);
    beat(b);
    assertThat(a.processes()).isEqualTo(2);
    assertThat(b.processes()).isEqualTo(2);
  }

  @Test
  void S4_aProcessWhoseHeartbeatStoppedIsForgottenWithinALease() throws Exception {
    RedisFleet a = process().placeLease(Duration.ofSeconds(1));
    RedisFleet b = process().placeLease(Duration.ofSeconds(1));
    String key = new RedisKeys(fleetName).processes();
    long killedAt = redisMicros();
    redis().zadd(key, (double) killedAt, "dead"); // its last beat, now: killed right after
    beat(a);
    assertThat(a.processes()).as("a, b and the dead one, within a lease of its last beat").isEqualTo(3);

    while (redisMicros() <= killedAt + 1_000_000) {
      Thread.sleep(10);
    }
    beat(b);
    beat(a);
    assertThat(a.processes()).as("a and b: the dead one, a lease after its last beat, no longer").isEqualTo(2);
    assertThat(redis().zrange(key, 0, -1)).doesNotContain("dead");
  }
}

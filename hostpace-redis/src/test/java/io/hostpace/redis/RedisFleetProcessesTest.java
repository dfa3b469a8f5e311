package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SPEC S4: a fleet counts its processes alive, each scored at its heartbeat, on Redis's clock, with
 * when its own lease runs out, so that while Redis cannot be reached each paces at its share.
 * Beats are asked here
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

  /**
   * A process is counted for its own lease, not the counter's: one leased a minute beats every
   * 20 s, so a process leased a second must not forget it a second after its beat (while Redis is
   * down, each would then take the whole share of a process alone).
   */
  @Test
  void S4_aProcessIsCountedForItsOwnLeaseNotForTheShorterLeaseOfTheProcessThatCounts() throws Exception {
    RedisFleet leasedAMinute = process().placeLease(Duration.ofMinutes(1)); // its next beat is 20 s away
    RedisFleet leasedASecond = process().placeLease(Duration.ofSeconds(1));
    beat(leasedAMinute);
    long beaten = redisMicros();
    while (redisMicros() <= beaten + 1_000_000) { // longer than a second since its beat, on Redis's clock
      Thread.sleep(10);
    }
    beat(leasedASecond);
    assertThat(leasedASecond.processes()).as("both: the minute's process beat within its lease").isEqualTo(2);
  }

  @Test
  void S4_aProcessWhoseHeartbeatStoppedIsForgottenWithinALease() throws Exception {
    RedisFleet a = process().placeLease(Duration.ofSeconds(1));
    RedisFleet b = process().placeLease(Duration.ofSeconds(1));
    String key = new RedisKeys(fleetName).processes();
    long killedAt = redisMicros();
    redis().zadd(key, (double) (killedAt + 1_000_000), "v2:dead"); // its last beat, now, leased a second: killed right after
    beat(a);
    assertThat(a.processes()).as("a, b and the dead one, within a lease of its last beat").isEqualTo(3);

    while (redisMicros() <= killedAt + 1_000_000) {
      Thread.sleep(10);
    }
    beat(b);
    beat(a);
    assertThat(a.processes()).as("a and b: the dead one, a lease after its last beat, no longer").isEqualTo(2);
    assertThat(redis().zrange(key, 0, -1)).doesNotContain("v2:dead");
  }

  /**
   * While a fleet is upgraded, a process of an earlier release scores its member, its bare id, by
   * its last beat: it is counted for the counter's lease after that beat, as that release counts.
   */
  @Test
  void S4_aProcessOfAnEarlierReleaseScoredByItsBeatIsCountedForALeaseAfterIt() throws Exception {
    RedisFleet a = process().placeLease(Duration.ofSeconds(1));
    String key = new RedisKeys(fleetName).processes();
    long beatAt = redisMicros();
    redis().zadd(key, (double) beatAt, "0123456789abcdef"); // as an earlier release beats: its id, scored now

    beat(a);
    assertThat(a.processes()).as("a and the earlier release's, within a lease of its beat").isEqualTo(2);
    while (redisMicros() <= beatAt + 1_000_000) {
      Thread.sleep(10);
    }
    beat(a);
    assertThat(a.processes()).as("a alone: the earlier release's unheard for a lease").isEqualTo(1);
    assertThat(redis().zrange(key, 0, -1)).doesNotContain("0123456789abcdef");
  }
}

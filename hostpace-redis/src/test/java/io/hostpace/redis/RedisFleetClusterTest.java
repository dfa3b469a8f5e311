package io.hostpace.redis;

import static io.hostpace.redis.OnRealRedis.WAIT_SECONDS;
import static io.hostpace.redis.OnRealRedis.assertLeftUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.redis.FleetOverRedisTest.Answer;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.Fleet.Lesson;
import io.hostpace.redis.testing.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC S5 on a Redis Cluster of three masters, started for the test class: the fleet's
 * behaviours of S2 hold with hosts whose keys are on different masters, a claim of a host and its
 * group touches one slot, and a claim that would touch two is unclaimed, not lost.
 */
class RedisFleetClusterTest {

  static final long SECOND = 1_000_000_000L;
  /** Hosts of three domains whose keys this cluster holds on three different masters (checked). */
  static final List<String> SPREAD = List.of("query.wikidata.org", "dbpedia.org", "qlever.dev");

  static RedisCluster cluster;
  final List<RedisFleet> fleets = new ArrayList<>();
  final String fleetName = "cluster-" + Long.toHexString(System.nanoTime());
  final RedisKeys names = new RedisKeys(fleetName);

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = RedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void closeFleets() {
    fleets.forEach(RedisFleet::close);
  }

  RedisFleet process() {
    RedisFleet fleet = RedisFleet.connectCluster(cluster.uris(), fleetName);
    fleets.add(fleet);
    return fleet;
  }

  static long claim(Fleet fleet, List<String> keys, long... intervals) throws Exception {
    CompletableFuture<Long> answer = new CompletableFuture<>();
    fleet.claimStart(keys, intervals, answer::complete);
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  static long claimPlace(Fleet fleet, String key, long place, int limit) throws Exception {
    CompletableFuture<Long> answer = new CompletableFuture<>();
    fleet.claimPlace(key, place, limit, 0, answer::complete);
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** What {@code read} reads on the master that holds {@code key}'s slot, without the cluster's routing. */
  static <T> T onItsMaster(String key, Function<RedisCommands<String, String>, T> read) throws Exception {
    RedisClient node = RedisClient.create(cluster.uriHolding(key));
    try {
      return read.apply(node.connect().sync());
    } finally {
      node.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** The string at {@code key}, read on the master that holds its slot. */
  static String valueOnItsMaster(String key) throws Exception {
    return onItsMaster(key, redis -> redis.get(key));
  }

  /** Redis's clock on the master that holds {@code key}'s slot, the one its scripts read, in microseconds. */
  static long redisMicrosOnItsMaster(String key) throws Exception {
    return onItsMaster(key, OnRealRedis::redisMicros);
  }

  /** How many places the sorted set at {@code key} holds, read on the master that holds its slot. */
  static long placesOnItsMaster(String key) throws Exception {
    return onItsMaster(key, redis -> redis.zcard(key));
  }

  @Test
  void S5_theHostsUnderTestAreOnThreeDifferentMasters() throws Exception {
    Set<String> masters = new HashSet<>();
    for (String host : SPREAD) {
      masters.add(cluster.uriHolding(names.last(host)));
    }
    assertThat(masters).hasSize(3);
  }

  @Test
  void S5_aLessonOneProcessTellsIsHeardByAnotherOverACluster() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    BlockingQueue<Lesson> heard = new LinkedBlockingQueue<>();
    b.listen(heard::add);
    Lesson refusal = new Lesson("query.wikidata.org", true, 2 * SECOND, SECOND / 10, 3);
    a.tell(refusal);
    assertThat(heard.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(refusal);
    assertThat(a.lessonsLost()).isZero();
  }

  @Test
  void S5_startsOfHostsOnDifferentMastersAreSpacedForTheFleet() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    for (String host : SPREAD) {
      String key = names.last(host);
      long before = redisMicrosOnItsMaster(key);
      assertThat(claim(a, List.of(host), 60 * SECOND)).as(host).isZero();
      long asked = redisMicrosOnItsMaster(key);
      long wait = claim(b, List.of(host), 60 * SECOND);
      long answered = redisMicrosOnItsMaster(key);
      String last = valueOnItsMaster(key);
      assertThat(last).as("%s's last start, on the master of its slot", host).matches("[0-9]{16,}");
      assertThat(Long.parseLong(last)).as("%s: a's grant, on its master's clock", host).isBetween(before, asked);
      assertLeftUntil(wait, Long.parseLong(last) + 60_000_000, asked, answered);
    }
    assertThat(a.claimsUnclaimed() + b.claimsUnclaimed()).isZero();
  }

  @Test
  void S5_placesOfHostsOnDifferentMastersAreSharedByTheFleet() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    for (String host : SPREAD) {
      assertThat(claimPlace(a, host, 1, 1)).as(host).isEqualTo(1);
      assertThat(claimPlace(b, host, 1, 1)).as("%s's one place is a's", host).isZero();
      a.releasePlace(host, 1);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (placesOnItsMaster(names.places(host)) > 0) { // the release is on a's connection
        assertThat(System.nanoTime() - deadline).as("released within %d s", WAIT_SECONDS).isNegative();
        Thread.sleep(10);
      }
      assertThat(claimPlace(b, host, 1, 1)).as(host).isEqualTo(1);
    }
    assertThat(a.releasesLost()).isZero();
  }

  @Test
  void S5_aClaimThatWaitsForAPlaceOnAnyMasterIsGrantedItsPlaceWhenOneIsLetGo() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    for (String host : SPREAD) {
      assertThat(claimPlace(a, host, 1, 1)).as(host).isEqualTo(1);
      CompletableFuture<Long> answer = new CompletableFuture<>();
      CompletableFuture<Long> granted = new CompletableFuture<>();
      b.claimPlace(host, 1, 1, answer::complete, granted::complete);
      assertThat(answer.get(WAIT_SECONDS, TimeUnit.SECONDS)).as(host).isEqualTo(Fleet.WAITING);
      a.releasePlace(host, 1); // the master of the host's slot grants it, and publishes to b's channel
      assertThat(granted.get(WAIT_SECONDS, TimeUnit.SECONDS)).as(host).isEqualTo(1);
      List<String> held = onItsMaster(names.places(host), redis -> redis.zrange(names.places(host), 0, -1));
      assertThat(held).as("%s's one place, b's", host).hasSize(1);
      b.releasePlace(host, 1);
    }
    assertThat(a.claimsUnclaimed() + b.claimsUnclaimed() + a.releasesLost() + b.releasesLost()).isZero();
  }

  @Test
  void S5_aClaimOfAHostAndItsGroupTouchesOneSlotAndIsGrantedForBothOrNeither() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    assertThat(cluster.slot(names.last("a.blog.example.org"))).isEqualTo(cluster.slot(names.last("*.example.org")));

    String group = names.last("*.example.org");
    long before = redisMicrosOnItsMaster(group);
    assertThat(claim(a, List.of("*.example.org", "a.blog.example.org"), 60 * SECOND, 30 * SECOND)).isZero();
    long asked = redisMicrosOnItsMaster(group);
    long wait = claim(b, List.of("*.example.org", "www.example.org"), 60 * SECOND, SECOND);
    long answered = redisMicrosOnItsMaster(group);
    long groupLast = Long.parseLong(valueOnItsMaster(group));
    assertThat(groupLast).as("a's grant, on the master's clock").isBetween(before, asked);
    assertLeftUntil(wait, groupLast + 60_000_000, asked, answered); // the group's wait
    assertThat(valueOnItsMaster(names.last("www.example.org")))
        .as("not granted: not recorded").isNull();
    assertThat(a.claimsUnclaimed() + b.claimsUnclaimed()).isZero();
  }

  @Test
  void S5_aClaimOfHostsInTwoSlotsIsUnclaimedAndAGroupOfOneLabelIsRefused() throws Exception {
    RedisFleet a = process();
    assertThat(cluster.slot(names.last("a.example.org"))).isNotEqualTo(cluster.slot(names.last("b.example.net")));

    assertThat(claim(a, List.of("b.example.net", "a.example.org"), 60 * SECOND, SECOND)).isEqualTo(Fleet.UNCLAIMED);
    assertThat(a.claimsUnclaimed()).isOne();
    assertThat(valueOnItsMaster(names.last("a.example.org"))).isNull();
    assertThat(claim(a, List.of("a.example.org"), SECOND)).as("the host alone is granted").isZero();

    // A group of one label would be in another slot than its hosts: no engine writes one, nor does the fleet take it.
    assertThatThrownBy(() -> a.claimStart(List.of("*.org", "a.example.org"), new long[] {60 * SECOND, SECOND}, delay -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'*.org'");
    assertThat(a.claimsUnclaimed()).isOne();
  }

  /**
   * The starts are granted on Redis's clock and seen on the engines', a round trip later, which a
   * busy machine can stretch for one start and not the next: tagged {@code wall-clock}, run by
   * {@code -Pthorough}; the claims' spacing over the masters is held above by the waits the
   * claims answer.
   */
  @Test
  @Tag("wall-clock")
  void S5_twoEnginesConfiguredAtOneStartEachSecondGoAtOneASecondTogetherOverACluster() throws Exception {
    Limits oneASecond = Limits.rate(Rate.of(1, Duration.ofSeconds(1)));
    RedisFleet fleetA = process();
    RedisFleet fleetB = process();
    Hostpace a = Hostpace.builder().fleet(fleetA).addLimit("dbpedia.org", oneASecond).build();
    Hostpace b = Hostpace.builder().fleet(fleetB).addLimit("dbpedia.org", oneASecond).build();
    List<Long> starts = FleetOverRedisTest.sendTimes("dbpedia.org", 2, List.of(a, b));
    for (int i = 1; i < starts.size(); i++) {
      assertThat(starts.get(i) - starts.get(i - 1)).as("gap before start %d", i)
          .isGreaterThan(Duration.ofMillis(900).toNanos());
    }
    assertThat(fleetA.claimsUnclaimed() + fleetB.claimsUnclaimed()).isZero();
  }

  @Test
  void S5_twoEnginesHoldAGroupsInFlightLimitOfTwoTogetherOverACluster() throws Exception {
    Hostpace a = Hostpace.builder().fleet(process()).addLimit("*.uniprot.org", Limits.inFlight(2)).build();
    Hostpace b = Hostpace.builder().fleet(process()).addLimit("*.uniprot.org", Limits.inFlight(2)).build();
    FleetOverRedisTest.holdNoMoreThan(2, List.of(a, b), "a.uniprot.org", "b.uniprot.org", "c.uniprot.org");
  }
}

package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ScoredValue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * SPEC S4: the lease of the places a process holds is renewed while it lives (its heartbeat), so
 * a request keeps its place however long it takes, and a dead process's places run out within a
 * lease. Renewals are asked here ({@link RedisFleet#renewNow}) rather than waited for, and
 * checked on Redis's clock; the heartbeat that asks them is checked to beat at all, not when.
 */
class RedisFleetLeaseTest extends OnRealRedis {

  static final long LEASE_MICROS = RedisFleet.DEFAULT_PLACE_LEASE.toNanos() / 1000;

  String places(String key) {
    return new RedisKeys(fleetName).places(key);
  }

  /** The places held of {@code key}, member to when its lease runs out on Redis's clock. */
  Map<String, Long> scores(String key) {
    return redis().zrangeWithScores(places(key), 0, -1).stream()
        .collect(Collectors.toMap(ScoredValue::getValue, held -> (long) held.getScore()));
  }

  /** Waits until Redis's clock is past {@code micros}, which it is within microseconds. */
  void redisPasses(long micros) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (redisMicros() <= micros) {
      assertThat(System.nanoTime() - deadline).as("Redis's clock passes %d within %d s", micros, WAIT_SECONDS)
          .isNegative();
      Thread.sleep(1);
    }
  }

  static void renew(RedisFleet fleet) throws Exception {
    fleet.renewNow().get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void S4_aRenewalMovesTheLeaseOfEveryPlaceHeldForwardOnRedisClockOneCallPerKey() throws Exception {
    RedisFleet a = process();
    assertThat(RedisFleetPlacesTest.claim(a, "query.wikidata.org", 1, 4)).isEqualTo(1);
    assertThat(RedisFleetPlacesTest.claim(a, "query.wikidata.org", 2, 4)).isEqualTo(2);
    assertThat(RedisFleetPlacesTest.claim(a, "*.wikidata.org", 3, 4)).isEqualTo(1);
    Map<String, Long> host = scores("query.wikidata.org");
    Map<String, Long> group = scores("*.wikidata.org");
    redisPasses(Math.max(host.values().stream().max(Long::compare).orElseThrow(),
        group.values().stream().max(Long::compare).orElseThrow()) - LEASE_MICROS);

    long before = redisMicros();
    renew(a);
    Map<String, Long> hostRenewed = scores("query.wikidata.org");
    Map<String, Long> groupRenewed = scores("*.wikidata.org");
    long after = redisMicros(); // read after the scores: a beat of the heartbeat meanwhile stays within

    assertThat(hostRenewed.keySet()).isEqualTo(host.keySet());
    assertThat(groupRenewed.keySet()).isEqualTo(group.keySet());
    for (Map.Entry<String, Long> renewed : List.of(hostRenewed, groupRenewed).stream()
        .flatMap(m -> m.entrySet().stream()).toList()) {
      assertThat(renewed.getValue()).as("%s: a lease from the renewal, on Redis's clock", renewed.getKey())
          .isBetween(before + LEASE_MICROS, after + LEASE_MICROS)
          .isGreaterThan(host.containsKey(renewed.getKey()) ? host.get(renewed.getKey()) : group.get(renewed.getKey()));
    }
    long left = redis().pttl(places("query.wikidata.org"));
    assertPttl(left, LEASE_MICROS / 1000 + PlaceScript.MARGIN_MILLIS, before, redisMicros()); // the set lives on with its places
    assertThat(a.renewalsLost()).isZero();
  }

  @Test
  void S4_aRenewalNeverBringsBackAPlaceReleasedRunOutOrGoneFromRedis() throws Exception {
    RedisFleet a = process();
    String key = places("example.org");
    for (long place = 1; place <= 4; place++) {
      assertThat(RedisFleetPlacesTest.claim(a, "example.org", place, 4)).isEqualTo(place);
    }
    String origin = redis().zrange(key, 0, 0).get(0).split(":")[0];

    a.releasePlace("example.org", 1);                                  // released by the engine
    redis().zadd(key, (double) (redisMicros() - 1), origin + ":2");    // ran out (the process paused longer than its lease)
    redis().zrem(key, origin + ":3");                                  // gone: a Redis that restarted empty, a claim that let it go
    renew(a);

    assertThat(redis().zrange(key, 0, -1)).as("places held after the renewal").containsExactly(origin + ":4");
    assertThat(a.renewalsLost()).isZero();

    a.releasePlace("example.org", 4);
    renew(a);
    assertThat(redis().exists(key)).as("no place left, none brought back").isZero();
  }

  @Test
  void S4_aQuotaPlaceKeepsTheLeaseOfItsWindowAndIsNotRenewed() throws Exception {
    RedisFleet a = process();
    CompletableFuture<Long> answer = new CompletableFuture<>();
    a.claimPlace("api.test/quota", 1, 60, Duration.ofSeconds(59).toNanos(), answer::complete);
    assertThat(answer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
    Map<String, Long> window = scores("api.test/quota");
    redisPasses(window.values().iterator().next() - Duration.ofSeconds(59).toNanos() / 1000);

    renew(a);

    assertThat(scores("api.test/quota")).as("its window's end, untouched").isEqualTo(window);
  }

  @Test
  void S2_aHostsWindowProbePlaceIsOneProcesssUntilItLetsItGoAndKeepsItsLease() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    long lease = Duration.ofSeconds(30).toNanos();
    assertThat(leased(a, "api.test/probe", 1, lease)).isEqualTo(1);
    assertThat(leased(b, "api.test/probe", 2, lease)).as("held by the other process").isZero();
    Map<String, Long> held = scores("api.test/probe");
    renew(a);
    assertThat(scores("api.test/probe")).as("its lease's end, untouched").isEqualTo(held);

    a.releasePlace("api.test/probe", 1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!scores("api.test/probe").isEmpty()) {
      assertThat(System.nanoTime() - deadline).as("the release reaches Redis within %d s", WAIT_SECONDS).isNegative();
      Thread.sleep(1);
    }
    assertThat(leased(b, "api.test/probe", 2, lease)).as("let go").isEqualTo(1);
  }

  /** Claims place {@code place} of {@code key} on a lease, as a learned quota's places are, and waits for the answer. */
  static long leased(RedisFleet fleet, String key, long place, long lease) throws Exception {
    CompletableFuture<Long> answer = new CompletableFuture<>();
    fleet.claimPlace(key, place, 1, lease, answer::complete);
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void S4_aRenewalThatRedisFailsIsCountedAndTheOthersGoOn() throws Exception {
    RedisFleet a = process();
    assertThat(RedisFleetPlacesTest.claim(a, "broken.example", 1, 2)).isEqualTo(1);
    assertThat(RedisFleetPlacesTest.claim(a, "example.org", 1, 2)).isEqualTo(1);
    redis().set(places("broken.example"), "not a sorted set"); // the script fails on it (WRONGTYPE)
    long before = redisMicros();

    renew(a);

    assertThat(a.renewalsLost()).as("the renewal of broken.example's places").isEqualTo(1);
    assertThat(scores("example.org").values()).as("example.org's, renewed all the same")
        .allSatisfy(ends -> assertThat(ends).isGreaterThanOrEqualTo(before + LEASE_MICROS));
  }

  @Test
  void S4_theHeartbeatRenewsAHeldPlaceByItselfUntilTheFleetIsClosed() throws Exception {
    RedisFleet a = process().placeLease(Duration.ofSeconds(3)); // a beat every second
    assertThat(RedisFleetPlacesTest.claim(a, "example.org", 1, 2)).isEqualTo(1);
    String member = redis().zrange(places("example.org"), 0, 0).get(0);
    long first = scores("example.org").get(member);

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS); // a guard against a hang
    for (Double now = redis().zscore(places("example.org"), member); now != null && now.longValue() == first;
        now = redis().zscore(places("example.org"), member)) {
      assertThat(System.nanoTime() - deadline).as("the heartbeat renewed the place").isNegative();
      Thread.sleep(10);
    }
    assertThat(redis().zscore(places("example.org"), member)).as("renewed, not let go").isNotNull()
        .isGreaterThan((double) first);

    a.close();
    renew(a);
    assertThat(a.renewalsLost()).as("a closed fleet renews nothing, and loses nothing for it").isZero();
  }
}

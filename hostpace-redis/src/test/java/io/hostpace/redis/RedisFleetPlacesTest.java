package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.spi.Fleet;
import io.lettuce.core.ScoredValue;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The places of a host with a learned in-flight limit (SPEC S2), held by two processes of a fleet,
 * as two {@link RedisFleet}s on one real Redis. A release is sent on its process's connection and
 * Redis runs one connection's commands in order, so a claim that process makes after it sees it.
 */
class RedisFleetPlacesTest extends OnRealRedis {

  static final long MINUTE_MICROS = 60_000_000L;

  String places(String key) {
    return new RedisKeys(fleetName).places(key);
  }

  /** How many places Redis says are held with {@code place}'s claim, as {@code then} heard it. */
  static long claim(Fleet fleet, String key, long place, int limit) throws Exception {
    CompletableFuture<Long> answer = new CompletableFuture<>();
    fleet.claimPlace(key, place, limit, 0, answer::complete);
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void S2_placesAreGrantedAcrossProcessesUpToTheLimitThenNoneUntilOneIsReleased() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();

    assertThat(claim(a, "qlever.dev", 1, 3)).isEqualTo(1);
    assertThat(claim(b, "qlever.dev", 1, 3)).as("b's request 1 is not a's").isEqualTo(2);
    assertThat(claim(a, "qlever.dev", 2, 3)).isEqualTo(3);
    assertThat(claim(b, "qlever.dev", 2, 3)).as("all three held").isZero();
    assertThat(claim(a, "qlever.dev", 1, 3)).as("a place already held counts once").isEqualTo(3);

    a.releasePlace("qlever.dev", 1);
    assertThat(claim(a, "qlever.dev", 2, 3)).as("after a's release, on a's connection").isEqualTo(2);
    assertThat(claim(b, "qlever.dev", 2, 3)).as("the place a let go").isEqualTo(3);
    assertThat(claim(b, "qlever.dev", 3, 3)).isZero();
    assertThat(redis().zcard(places("qlever.dev"))).isEqualTo(3);
    assertThat(a.claimsUnclaimed() + b.claimsUnclaimed() + a.releasesLost() + b.releasesLost()).isZero();
  }

  @Test
  void S2_placesOfDifferentKeysOrFleetsAreNotShared() throws Exception {
    RedisFleet a = process();
    RedisFleet other = process(fleetName + "-other");

    assertThat(claim(a, "query.wikidata.org", 1, 1)).isEqualTo(1);
    assertThat(claim(a, "*.wikidata.org", 2, 1)).isEqualTo(1);
    assertThat(claim(a, "qlever.dev", 3, 1)).isEqualTo(1);
    assertThat(claim(other, "query.wikidata.org", 1, 1)).isEqualTo(1);
    assertThat(claim(a, "query.wikidata.org", 4, 1)).isZero();
  }

  @Test
  void S2_aPlaceIsLeasedOnRedisClockAndItsSetExpiresAfterTheLease() throws Exception {
    RedisFleet a = process();

    long before = redisMicros();
    assertThat(claim(a, "example.org", 1, 2)).isEqualTo(1);
    List<ScoredValue<String>> held = redis().zrangeWithScores(places("example.org"), 0, -1);
    long after = redisMicros(); // read after the score: a renewal of the heartbeat meanwhile stays within

    long lease = RedisFleet.DEFAULT_PLACE_LEASE.toNanos() / 1000;
    assertThat(held).hasSize(1);
    assertThat(held.get(0).getValue()).as("origin:place").matches("[0-9a-f]{16}:1");
    assertThat((long) held.get(0).getScore()).as("10 s after the claim (or its renewal), in microseconds of Redis's clock")
        .isBetween(before + lease, after + lease);
    long left = redis().pttl(places("example.org"));
    assertPttl(left, lease / 1000 + PlaceScript.MARGIN_MILLIS, before, redisMicros()); // set by the claim or a renewal since

    a.placeLease(Duration.ofMinutes(1));
    before = redisMicros();
    assertThat(claim(a, "long.example", 1, 2)).isEqualTo(1);
    long score = (long) redis().zscore(places("long.example"), held.get(0).getValue()).doubleValue();
    after = redisMicros();
    assertThat(score).isBetween(before + MINUTE_MICROS, after + MINUTE_MICROS);
    left = redis().pttl(places("long.example"));
    assertPttl(left, MINUTE_MICROS / 1000 + PlaceScript.MARGIN_MILLIS, before, redisMicros());
  }

  @Test
  void S2_aPlaceClaimedWithALeaseHoldsItOnRedisClockWhateverTheFleetsLease() throws Exception {
    RedisFleet a = process();

    long before = redisMicros();
    CompletableFuture<Long> answer = new CompletableFuture<>();
    a.claimPlace("api.test/quota", 1, 60, Duration.ofSeconds(59).plusNanos(1).toNanos(), answer::complete);
    assertThat(answer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
    long after = redisMicros();

    ScoredValue<String> held = redis().zrangeWithScores(places("api.test/quota"), 0, -1).get(0);
    assertThat((long) held.getScore()).as("59 s and a microsecond (rounded up) after the claim")
        .isBetween(before + 59_000_001L, after + 59_000_001L);
    long left = redis().pttl(places("api.test/quota"));
    assertPttl(left, 59_001 + PlaceScript.MARGIN_MILLIS, before, redisMicros()); // the lease in whole milliseconds, rounded up
    assertThatThrownBy(() -> a.claimPlace("api.test/quota", 2, 60, -1, held2 -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseNanos");
  }

  @Test
  void S2_aPlaceWhoseLeaseRanOutIsLetGoByTheNextClaimAndAShortLeaseCutsNoLongerOneShort() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process(); // a process that dies holding its place: a lease of 1 ms, never renewed nor released
    String key = places("example.org");

    long before = redisMicros();
    assertThat(claim(a, "example.org", 1, 2)).isEqualTo(1);   // a's lease: the fleet's, 10 s
    CompletableFuture<Long> bClaimed = new CompletableFuture<>();
    b.claimPlace("example.org", 1, 2, TimeUnit.MILLISECONDS.toNanos(1), bClaimed::complete);
    assertThat(bClaimed.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(2);
    long left = redis().pttl(key);
    // the set lives as long as a's lease (from its claim, or a renewal since), not b's
    assertPttl(left, RedisFleet.DEFAULT_PLACE_LEASE.toMillis() + PlaceScript.MARGIN_MILLIS, before, redisMicros());

    ScoredValue<String> bHeld = redis().zrangeWithScores(key, 0, 0).get(0); // the lease that runs out first
    long bExpiry = (long) bHeld.getScore();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (redisMicros() <= bExpiry) { // Redis's clock passes b's lease within a millisecond
      assertThat(System.nanoTime() - deadline).as("Redis's clock passed b's lease within %d s", WAIT_SECONDS)
          .isNegative();
    }
    assertThat(redis().zcard(key)).as("nothing lets it go but a claim").isEqualTo(2);

    assertThat(claim(a, "example.org", 2, 2)).as("b's place is free again").isEqualTo(2);
    assertThat(redis().zrange(key, 0, -1)).doesNotContain(bHeld.getValue()).hasSize(2);
  }

  @Test
  void S2_aPlaceClaimAfterRedisForgotTheScriptSendsItAgain() throws Exception {
    RedisFleet a = process();
    assertThat(claim(a, "example.org", 1, 5)).isEqualTo(1);

    redis().scriptFlush(); // EVALSHA now answers NOSCRIPT, and the fleet falls back to EVAL

    assertThat(claim(a, "example.org", 2, 5)).isEqualTo(2);
    assertThat(a.claimsUnclaimed()).isZero();
  }

  @Test
  void S2_aPlaceClaimIsAnsweredOnceOnAnotherThread() throws Exception {
    RedisFleet a = process();
    assertAnsweredOnceOnAnotherThread(a, then -> a.claimPlace("example.org", 1, 1, 0, then));
  }

  @Test
  void S2_aClosedFleetAnswersPlaceClaimsUnclaimedAndCountsItsReleasesLost() throws Exception {
    RedisFleet a = process();
    a.close();

    assertThat(claim(a, "example.org", 1, 1)).isEqualTo(Fleet.UNCLAIMED);
    assertThat(a.claimsUnclaimed()).isEqualTo(1);
    a.releasePlace("example.org", 1);
    assertThat(a.releasesLost()).isEqualTo(1);
  }

  @Test
  void S2_aPlaceClaimOrReleaseWithAnEmptyKeyANegativePlaceOrALimitBelowOneIsRefused() {
    RedisFleet a = process();

    assertThatThrownBy(() -> a.claimPlace("", 1, 1, 0, held -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("expected a host's key or a group's: host limit '' is empty");
    assertThatThrownBy(() -> a.claimPlace("example.org", -1, 1, 0, held -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("place must be at least 0, was -1");
    assertThatThrownBy(() -> a.claimPlace("example.org", 1, 0, 0, held -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be at least 1, was 0");
    assertThatThrownBy(() -> a.claimPlace(null, 1, 1, 0, held -> {})).hasMessage("key");
    assertThatThrownBy(() -> a.claimPlace("example.org", 1, 1, 0, null)).hasMessage("then");
    assertThatThrownBy(() -> a.releasePlace("", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("expected a host's key or a group's: host limit '' is empty");
    assertThatThrownBy(() -> a.releasePlace("example.org", -2))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("place must be at least 0, was -2");
    assertThatThrownBy(() -> a.placeLease(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("place lease must be at least a second (PT1S), was PT0S");
    assertThat(a.claimsUnclaimed() + a.releasesLost()).isZero();
  }
}

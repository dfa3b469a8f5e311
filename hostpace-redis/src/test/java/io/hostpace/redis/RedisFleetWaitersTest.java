package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.spi.Fleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Claims of a host's places that wait in Redis when all are held (SPEC S2): several processes of a
 * fleet, as {@link RedisFleet}s on one real Redis, contend for 2 places. Each release grants the
 * place to the claim that waited longest, in the script that let it go, and tells its process alone;
 * no process asks again while the places are held. The fleets' lease is an hour, so that no
 * heartbeat runs during a test: the scripts counted are the claims' and the releases'.
 */
class RedisFleetWaitersTest extends OnRealRedis {

  static final String KEY = "gate.test";

  /** A process of this test's fleet whose heartbeat does not beat during the test. */
  RedisFleet quietProcess() {
    return process().placeLease(Duration.ofHours(1));
  }

  /** One claim that may wait: its answer, and its grant if one comes. */
  record Claim(CompletableFuture<Long> answer, CompletableFuture<Long> granted) {
    long answered() throws Exception {
      return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    long grantedWith() throws Exception {
      return granted.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }

  static Claim claim(Fleet fleet, long place) {
    Claim claim = new Claim(new CompletableFuture<>(), new CompletableFuture<>());
    fleet.claimPlace(KEY, place, 2, claim.answer()::complete, claim.granted()::complete);
    return claim;
  }

  String waiters() {
    return new RedisKeys(fleetName).waiters(KEY);
  }

  String places() {
    return new RedisKeys(fleetName).places(KEY);
  }

  /** Waits until Redis holds {@code count} places of the key: a release is sent without an answer. */
  void awaitPlacesHeld(long count) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (redis().zcard(places()) != count) {
      assertThat(System.nanoTime() - deadline).as("Redis held %d places within %d s", count, WAIT_SECONDS).isNegative();
      Thread.onSpinWait();
    }
  }

  @Test
  void S2_eachReleaseGrantsExactlyOneWaitingClaimInTheOrderTheyWaitedAndTellsItsProcessAlone() throws Exception {
    RedisFleet a = quietProcess();
    RedisFleet b = quietProcess();
    RedisFleet c = quietProcess();
    RedisFleet d = quietProcess();
    assertThat(claim(a, 1).answered()).isEqualTo(1);
    assertThat(claim(a, 2).answered()).isEqualTo(2);
    Claim bWaits = claim(b, 1);
    assertThat(bWaits.answered()).isEqualTo(Fleet.WAITING);
    Claim cWaits = claim(c, 1);
    assertThat(cWaits.answered()).isEqualTo(Fleet.WAITING);
    Claim dWaits = claim(d, 1);
    assertThat(dWaits.answered()).isEqualTo(Fleet.WAITING);
    assertThat(redis().zcard(waiters())).isEqualTo(3);

    a.releasePlace(KEY, 1);
    assertThat(bWaits.grantedWith()).as("b waited first: 2 held with its place").isEqualTo(2);
    assertThat(redis().zcard(waiters())).as("c and d still wait").isEqualTo(2);
    assertThat(redis().zcard(places())).isEqualTo(2);

    b.releasePlace(KEY, 1);
    assertThat(cWaits.grantedWith()).isEqualTo(2);
    a.releasePlace(KEY, 2);
    assertThat(dWaits.grantedWith()).isEqualTo(2);
    assertThat(redis().zcard(waiters())).isZero();
    assertThat(redis().zrange(places(), 0, -1)).hasSize(2);

    c.releasePlace(KEY, 1);
    d.releasePlace(KEY, 1);
    awaitPlacesHeld(0);
    assertThat(bWaits.granted()).isDone();
    // Two places, three claims that waited: three grants, each after one release; one script a claim, one a release.
    assertThat(a.scriptsSent.sum() + b.scriptsSent.sum() + c.scriptsSent.sum() + d.scriptsSent.sum())
        .as("scripts: 5 claims and 5 releases, besides each process counting itself in").isEqualTo(5 + 5 + 4);
    assertThat(a.claimsUnclaimed() + b.claimsUnclaimed() + c.claimsUnclaimed() + d.claimsUnclaimed()).isZero();
  }

  @Test
  void S2_processesThatTakeTurnsAtTwoPlacesSendTwoScriptsAStartHoweverManyWait() throws Exception {
    int processes = 5;
    int starts = 40;
    List<RedisFleet> fleets = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      fleets.add(quietProcess());
    }
    long before = fleets.stream().mapToLong(fleet -> fleet.scriptsSent.sum()).sum();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger waited = new AtomicInteger();
    List<CompletableFuture<Void>> workers = new ArrayList<>();
    for (RedisFleet fleet : fleets) {
      workers.add(CompletableFuture.runAsync(() -> {
        try {
          for (long place = 1; place <= starts; place++) { // each start held until the next claim is sent
            Claim claim = claim(fleet, place);
            long held = claim.answered();
            if (held == Fleet.WAITING) {
              waited.incrementAndGet();
              held = claim.grantedWith();
            }
            assertThat(held).isBetween(1L, 2L);
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            inFlight.decrementAndGet();
            fleet.releasePlace(KEY, place);
          }
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }));
    }
    CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    awaitPlacesHeld(0);

    long scripts = fleets.stream().mapToLong(fleet -> fleet.scriptsSent.sum()).sum() - before;
    assertThat(most.get()).as("held at once, as the processes saw it").isLessThanOrEqualTo(2);
    assertThat(waited.get()).as("claims that waited for a grant").isPositive();
    assertThat(scripts).as("a claim and a release a start, %d of %d starts waited", waited.get(), processes * starts)
        .isEqualTo(2L * processes * starts);
    assertThat(redis().zcard(waiters())).isZero();
    assertThat(fleets.stream().mapToLong(RedisFleet::claimsUnclaimed).sum()).isZero();
  }

  @Test
  void S2_aClaimWhoseProcessClosedOrWhoseTermRanOutIsPassedOver() throws Exception {
    RedisFleet a = quietProcess();
    RedisFleet b = quietProcess();
    RedisFleet c = quietProcess();
    assertThat(claim(a, 1).answered()).isEqualTo(1);
    assertThat(claim(a, 2).answered()).isEqualTo(2);
    // A process killed while its claim waited: its term runs out 2 s after it began to wait.
    long termEnds = redisMicros() + 2_000_000;
    String dead = "00000000deadbeef:7";
    redis().zadd(waiters(), 0, dead); // it waited first
    redis().hset(new RedisKeys(fleetName).waiterTerms(KEY), dead, termEnds + " 2 2000000");
    Claim bWaits = claim(b, 1);
    assertThat(bWaits.answered()).isEqualTo(Fleet.WAITING);
    Claim cWaits = claim(c, 1);
    assertThat(cWaits.answered()).isEqualTo(Fleet.WAITING);
    b.close(); // withdraws its claim
    assertThat(redis().zrange(waiters(), 0, -1)).as("the dead claim and c's").hasSize(2).contains(dead);
    while (redisMicros() <= termEnds) { // Redis's clock passes the dead claim's term
      Thread.sleep(10);
    }

    a.releasePlace(KEY, 1);
    assertThat(cWaits.grantedWith()).isEqualTo(2);
    assertThat(redis().zrange(places(), 0, -1)).doesNotContain(dead).hasSize(2);
    assertThat(redis().zcard(waiters())).isZero();
    assertThat(bWaits.granted()).isNotDone();
  }

  @Test
  void S2_aClaimAskedAgainKeepsItsTurnAndIsAnsweredThePlaceGrantedMeanwhile() throws Exception {
    RedisFleet a = quietProcess();
    RedisFleet b = quietProcess();
    RedisFleet c = quietProcess();
    assertThat(claim(a, 1).answered()).isEqualTo(1);
    assertThat(claim(a, 2).answered()).isEqualTo(2);
    assertThat(claim(b, 1).answered()).isEqualTo(Fleet.WAITING);
    Claim cWaits = claim(c, 1);
    assertThat(cWaits.answered()).isEqualTo(Fleet.WAITING);
    Claim bAgain = claim(b, 1);
    assertThat(bAgain.answered()).as("still waiting, first").isEqualTo(Fleet.WAITING);

    a.releasePlace(KEY, 1);
    assertThat(bAgain.grantedWith()).as("the later claim hears the grant").isEqualTo(2);
    assertThat(cWaits.granted()).isNotDone();
    assertThat(claim(b, 1).answered()).as("a claim of a place granted: what it holds").isEqualTo(2);
    assertThat(claim(c, 1).answered()).isEqualTo(Fleet.WAITING);
    c.releasePlace(KEY, 1); // withdrawn
    a.releasePlace(KEY, 2);
    awaitPlacesHeld(1);
    assertThat(cWaits.granted()).isNotDone();
    assertThat(redis().zcard(waiters())).isZero();
  }

  @Test
  void S2_aQuotasPlaceWaitsForNone() {
    RedisFleet a = quietProcess();
    assertThatThrownBy(() -> a.claimPlace("api.test/quota", 1, 1, held -> {}, held -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key 'api.test/quota' is a learned quota's: its places end by their lease, and none waits for them");
  }
}

package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.internal.Redaction;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.Fleet.Lesson;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Two processes of a fleet, as two {@link RedisFleet}s on one real Redis. Delays are the ones Redis
 * computed on its own clock, so they are checked as numbers, never against the test's clock.
 */
class RedisFleetTest extends OnRealRedis {

  static final long SECOND = 1_000_000_000L;
  static final long MILLI = 1_000_000L;

  static <T> T next(BlockingQueue<T> heard) throws InterruptedException {
    T value = heard.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(value).as("heard within %d s", WAIT_SECONDS).isNotNull();
    return value;
  }

  /** The delay Redis gives a claim of {@code key} at {@code interval}, as {@code then} heard it. */
  static long claim(Fleet fleet, String key, long intervalNanos) throws Exception {
    CompletableFuture<Long> answer = new CompletableFuture<>();
    fleet.claimStart(key, intervalNanos, answer::complete);
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void S2_aLessonOneProcessTellsReachesTheOthersWithEveryFieldButNotItself() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    BlockingQueue<Lesson> aHeard = new LinkedBlockingQueue<>();
    BlockingQueue<Lesson> bHeard = new LinkedBlockingQueue<>();
    a.listen(aHeard::add);
    b.listen(bHeard::add);

    Lesson refusal = new Lesson("*.wikidata.org", true, 2_500_000_001L, 84_000_123L, 3);
    a.tell(refusal);
    assertThat(next(bHeard)).isEqualTo(refusal);

    // Redis delivers a's subscription its messages in the order it ran the PUBLISHes: had a heard
    // its own refusal, it would hear it before b's answer, told only once b had heard the refusal.
    Lesson answer = new Lesson("query.wikidata.org:8443", false, -1, 0, 0);
    b.tell(answer);
    assertThat(next(aHeard)).isEqualTo(answer);
    assertThat(aHeard).isEmpty();
    assertThat(a.lessonsLost()).isZero();
    assertThat(b.lessonsLost()).isZero();
  }

  @Test
  void S2_aClosedListenerHearsNothingMoreWhileTheOthersGoOn() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    List<Lesson> closedHeard = new ArrayList<>();
    BlockingQueue<Lesson> openHeard = new LinkedBlockingQueue<>();
    AutoCloseable closing = b.listen(closedHeard::add); // called before the open one, on the same thread
    b.listen(openHeard::add);

    Lesson first = new Lesson("example.org", false, -1, 5 * MILLI, 0);
    a.tell(first);
    assertThat(next(openHeard)).isEqualTo(first);
    closing.close();
    Lesson second = new Lesson("example.org", true, -1, 6 * MILLI, 0);
    a.tell(second);
    assertThat(next(openHeard)).isEqualTo(second);

    assertThat(closedHeard).containsExactly(first);
  }

  @Test
  void S2_aListenerThatThrowsKeepsNeitherItselfNorTheOthersFromLaterLessons() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    AtomicInteger thrown = new AtomicInteger();
    BlockingQueue<Lesson> heard = new LinkedBlockingQueue<>();
    b.listen(lesson -> {
      thrown.incrementAndGet();
      throw new IllegalStateException("a broken listener");
    });
    b.listen(heard::add);

    Lesson first = new Lesson("example.org", false, -1, 1, 0);
    Lesson second = new Lesson("example.org", false, -1, 2, 0);
    a.tell(first);
    a.tell(second);

    assertThat(next(heard)).isEqualTo(first);
    assertThat(next(heard)).isEqualTo(second);
    assertThat(thrown).hasValue(2);
  }

  @Test
  void S2_messagesOnTheChannelThatAreNoLessonsAreIgnored() throws Exception {
    RedisFleet b = process();
    BlockingQueue<Lesson> heard = new LinkedBlockingQueue<>();
    b.listen(heard::add);
    String channel = "hostpace:" + fleetName + ":lessons";

    redis().publish(channel, "not a lesson");
    redis().publish(channel, "other\texample.org\tyes\t-1\t0");
    redis().publish(channel, "other\texample.org\t1\t-5\t0");
    redis().publish(channel, "other\texample.org\t1\t-1\t0\textra");
    redis().publish(channel, "other\texample.org\t1\t-1\t0\t-1");
    redis().publish(channel, "other\texample.org\t1\t-1\t0\t2\t3");
    redis().publish(channel, "");
    redis().publish(channel, "other\t \t1\t-1\t0\t1");            // keys no engine writes
    redis().publish(channel, "other\ta\nb\t1\t-1\t0\t1");
    redis().publish(channel, "other\t*.test\t1\t-1\t0\t1");
    redis().publish(channel, "other\tExample.org\t1\t-1\t0\t1");
    redis().publish(channel, "other\texample.org\t1\t-1\t7");     // an older teller's: in flight not known
    redis().publish(channel, "other\texample.org\t1\t-1\t8\t4");

    assertThat(next(heard)).isEqualTo(new Lesson("example.org", true, -1, 7, 0));
    assertThat(next(heard)).isEqualTo(new Lesson("example.org", true, -1, 8, 4));
    assertThat(heard).isEmpty();
  }

  @Test
  void S2_aLessonWhoseKeyNoEngineWritesIsRefusedNamingItAndNotSent() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    BlockingQueue<Lesson> heard = new LinkedBlockingQueue<>();
    b.listen(heard::add);

    for (String key : new String[] {"example.org\tevil", " ", "a\nb", "*.test", "Example.org"}) {
      assertThatThrownBy(() -> a.tell(new Lesson(key, true, -1, 0, 0)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + Redaction.printable(key) + "'");
    }
    assertThat(a.lessonsLost()).isZero();
    Lesson marker = new Lesson("example.org", false, -1, 0, 0);
    a.tell(marker);

    assertThat(next(heard)).isEqualTo(marker);
    assertThat(heard).isEmpty();
  }

  @Test
  void S2_aClaimIsGrantedOnlyAnIntervalAfterTheLastGrantOnRedisClock() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();

    long t0 = redisMicros();
    long first = claim(a, "qlever.dev", 10 * SECOND);
    long t1 = redisMicros();
    long second = claim(b, "qlever.dev", 10 * SECOND);
    long t2 = redisMicros();
    long third = claim(a, "qlever.dev", 10 * SECOND);
    long t3 = redisMicros();
    long last = Long.parseLong(redis().get(new RedisKeys(fleetName).last("qlever.dev")));

    // A claim not granted says how long until the last grant is an interval old, as of Redis's
    // clock when it ran (somewhere between the readings around it); it reserves nothing, so the
    // third waits for the same grant as the second.
    assertThat(first).isZero();
    assertThat(last).as("the first's grant, on Redis's clock").isBetween(t0, t1);
    assertLeftUntil(second, last + 10_000_000, t1, t2);
    assertLeftUntil(third, last + 10_000_000, t2, t3);
    assertThat(third).isLessThanOrEqualTo(second);
    assertThat(a.claimsUnclaimed() + b.claimsUnclaimed()).isZero();
  }

  @Test
  void S2_aClaimThatWaitsIsToldWhenTheShortestIntervalClaimedLatelyHasPassedThoughItsOwnIsALittleLonger() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    RedisKeys names = new RedisKeys(fleetName);

    long before = redisMicros();
    assertThat(claim(a, "fair.example", 60 * SECOND)).isZero();
    long granted = redisMicros();
    long last = Long.parseLong(redis().get(names.last("fair.example")));
    assertThat(last).as("a's grant, on Redis's clock").isBetween(before, granted);
    // b is paced at 63 s, a little slower: it is told when the 60 s pass, as a would be, so it
    // asks again with a and may win the start; held to its own 63 s it never would.
    long asked = redisMicros();
    long wait = claim(b, "fair.example", 63 * SECOND);
    long answered = redisMicros();
    assertLeftUntil(wait, last + 60_000_000, asked, answered);
    assertThat(redis().get(names.shortest("fair.example"))).as("microseconds").isEqualTo("60000000");
    long shortestLeft = redis().pttl(names.shortest("fair.example"));
    assertPttl(shortestLeft, 90_000, before, redisMicros()); // one and a half of it after a's claim, the last that set it

    // A faster claim is the shortest at once; a claim slower than it beyond a sixteenth of its own
    // interval (a pace a refusal widened) is held to its own, and changes nothing.
    asked = redisMicros();
    wait = claim(b, "fair.example", 30 * SECOND);
    answered = redisMicros();
    assertLeftUntil(wait, last + 30_000_000, asked, answered);
    asked = answered;
    wait = claim(a, "fair.example", 60 * SECOND);
    answered = redisMicros();
    assertLeftUntil(wait, last + 60_000_000, asked, answered);
    assertThat(redis().get(names.shortest("fair.example"))).isEqualTo("30000000");

    // Once the shortest is no longer claimed it expires (deleted here, as its expiry would), and a
    // claim is held to its own interval again.
    redis().del(names.shortest("fair.example"));
    asked = redisMicros();
    wait = claim(b, "fair.example", 63 * SECOND);
    answered = redisMicros();
    assertLeftUntil(wait, last + 63_000_000, asked, answered);
    assertThat(redis().get(names.last("fair.example"))).as("no claim granted but a's").isEqualTo(Long.toString(last));
    assertThat(redis().get(names.shortest("fair.example"))).isEqualTo("63000000");
    assertThat(a.claimsUnclaimed() + b.claimsUnclaimed()).isZero();
  }

  @Test
  void S2_claimsOfDifferentKeysOrFleetsDoNotSpaceEachOther() throws Exception {
    RedisFleet a = process();
    RedisFleet other = process(fleetName + "-other");

    assertThat(claim(a, "query.wikidata.org", 60 * SECOND)).isZero();
    assertThat(claim(a, "*.wikidata.org", 60 * SECOND)).isZero();
    assertThat(claim(a, "qlever.dev", 60 * SECOND)).isZero();
    assertThat(claim(other, "query.wikidata.org", 60 * SECOND)).isZero();
    long last = Long.parseLong(redis().get(new RedisKeys(fleetName).last("query.wikidata.org")));
    long before = redisMicros();
    long wait = claim(a, "query.wikidata.org", 60 * SECOND);
    assertLeftUntil(wait, last + 60_000_000, before, redisMicros());
  }

  @Test
  void S2_aClaimOfAHostAndItsGroupIsGrantedForBothOrForNeither() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    RedisKeys names = new RedisKeys(fleetName);

    CompletableFuture<Long> first = new CompletableFuture<>();
    a.claimStart(List.of("*.wikidata.org", "query.wikidata.org"), new long[] {60 * SECOND, 30 * SECOND}, first::complete);
    assertThat(first.get(WAIT_SECONDS, TimeUnit.SECONDS)).isZero();
    assertThat(redis().get(names.last("*.wikidata.org"))).isNotNull();
    assertThat(redis().get(names.last("query.wikidata.org"))).isNotNull();

    // Another host of the group: its own key is free, the group's is not: nothing is recorded.
    long groupLast = Long.parseLong(redis().get(names.last("*.wikidata.org")));
    long before = redisMicros();
    CompletableFuture<Long> second = new CompletableFuture<>();
    b.claimStart(List.of("*.wikidata.org", "www.wikidata.org"), new long[] {60 * SECOND, SECOND}, second::complete);
    long groupWait = second.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertLeftUntil(groupWait, groupLast + 60_000_000, before, redisMicros()); // the group's wait, the longest
    assertThat(redis().get(names.last("www.wikidata.org"))).as("not granted: not recorded").isNull();
    assertThat(claim(b, "www.wikidata.org", SECOND)).isZero();

    assertThatThrownBy(() -> a.claimStart(List.of("x.test"), new long[0], delay -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("an interval for each");
    assertThatThrownBy(() -> a.claimStart(List.of(), new long[0], delay -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs keys");
  }

  @Test
  void S2_aClaimedKeyExpiresOnceItCanNoLongerHoldAStartBack() throws Exception {
    RedisFleet a = process();
    RedisKeys names = new RedisKeys(fleetName);

    long before = redisMicros();
    claim(a, "tiny.example", 1000); // 1 µs apart: the key matters for a microsecond
    long left = redis().pttl(names.last("tiny.example"));
    assertPttl(left, 1 + ClaimScript.MARGIN_MILLIS, before, redisMicros());

    before = redisMicros();
    claim(a, "slow.example", 10 * SECOND); // granted: holds claims back for 10 s
    claim(a, "slow.example", 10 * SECOND); // not granted: changes nothing
    left = redis().pttl(names.last("slow.example"));
    assertPttl(left, 10_000 + ClaimScript.MARGIN_MILLIS, before, redisMicros());
    assertThat(redis().get(names.last("slow.example"))).as("microseconds of Redis's clock").matches("[0-9]{16,}");
  }

  @Test
  void S2_aClaimAfterRedisForgotTheScriptSendsItAgain() throws Exception {
    RedisFleet a = process();
    assertThat(claim(a, "example.org", 10 * SECOND)).isZero();
    long last = Long.parseLong(redis().get(new RedisKeys(fleetName).last("example.org")));

    redis().scriptFlush(); // EVALSHA now answers NOSCRIPT, and the fleet falls back to EVAL

    long before = redisMicros();
    long wait = claim(a, "example.org", 10 * SECOND);
    assertLeftUntil(wait, last + 10_000_000, before, redisMicros());
    assertThat(a.claimsUnclaimed()).isZero();
  }

  @Test
  void S2_aClaimIsAnsweredOnAnotherThreadOnceItHasBeenAsked() throws Exception {
    RedisFleet a = process();
    assertAnsweredOnceOnAnotherThread(a, then -> a.claimStart("example.org", SECOND, then));
  }

  @Test
  void S2_aClosedFleetLosesLessonsAndAnswersClaimsUnclaimedAndClosesOnce() throws Exception {
    RedisFleet a = process();
    a.close();
    a.close();

    a.tell(new Lesson("example.org", false, -1, 0, 0));
    assertThat(a.lessonsLost()).isEqualTo(1);
    assertThat(claim(a, "example.org", SECOND)).isEqualTo(Fleet.UNCLAIMED);
    assertThat(a.claimsUnclaimed()).isEqualTo(1);
    assertThat(a.toString()).contains(fleetName, "closed");
  }

  @Test
  void S2_aFleetOfAGivenClientLeavesTheClientOpen() throws Exception {
    RedisClient client = RedisClient.create(server.uri());
    try {
      RedisFleet a = RedisFleet.of(client, fleetName);
      RedisFleet b = process();
      BlockingQueue<Lesson> heard = new LinkedBlockingQueue<>();
      b.listen(heard::add);
      Lesson lesson = new Lesson("example.org", true, 3 * SECOND, 10 * MILLI, 2);
      a.tell(lesson);
      assertThat(next(heard)).isEqualTo(lesson);
      assertThat(claim(a, "example.org", SECOND)).isZero();

      a.close();
      try (StatefulRedisConnection<String, String> stillOpen = client.connect()) {
        assertThat(stillOpen.sync().ping()).isEqualTo("PONG");
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void S2_aKeyNoEngineWritesIsRefusedByEveryCallNamingItOnOneLine() {
    RedisFleet a = process();
    for (String key : new String[] {" ", "a\nb", "*.test", "Example.org", "example.org:443", "a\u001b[2Jb"}) {
      List<ThrowingCallable> calls = List.of(
          () -> a.claimStart(key, SECOND, delay -> {}),
          () -> a.claimStart(List.of("example.org", key), new long[] {SECOND, SECOND}, delay -> {}),
          () -> a.claimPlace(key, 1, 1, 0, held -> {}),
          () -> a.claimPlace(key + "/quota", 1, 1, SECOND, held -> {}),
          () -> a.releasePlace(key, 1),
          () -> a.keep(key, Fleet.Kept.NOTHING, SECOND),
          () -> a.recall(key, kept -> {}),
          () -> a.announce(key, 1, SECOND, 0, 0, 0),
          () -> a.spendAnnounced(key, spent -> {}));
      for (ThrowingCallable call : calls) {
        assertThatThrownBy(call).as(Redaction.printable(key))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'" + Redaction.printable(key) + "'")
            .matches(e -> e.getMessage().chars().noneMatch(c -> c < 0x20), "on one line");
      }
    }
    for (ThrowingCallable call : List.<ThrowingCallable>of(
        () -> a.announce("*.example.org", 1, SECOND, 0, 0, 0),
        () -> a.spendAnnounced("*.example.org", spent -> {}))) {
      assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'*.example.org' is a group's: expected a host's key");
    }
    assertThat(a.claimsUnclaimed() + a.keepsLost() + a.releasesLost() + a.recallsUnanswered()).as("nothing sent").isZero();
  }
}

package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.spi.Fleet.Spent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** SPEC R8 and S3 on a real Redis: the starts a host announced are spent by the fleet together. */
class RedisFleetAnnouncedTest extends OnRealRedis {

  static final long SECOND = 1_000_000_000L;
  static final long MINUTE_MICROS = 60_000_000L;

  static Spent spend(RedisFleet fleet, String key) throws Exception {
    CompletableFuture<Spent> answer = new CompletableFuture<>();
    fleet.spendAnnounced(key, answer::complete);
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** Announces through {@code fleet} and waits until Redis ran it (one connection keeps its order). */
  static void announce(RedisFleet fleet, String key, long remaining, long resetNanos, long spentBefore) throws Exception {
    fleet.announce(key, remaining, resetNanos, spentBefore, 0, 0);
    RedisFleetKeptTest.recall(fleet, "flush.test");
  }

  String hash(String key) {
    return new RedisKeys(fleetName).announced(key);
  }

  @Test
  void S3_R8_announcementsLessTheSpendsAfterTheirAttemptAreWhatTheFleetHasLeft() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    announce(a, "api.test", 9, 60 * SECOND, 0); // of unknown order
    announce(b, "api.test", 8, 60 * SECOND, 0); // lowers it
    assertThat(spend(a, "api.test")).isEqualTo(new Spent(1, 0));
    assertThat(spend(b, "api.test")).isEqualTo(new Spent(2, 0));
    assertThat(redis().hget(hash("api.test"), "left")).isEqualTo("6");

    announce(a, "api.test", 7, 60 * SECOND, 1); // the attempt of spend 1: 7 less the one spend after it
    assertThat(spend(b, "api.test")).isEqualTo(new Spent(3, 0));
    assertThat(redis().hget(hash("api.test"), "left")).isEqualTo("5");
    announce(b, "api.test", 9, 60 * SECOND, 0); // a word of unknown order never raises it
    announce(b, "api.test", 5, 60 * SECOND, 3); // the attempt of spend 3, which the host counted
    long before = redisMicros();
    announce(a, "api.test", 9, 60 * SECOND, 2); // an older attempt's word never raises it either
    long announced = redisMicros();
    long reset = Long.parseLong(redis().hget(hash("api.test"), "reset"));
    assertThat(reset).as("60 s after the last announcement, on Redis's clock").isBetween(before + 60_000_000, announced + 60_000_000);
    assertThat(redis().hget(hash("api.test"), "left")).isEqualTo("5");
    for (int i = 0; i < 5; i++) {
      assertThat(spend(i % 2 == 0 ? a : b, "api.test").granted()).isTrue();
    }
    long asked = redisMicros();
    Spent none = spend(a, "api.test");
    long left = redis().pttl(hash("api.test"));
    long after = redisMicros();
    assertThat(none.granted()).isFalse();
    assertThat(none.number()).isEqualTo(8);
    assertLeftUntil(none.waitNanos(), reset, asked, after);
    assertPttl(left, 60_000 + AnnouncedScripts.KEPT_MILLIS, before, after); // an hour past the reset

    redis().hset(hash("api.test"), "reset", "1"); // past the reset: the next answers will say anew
    assertThat(spend(b, "api.test")).isEqualTo(new Spent(9, 0));
  }

  @Test
  void S3_R8_pastItsResetAnAnnouncementOfItsStartsAWindowRollsIntoTheNextWithAllOfThem() throws Exception {
    RedisFleet a = process();
    RedisFleet b = process();
    a.announce("api.test", 0, 60 * SECOND, 0, 10, MINUTE_MICROS * 1000); // 0 of 10 a window of a minute
    announce(a, "flush2.test", 0, SECOND, 0);
    assertThat(spend(b, "api.test").granted()).isFalse();

    // Past the reset by a hundred windows and a microsecond of Redis's clock: the window of now,
    // all 10 of it; windows follow one another whole from the reset, so it ends a window ahead.
    long now = redisMicros();
    redis().hset(hash("api.test"), "reset", Long.toString(now - 1 - 100 * MINUTE_MICROS));
    assertThat(spend(b, "api.test")).isEqualTo(new Spent(1, 0));
    assertThat(redis().hget(hash("api.test"), "reset")).isEqualTo(Long.toString(now - 1 + MINUTE_MICROS));
    assertThat(redis().hget(hash("api.test"), "left")).isEqualTo("9");
    assertThat(redis().hget(hash("api.test"), "rolled")).isEqualTo("0");
    announce(a, "api.test", 0, SECOND, 0); // of unknown order: only lowers
    assertThat(redis().hget(hash("api.test"), "left")).isEqualTo("0");

    redis().hset(hash("api.test"), "reset", Long.toString(redisMicros() - 1)); // just past: the next window ends a window ahead
    assertThat(spend(a, "api.test")).isEqualTo(new Spent(2, 0)); // rolled again at spend 1
    announce(b, "api.test", 0, 30 * SECOND, 1); // the attempt of spend 1, started before the roll: of the window that ended
    assertThat(redis().hget(hash("api.test"), "left")).isEqualTo("9");
    long before = redisMicros();
    announce(b, "api.test", 4, 30 * SECOND, 2); // the attempt of spend 2 stands
    long announced = redisMicros();
    assertThat(redis().hget(hash("api.test"), "left")).isEqualTo("4");
    long reset = Long.parseLong(redis().hget(hash("api.test"), "reset"));
    assertThat(reset).as("30 s after the announcement, on Redis's clock").isBetween(before + 30_000_000, announced + 30_000_000);
    for (int i = 0; i < 4; i++) {
      assertThat(spend(i % 2 == 0 ? a : b, "api.test").granted()).isTrue();
    }
    long asked = redisMicros();
    Spent none = spend(a, "api.test");
    assertThat(none.granted()).isFalse();
    assertLeftUntil(none.waitNanos(), reset, asked, redisMicros());
  }

  @Test
  void S3_R8_aSpendWithNothingAnnouncedIsGrantedAndCountedAndItsHashExpires() throws Exception {
    RedisFleet a = process();
    long before = redisMicros();
    assertThat(spend(a, "quiet.test")).isEqualTo(new Spent(1, 0));
    assertThat(spend(a, "quiet.test")).isEqualTo(new Spent(2, 0));
    long left = redis().pttl(hash("quiet.test"));
    assertPttl(left, AnnouncedScripts.KEPT_MILLIS, before, redisMicros()); // an hour from the first spend, which made it
  }

  @Test
  void S3_R8_aSpendOfAClosedFleetIsUnclaimedOnceOnAnotherThreadAndBadArgumentsAreNamed() throws Exception {
    RedisFleet closed = process();
    closed.close();
    CompletableFuture<Thread> on = new CompletableFuture<>();
    CompletableFuture<Spent> answer = new CompletableFuture<>();
    closed.spendAnnounced("api.test", spent -> {
      on.complete(Thread.currentThread());
      answer.complete(spent);
    });
    assertThat(answer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(Spent.UNCLAIMED);
    assertThat(on.get(WAIT_SECONDS, TimeUnit.SECONDS)).isNotSameAs(Thread.currentThread());
    assertThat(closed.claimsUnclaimed()).isEqualTo(1);

    RedisFleet a = process();
    assertThatThrownBy(() -> a.announce("", 1, SECOND, 0, 0, 0)).hasMessageContaining("host's key");
    assertThatThrownBy(() -> a.announce("api.test", -1, SECOND, 0, 0, 0)).hasMessageContaining("never negative");
    assertThatThrownBy(() -> a.spendAnnounced("", spent -> {})).hasMessageContaining("host's key");
  }
}

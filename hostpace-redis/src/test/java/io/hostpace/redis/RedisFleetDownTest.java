package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.spi.Fleet;
import io.hostpace.spi.Fleet.Lesson;
import io.hostpace.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A fleet whose Redis stopped: each test has a server of its own, and stops it. The engine must
 * then pace by its own reckoning, so every claim, of a start or of a place, answers
 * {@link Fleet#UNCLAIMED}, and telling and releasing throw nothing.
 */
class RedisFleetDownTest {

  static final long SECOND = 1_000_000_000L;
  static final long WAIT_SECONDS = 60; // a guard against a hang: the fleet's own timeout is 1 s

  RedisServer server;

  @BeforeEach
  void startRedis() throws Exception {
    server = RedisServer.start();
  }

  @AfterEach
  void stopRedis() throws Exception {
    server.close();
  }

  /** What a claim answered, how often, and on which thread. */
  static final class Answer {
    final CompletableFuture<Long> delay = new CompletableFuture<>();
    final AtomicInteger count = new AtomicInteger();
    volatile Thread thread;

    void accept(long value) {
      count.incrementAndGet();
      thread = Thread.currentThread();
      delay.complete(value);
    }
  }

  void claimsAnswerUnclaimedAndTellingAndReleasingThrowNothingWhenRedisStops(RedisFleet fleet) throws Exception {
    Answer down = new Answer();
    Answer placeDown = new Answer();
    try {
      Answer before = new Answer();
      fleet.claimStart("example.org", SECOND, before::accept);
      assertThat(before.delay.get(WAIT_SECONDS, TimeUnit.SECONDS)).isZero();
      Answer placeBefore = new Answer();
      fleet.claimPlace("example.org", 1, 2, 0, placeBefore::accept);
      assertThat(placeBefore.delay.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);

      server.close();

      fleet.claimStart("example.org", SECOND, down::accept);
      fleet.claimPlace("example.org", 2, 2, 0, placeDown::accept);
      fleet.tell(new Lesson("example.org", true, -1, 1_000_000, 2));
      fleet.releasePlace("example.org", 1);
      assertThat(down.delay.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(Fleet.UNCLAIMED);
      assertThat(down.thread).isNotSameAs(Thread.currentThread());
      assertThat(placeDown.delay.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(Fleet.UNCLAIMED);
      assertThat(placeDown.thread).isNotSameAs(Thread.currentThread());
      assertThat(fleet.claimsUnclaimed()).isEqualTo(2);
    } finally {
      fleet.close();
    }
    assertThat(down.count).hasValue(1);
    assertThat(placeDown.count).hasValue(1);
  }

  @Test
  void S2_aFleetThatConnectedItselfAnswersUnclaimedWhileRedisIsDown() throws Exception {
    // Its client rejects commands while disconnected: the claim fails at once, and hops to another thread.
    claimsAnswerUnclaimedAndTellingAndReleasingThrowNothingWhenRedisStops(RedisFleet.connect(server.uri(), "down"));
  }

  @Test
  void S2_aFleetOfAClientWithLettucesDefaultsAnswersUnclaimedWhenItsClaimTimesOut() throws Exception {
    // Lettuce's default client keeps commands for the reconnection: the claim times out after 1 s.
    RedisClient client = RedisClient.create(server.uri());
    try {
      claimsAnswerUnclaimedAndTellingAndReleasingThrowNothingWhenRedisStops(RedisFleet.of(client, "down"));
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void S2_aFleetThatCannotReachRedisIsNotBuilt() throws Exception {
    String uri = server.uri();
    server.close();

    assertThatThrownBy(() -> RedisFleet.connect(uri, "down")).isInstanceOf(RedisConnectionException.class);
  }

  @Test
  void L2_aRedisThatStopsIsOneWarningPerKindOfCommandWithItsExceptionNotOnePerCommand() throws Exception {
    Logger jul = Logger.getLogger(RedisFleet.class.getName()); // the default System.LoggerFinder's
    List<LogRecord> warned = new CopyOnWriteArrayList<>();
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        warned.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    jul.addHandler(handler);
    jul.setUseParentHandlers(false);
    RedisFleet fleet = RedisFleet.connect(server.uri(), "down");
    try {
      server.close();
      int each = 500;
      Answer last = new Answer();
      for (int i = 0; i < each; i++) {
        fleet.claimStart("example.org", SECOND, i == each - 1 ? last::accept : delay -> {});
        fleet.tell(new Lesson("example.org", true, -1, 1_000_000, 2));
        fleet.releasePlace("example.org", i);
      }
      assertThat(last.delay.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(Fleet.UNCLAIMED);
      long deadline = System.nanoTime() + WAIT_SECONDS * SECOND;
      while ((fleet.claimsUnclaimed() < each || fleet.lessonsLost() < each || fleet.releasesLost() < each)
          && System.nanoTime() < deadline) {
        Thread.sleep(10); // the test waits for Redis's answers; no time is asserted
      }
      assertThat(fleet.claimsUnclaimed()).isEqualTo(each);

      assertThat(warned).allSatisfy(record -> {
        assertThat(record.getLevel()).isEqualTo(Level.WARNING);
        assertThat(record.getThrown()).isNotNull();
      });
      // One warning per kind of command: the claims', the lessons' and the releases' (500 of each),
      // and the heartbeat's renewal when it beat while Redis was down (a lease's third apart).
      java.util.Map<String, Long> byKind = warned.stream().collect(java.util.stream.Collectors.groupingBy(
          record -> record.getMessage().replaceFirst("^fleet 'down': an? (\\w+) failed on Redis.*$", "$1"),
          java.util.stream.Collectors.counting()));
      assertThat(byKind).containsEntry("claim", 1L).containsEntry("lesson", 1L).containsEntry("release", 1L);
      assertThat(byKind.keySet()).isSubsetOf("claim", "lesson", "release", "renewal");
      assertThat(byKind.values()).allMatch(count -> count == 1);
    } finally {
      int before = warned.size();
      fleet.close();
      jul.removeHandler(handler);
      jul.setUseParentHandlers(true);
      assertThat(warned).as("closing says nothing of what it loses").hasSize(before);
    }
  }
}

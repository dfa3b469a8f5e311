package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * Tests of processes of a fleet as {@link RedisFleet}s on one real Redis, started for the test
 * class: each test's fleets have a name of their own and are closed after it, and a plain
 * connection looks at what they left in Redis.
 */
abstract class OnRealRedis {

  static final long WAIT_SECONDS = 60; // a guard against a hang, for an answer that should come within milliseconds

  static RedisServer server;
  static RedisClient plainClient;
  static StatefulRedisConnection<String, String> plain;

  final List<RedisFleet> fleets = new ArrayList<>();
  final String fleetName = getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + "-"
      + Long.toHexString(System.nanoTime());

  @BeforeAll
  static void startRedis() throws Exception {
    server = RedisServer.start();
    plainClient = RedisClient.create(server.uri());
    plain = plainClient.connect();
  }

  @AfterAll
  static void stopRedis() {
    if (plainClient != null) {
      plainClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void closeFleets() {
    fleets.forEach(RedisFleet::close);
  }

  /** A process of the fleet {@code name}, closed after the test. */
  RedisFleet process(String name) {
    RedisFleet fleet = RedisFleet.connect(server.uri(), name);
    fleets.add(fleet);
    return fleet;
  }

  /** A process of this test's fleet. */
  RedisFleet process() {
    return process(fleetName);
  }

  RedisCommands<String, String> redis() {
    return plain.sync();
  }

  /** Redis's clock ({@code TIME}) as {@code redis} reads it, in microseconds: the {@code now} of the fleet's scripts. */
  static long redisMicros(RedisCommands<String, String> redis) {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
  }

  /** Redis's clock, in microseconds. */
  long redisMicros() {
    return redisMicros(redis());
  }

  /**
   * Asserts that {@code nanos} is what was left until {@code untilMicros} of Redis's clock (none
   * once past) when a script read that clock, at an instant between the readings {@code before}
   * and {@code after} (taken before it was asked and after it answered): exact on Redis's clock,
   * however long the test's thread paused between the readings.
   */
  static void assertLeftUntil(long nanos, long untilMicros, long before, long after) {
    assertThat(nanos).as("nanoseconds left until %d µs of Redis's clock, read between %d and %d", untilMicros, before, after)
        .isBetween(Math.max(0, untilMicros - after) * 1000, Math.max(0, untilMicros - before) * 1000);
  }

  /**
   * Asserts that {@code pttl} is what is left of a TTL of {@code ttlMillis} set after Redis's clock
   * read {@code before} and read before it read {@code after} (microseconds). Redis keeps an expiry
   * in whole milliseconds of its clock, so what passed between the write and the read is at most
   * {@code after / 1000 - before / 1000}; a key gone ({@code -2}) is right only if more than its TTL
   * passed.
   */
  static void assertPttl(long pttl, long ttlMillis, long before, long after) {
    long passed = after / 1000 - before / 1000;
    if (pttl == -2 && passed > ttlMillis) {
      return;
    }
    assertThat(pttl).as("ms left of a TTL of %d ms, set and read between %d and %d µs of Redis's clock", ttlMillis, before, after)
        .isBetween(ttlMillis - passed, ttlMillis);
  }

  /**
   * Asks a claim through {@code ask} (given where to answer) and checks that its answer came once,
   * on another thread than the asking one, and that closing the fleet answers nothing more.
   */
  static void assertAnsweredOnceOnAnotherThread(RedisFleet fleet, Consumer<LongConsumer> ask)
      throws Exception {
    CompletableFuture<Thread> answeredOn = new CompletableFuture<>();
    AtomicInteger answers = new AtomicInteger();
    ask.accept(answer -> {
      answers.incrementAndGet();
      answeredOn.complete(Thread.currentThread());
    });
    assertThat(answeredOn.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .isNotSameAs(Thread.currentThread());
    fleet.close(); // nothing answers after the fleet is closed
    assertThat(answers).hasValue(1);
  }
}

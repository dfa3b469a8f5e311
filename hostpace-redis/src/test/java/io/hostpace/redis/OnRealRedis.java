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

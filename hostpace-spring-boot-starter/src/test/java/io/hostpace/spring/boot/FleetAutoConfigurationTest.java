package io.hostpace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.redis.RedisFleet;
import io.hostpace.redis.testing.RedisServer;
import io.hostpace.spi.Fleet;
import io.hostpace.testing.ScriptedExchange;
import io.hostpace.testkit.ClosedPorts;
import io.lettuce.core.RedisClient;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The fleet of {@code hostpace.fleet} (SPEC S2): joined on a real Redis the test starts on
 * 127.0.0.1, given to the engine, and left when the context closes; a Redis that cannot be
 * reached fails the context naming the property and the URI.
 */
class FleetAutoConfigurationTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(HostpaceAutoConfiguration.class));

  @Test
  void I6_S2_theEngineJoinsTheNamedFleetAndLeavesItWithTheContext() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      RedisFleet[] joined = new RedisFleet[1];
      runner.withPropertyValues("hostpace.fleet=crawlers", "hostpace.redis=" + redis.uri())
          .run(context -> {
            assertThat(context).hasSingleBean(RedisFleet.class).hasSingleBean(Hostpace.class);
            joined[0] = context.getBean(RedisFleet.class);
            assertThat(joined[0].toString()).contains("crawlers");
            // Another process of the fleet hears the refusal this engine was answered with.
            try (RedisFleet other = RedisFleet.connect(redis.uri(), "crawlers")) {
              BlockingQueue<Fleet.Lesson> heard = new LinkedBlockingQueue<>();
              other.listen(heard::add);
              context.getBean(Hostpace.class).execute(ScriptedExchange.builder(URI.create("http://a.test/"),
                      (Integer status) -> status)
                  .headers((status, name) -> name.equalsIgnoreCase("Retry-After") ? "30" : null)
                  .answers(attempt -> CompletableFuture.completedFuture(429))
                  .build());
              Fleet.Lesson lesson = heard.poll(10, TimeUnit.SECONDS);
              assertThat(lesson).isNotNull();
              assertThat(lesson.key()).isEqualTo("a.test");
              assertThat(lesson.refused()).isTrue();
            }
          });
      assertThat(joined[0].toString()).contains("closed");
    }
  }

  /**
   * SPEC S4: hostpace.fleet-lease is the lease of the places the fleet's bean claims, seconds
   * without a unit: a place claimed ends 30 s from Redis's look, where the fleet's own lease
   * would end it within 10 s.
   */
  @ParameterizedTest
  @ValueSource(strings = {"30", "30s", "PT30S"})
  void I6_S4_hostpaceFleetLeaseIsTheLeaseOfTheFleetsPlaces(String lease) throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      runner.withPropertyValues("hostpace.fleet=crawlers", "hostpace.redis=" + redis.uri(), "hostpace.fleet-lease=" + lease)
          .run(context -> {
            assertThat(context.getBean(HostpaceProperties.class).getFleetLease()).isEqualTo(Duration.ofSeconds(30));
            CompletableFuture<Long> held = new CompletableFuture<>();
            context.getBean(RedisFleet.class).claimPlace("a.test", 1, 1, 0, held::complete);
            assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            RedisClient client = RedisClient.create(redis.uri());
            try (var connection = client.connect()) {
              double ends = connection.sync().zrangeWithScores("hostpace:crawlers:places:{a.test}:a.test", 0, -1)
                  .get(0).getScore();
              List<String> time = connection.sync().time();
              long now = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
              assertThat((long) ends - now).as("what is left of the place's lease, in microseconds")
                  .isBetween(20_000_000L, 30_000_000L);
            } finally {
              client.shutdown();
            }
          });
    }
  }

  @Test
  void I6_S4_aFleetLeaseOutOfBoundsFailsNamingTheProperty() {
    runner.withPropertyValues("hostpace.fleet=crawlers", "hostpace.redis=redis://127.0.0.1:1", "hostpace.fleet-lease=500ms")
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable cause = context.getStartupFailure();
          while (!(cause instanceof HostpacePropertyException) && cause.getCause() != null) {
            cause = cause.getCause();
          }
          assertThat(cause.getMessage()).isEqualTo("hostpace.fleet-lease must be 1s to a day, got PT0.5S");
        });
    runner.withPropertyValues("hostpace.fleet-lease=30s")
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable cause = context.getStartupFailure();
          while (!(cause instanceof HostpacePropertyException) && cause.getCause() != null) {
            cause = cause.getCause();
          }
          assertThat(cause.getMessage()).isEqualTo("hostpace.fleet-lease needs hostpace.fleet: the fleet whose places it leases");
        });
  }

  @Test
  void I6_S2_aRedisThatCannotBeReachedFailsNamingThePropertyAndTheUri() throws Exception {
    int port = ClosedPorts.next();
    String uri = "redis://secret@127.0.0.1:" + port;
    runner.withPropertyValues("hostpace.fleet=crawlers", "hostpace.redis=" + uri)
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable cause = context.getStartupFailure();
          while (!(cause instanceof HostpacePropertyException) && cause.getCause() != null) {
            cause = cause.getCause();
          }
          assertThat(cause.getMessage())
              .startsWith("hostpace.redis 'redis://***@127.0.0.1:" + port + "' cannot be reached: ")
              .doesNotContain("secret");
        });
  }
}

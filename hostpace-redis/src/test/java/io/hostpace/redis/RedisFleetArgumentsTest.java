package io.hostpace.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link RedisFleet}'s factories refuse, and how they say so; no Redis is reached. */
class RedisFleetArgumentsTest {

  @Test
  void S2_aBlankFleetNameIsRefused() {
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fleet name ' ' is blank: expected a name like 'crawlers' of letters, digits, '.', '_' or '-'");
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("fleet name '' is blank");
  }

  @Test
  void S2_aFleetNameWithACharacterThatWouldBreakKeyNamesIsRefused() {
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", "crawlers:next"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fleet name 'crawlers:next' has ':' at index 8, which would break its Redis key names:"
            + " expected letters, digits, '.', '_' or '-'");
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", "crawl ers"))
        .hasMessageStartingWith("fleet name 'crawl ers' has U+0020 at index 5");
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", "crawl*"))
        .hasMessageStartingWith("fleet name 'crawl*' has '*' at index 5");
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", "{crawlers}"))
        .hasMessageStartingWith("fleet name '{crawlers}' has '{' at index 0");
  }

  @Test
  void S2_aFleetNameLongerThan64CharactersIsRefused() {
    String name = "c".repeat(65);
    assertThat(RedisFleet.checkName("c".repeat(64))).hasSize(64);
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fleet name '" + name + "' is 65 characters long: expected at most 64");
  }

  @Test
  void S2_aFleetNameOfLettersDigitsDotsUnderscoresAndDashesIsTaken() {
    assertThat(RedisFleet.checkName("Crawlers_2.eu-west")).isEqualTo("Crawlers_2.eu-west");
  }

  @Test
  void S2_aUriThatIsNotARedisUriIsRefusedWithoutRepeatingItsPassword() {
    assertThatThrownBy(() -> RedisFleet.connect("", "crawlers"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis URI '' is blank: expected one like redis://127.0.0.1:6379");
    assertThatThrownBy(() -> RedisFleet.connect("http://:secret@127.0.0.1:6379", "crawlers"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("redis URI 'http://***@127.0.0.1:6379' is not a Redis URI: expected one like redis://127.0.0.1:6379 (")
        .message().doesNotContain("secret");
    assertThatThrownBy(() -> RedisFleet.connect("redis://bad host:6379", "crawlers"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("redis URI 'redis://bad host:6379' is not a Redis URI");
  }

  @Test
  void S4_aPlaceLeaseShorterThanASecondOrLongerThanADayIsRefused() {
    assertThatThrownBy(() -> RedisFleet.leaseMicros(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("place lease must be at least a second (PT1S), was PT0S");
    assertThatThrownBy(() -> RedisFleet.leaseMicros(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("place lease must be at least a second (PT1S), was PT-0.001S");
    assertThatThrownBy(() -> RedisFleet.leaseMicros(Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("place lease must be at least a second (PT1S), was PT0.999S");
    assertThatThrownBy(() -> RedisFleet.leaseMicros(Duration.ofDays(1).plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("place lease must be at most a day (PT24H), was PT24H0.000000001S");
    assertThatThrownBy(() -> RedisFleet.leaseMicros(null)).hasMessage("lease");
  }

  @Test
  void S4_aPlaceLeaseIsTakenInWholeMicrosecondsRoundedUpFromASecondToADay() {
    assertThat(RedisFleet.leaseMicros(Duration.ofSeconds(1))).isEqualTo(1_000_000);
    assertThat(RedisFleet.leaseMicros(Duration.ofSeconds(1).plusNanos(1))).isEqualTo(1_000_001);
    assertThat(RedisFleet.leaseMicros(RedisFleet.DEFAULT_PLACE_LEASE)).as("the default, 10 s").isEqualTo(10_000_000L);
    assertThat(RedisFleet.leaseMicros(Duration.ofDays(1))).isEqualTo(86_400_000_000L);
  }

  @Test
  void S2_nullsAreRefusedByName() {
    assertThatThrownBy(() -> RedisFleet.connect(null, "crawlers")).hasMessage("redisUri");
    assertThatThrownBy(() -> RedisFleet.connect("redis://127.0.0.1:6379", null)).hasMessage("fleetName");
    assertThatThrownBy(() -> RedisFleet.of((RedisClient) null, "crawlers")).hasMessage("client");
    RedisClient client = RedisClient.create();
    try {
      assertThatThrownBy(() -> RedisFleet.of(client, "a:b"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("fleet name 'a:b' has ':'");
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** Lettuce parses a Unix socket's URI, but connects to it only with a native transport this module does not ship. */
  @Test
  void S2_aUnixSocketsUriIsRefusedSayingToUseAHostAndPort() {
    for (String uri : List.of("redis-socket:///var/run/redis.sock", "redis+socket://:secret@/var/run/redis.sock?database=2")) {
      assertThatThrownBy(() -> RedisFleet.connect(uri, "crawlers"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("redis URI '" + uri.replace(":secret@", "***@") + "' is a Unix socket's")
          .hasMessageContaining("Unix sockets are not supported")
          .hasMessageEndingWith("use redis://HOST:PORT")
          .hasMessageNotContaining("secret");
      assertThatThrownBy(() -> RedisFleet.connectCluster(List.of(uri), "crawlers"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("redis URI '" + uri.replace(":secret@", "***@") + "' is a Unix socket's");
    }
  }

  @Test
  void S5_aClusterNeedsSeedsEachARedisUriNotASentinels() {
    assertThatThrownBy(() -> RedisFleet.connectCluster(List.of(), "crawlers"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no seed URIs for the Redis Cluster: expected one or more like redis://127.0.0.1:7000");
    assertThatThrownBy(() -> RedisFleet.connectCluster(List.of("redis://127.0.0.1:7000", "http://:secret@127.0.0.1:7001"), "crawlers"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("redis URI 'http://***@127.0.0.1:7001' is not a Redis URI")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> RedisFleet.connectCluster(List.of("redis-sentinel://:secret@127.0.0.1:26379#mymaster"), "crawlers"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("redis URI 'redis-sentinel://***@127.0.0.1:26379#mymaster' is a Sentinel's")
        .hasMessageNotContaining("secret");
    assertThatThrownBy(() -> RedisFleet.connectCluster(List.of("redis://127.0.0.1:7000"), "crawlers:next"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("fleet name 'crawlers:next' has ':'");
  }

  @Test
  void S5_nullsAreRefusedByNameForAClusterToo() {
    assertThatThrownBy(() -> RedisFleet.connectCluster(null, "crawlers")).hasMessage("seedUris");
    assertThatThrownBy(() -> RedisFleet.connectCluster(java.util.Arrays.asList("redis://127.0.0.1:7000", null), "crawlers"))
        .hasMessage("seed URI");
    assertThatThrownBy(() -> RedisFleet.connectCluster(List.of("redis://127.0.0.1:7000"), null)).hasMessage("fleetName");
    assertThatThrownBy(() -> RedisFleet.of((RedisClusterClient) null, "crawlers")).hasMessage("client");
  }
}

package io.hostpace.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The tests of fleets need no Redis installed: the binary the embedded-redis jar ships starts and
 * answers, whether or not this machine has a {@code redis-server} of its own on PATH.
 */
class RedisBinaryTest {

  @Test
  void theBundledServerStartsAndAnswersWithoutAnyRedisInstalled() throws Exception {
    Path bundled = RedisBinary.bundled();
    assertThat(Files.isExecutable(bundled)).isTrue();
    try (RedisServer server = RedisServer.start(bundled.toString())) {
      RedisClient client = RedisClient.create(server.uri());
      try {
        String info = client.connect().sync().info("server");
        assertThat(info).contains("redis_version:6.2.");
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void theBundledBinaryIsCopiedOncePerJvm() throws Exception {
    assertThat(RedisBinary.bundled()).isEqualTo(RedisBinary.bundled());
  }

  @Test
  void eachMachineTheJarShipsForHasItsBinaryAndOthersHaveNone() {
    assertThat(RedisBinary.resourceFor("linux", "amd64")).isEqualTo("redis-server-6.2.6-v5-linux-amd64");
    assertThat(RedisBinary.resourceFor("linux", "aarch64")).isEqualTo("redis-server-6.2.7-linux-arm64");
    assertThat(RedisBinary.resourceFor("mac os x", "x86_64")).isEqualTo("redis-server-6.2.6-v5-darwin-amd64");
    assertThat(RedisBinary.resourceFor("mac os x", "aarch64")).isEqualTo("redis-server-6.2.6-v5-darwin-arm64");
    assertThat(RedisBinary.resourceFor("windows 11", "amd64")).isNull();
    assertThat(RedisBinary.resourceFor("linux", "riscv64")).isNull();
    for (String resource : new String[] {"redis-server-6.2.6-v5-linux-amd64", "redis-server-6.2.7-linux-arm64",
        "redis-server-6.2.6-v5-darwin-amd64", "redis-server-6.2.6-v5-darwin-arm64"}) {
      assertThat(RedisBinary.class.getClassLoader().getResource(resource)).as(resource).isNotNull();
    }
  }
}

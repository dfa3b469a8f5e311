package io.hostpace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The metadata IDEs complete the keys from: every property, with the switches' own descriptions. */
class ConfigurationMetadataTest {

  @Test
  void I6_everyPropertyIsInTheMetadata() throws IOException {
    String metadata = read("META-INF/spring-configuration-metadata.json");
    for (String key : new String[] {"hostpace.hosts", "hostpace.max-in-flight", "hostpace.max-rate",
        "hostpace.retries", "hostpace.retry-delay-limit", "hostpace.timeout-policy", "hostpace.timeout",
        "hostpace.user-agent", "hostpace.state", "hostpace.fleet", "hostpace.redis", "hostpace.redis-cluster",
        "hostpace.fleet-lease",
        "hostpace.rest-client.enabled", "hostpace.rest-template.enabled", "hostpace.web-client.enabled"}) {
      assertThat(metadata).as(key).contains("\"name\": \"" + key + "\"");
    }
    assertThat(metadata).contains("Whether every WebClient Boot builds sends through the engine.");
    assertThat(metadata).contains("\"name\": \"hostpace.hosts.values\"");
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = ConfigurationMetadataTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}

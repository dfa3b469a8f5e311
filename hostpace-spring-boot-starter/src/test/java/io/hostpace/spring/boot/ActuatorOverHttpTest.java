package io.hostpace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.VirtualTime;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code hostpace} Actuator endpoint as an application serves it (SPEC I6): a whole Boot
 * application, auto-configured, with an embedded web server on 127.0.0.1 and the endpoint exposed
 * as docs/spring-boot.md says, read over HTTP. Actuator finds each operation's parameters by their names,
 * so this is what fails to start when the starter is compiled without them.
 */
class ActuatorOverHttpTest {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  /** An application of nothing of its own: the auto-configuration does it all. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class Application {}

  @Test
  void I6_aRunningWebApplicationServesTheEndpointOverHttpWhenItIsExposed() throws Exception {
    VirtualTime time = VirtualTime.create();
    SpringApplication application = new SpringApplication(Application.class);
    // The engine's clock, virtual for the test, as an application's own customizer would set it.
    application.addInitializers(context -> context.getBeanFactory()
        .registerSingleton("virtualTime", (HostpaceBuilderCustomizer) builder -> builder.time(time)));
    application.setWebApplicationType(WebApplicationType.SERVLET);
    application.setDefaultProperties(Map.of(
        "server.address", "127.0.0.1",
        "server.port", "0",
        "management.endpoints.web.exposure.include", "health,hostpace",
        "spring.main.banner-mode", "off"));
    try (ConfigurableApplicationContext context = application.run()) {
      int port = ((WebServerApplicationContext) context).getWebServer().getPort();
      Hostpace engine = context.getBean(Hostpace.class);
      HostpaceAutoConfigurationTest.pausedForHalfAMinute(engine, time);

      HttpResponse<String> all = get(port, "/actuator/hostpace");
      assertThat(all.statusCode()).isEqualTo(200);
      JsonNode hosts = JsonMapper.builder().build().readTree(all.body()).get("hosts");
      assertThat(hosts.propertyNames()).containsExactly("a.test");
      assertIsTheRefusedHost(hosts.get("a.test"));

      HttpResponse<String> one = get(port, "/actuator/hostpace/a.test");
      assertThat(one.statusCode()).isEqualTo(200);
      JsonNode host = JsonMapper.builder().build().readTree(one.body());
      assertIsTheRefusedHost(host);
      assertThat(host).isEqualTo(hosts.get("a.test"));

      assertThat(get(port, "/actuator/hostpace/b.test").statusCode()).isEqualTo(404);
    }
  }

  /** The fields of a.test, refused once for 30 s at 0.05 s and seen at 1 s. */
  private static void assertIsTheRefusedHost(JsonNode host) {
    assertThat(host.propertyNames()).contains("group", "inFlight", "waiting", "pausedForMillis", "intervalMillis",
        "inFlightLimit", "starts", "refusals", "retries", "gaveUps");
    assertThat(host.path("quota").isNull() || host.path("quota").isMissingNode()).isTrue(); // none learned
    assertThat(host.get("group").asBoolean()).isFalse();
    assertThat(host.get("inFlight").asInt()).isZero();
    assertThat(host.get("waiting").asInt()).isEqualTo(1);
    assertThat(host.get("pausedForMillis").asDouble()).isEqualTo(29_050.0);
    assertThat(host.get("starts").asLong()).isEqualTo(1);
    assertThat(host.get("refusals").asLong()).isEqualTo(1);
    assertThat(host.get("retries").asLong()).isEqualTo(1);
    assertThat(host.get("gaveUps").asLong()).isZero();
  }

  private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

package io.hostpace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.HostpaceEvent;
import io.hostpace.testkit.Refusing;
import io.hostpace.testkit.TestServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

/**
 * Real calls of a {@code RestClient} and a {@code WebClient} that Boot's own builders made, to a
 * server on 127.0.0.1 that refuses the first request with a 429 and {@code Retry-After: 0}: the
 * engine retries it (SPEC T1) with the User-Agent the properties give (SPEC U1), so the caller
 * gets the second answer, not Spring's exception for a 429.
 */
class ClientsThroughEngineTest {

  @Test
  void I6_T1_U1_aBootBuiltRestClientSendsThroughTheEngine() throws Exception {
    Refusing refusing = Refusing.first(1, 429, "0");
    List<HostpaceEvent> heard = new CopyOnWriteArrayList<>();
    try (TestServer server = TestServer.start(refusing)) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(HostpaceAutoConfiguration.class, RestClientAutoConfiguration.class))
          .withPropertyValues("hostpace.user-agent=starter-test/1.0")
          .withBean("heard", HostpaceBuilderCustomizer.class, () -> builder -> builder.addListener(heard::add))
          .run(context -> {
            RestClient client = context.getBean(RestClient.Builder.class).build();

            String body = client.get().uri(server.uri("/answer")).retrieve().body(String.class);

            assertThat(body).isEqualTo("answer 2");
            assertThat(refusing.seen()).isEqualTo(2);
            assertThat(server.requests()).extracting(request -> request.header("User-Agent"))
                .containsExactly("starter-test/1.0", "starter-test/1.0");
            assertThat(heard).filteredOn(event -> event instanceof HostpaceEvent.Refused refused
                && refused.key().equals(server.hostKey()) && refused.status() == 429).hasSize(1);
            assertThat(heard).filteredOn(HostpaceEvent.Retried.class::isInstance).hasSize(1);
          });
    }
  }

  @Test
  void I6_T1_aBootBuiltWebClientSendsThroughTheEngine() throws Exception {
    Refusing refusing = Refusing.first(1, 429, "0");
    try (TestServer server = TestServer.start(refusing)) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(HostpaceAutoConfiguration.class, WebClientAutoConfiguration.class))
          .run(context -> {
            WebClient client = context.getBean(WebClient.Builder.class).build();

            String body = client.get().uri(server.uri("/answer")).retrieve().bodyToMono(String.class)
                .block(Duration.ofSeconds(30));

            assertThat(body).isEqualTo("answer 2");
            assertThat(refusing.seen()).isEqualTo(2);
          });
    }
  }

  @Test
  void I6_switchedOffTheRestClientIsNotPaced() throws Exception {
    Refusing refusing = Refusing.first(1, 429, "0");
    try (TestServer server = TestServer.start(refusing)) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(HostpaceAutoConfiguration.class, RestClientAutoConfiguration.class))
          .withPropertyValues("hostpace.rest-client.enabled=false")
          .run(context -> {
            RestClient client = context.getBean(RestClient.Builder.class).build();

            int status = client.get().uri(server.uri("/answer")).exchange((request, response) -> response.getStatusCode().value());

            assertThat(status).isEqualTo(429);
            assertThat(refusing.seen()).isEqualTo(1);
          });
    }
  }
}

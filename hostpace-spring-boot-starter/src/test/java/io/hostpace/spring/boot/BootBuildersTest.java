package io.hostpace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.VirtualTime;
import io.hostpace.redis.RedisFleet;
import io.hostpace.spi.Fleet;
import io.hostpace.spring.HostpaceExchangeFilter;
import io.hostpace.spring.HostpaceRequestInterceptor;
import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.ScriptedExchange;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.ResourcePropertySource;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * With Boot's own auto-configurations: the builders Boot makes carry the engine, a properties
 * file as docs/spring-boot.md writes it configures it, and an application's own fleet is the one it joins.
 */
class BootBuildersTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(HostpaceAutoConfiguration.class));

  @Test
  void I6_everyRestTemplateBootBuildsHasTheInterceptor() {
    runner.withConfiguration(AutoConfigurations.of(RestTemplateAutoConfiguration.class)).run(context ->
        assertThat(context.getBean(RestTemplateBuilder.class).build().getInterceptors())
            .containsExactly(context.getBean(HostpaceRequestInterceptor.class)));
  }

  @Test
  void I6_everyWebClientBootBuildsHasTheFilter() {
    runner.withConfiguration(AutoConfigurations.of(WebClientAutoConfiguration.class)).run(context -> {
      List<ExchangeFilterFunction> filters = new ArrayList<>();
      context.getBean(WebClient.Builder.class).filters(filters::addAll);
      assertThat(filters).containsExactly(context.getBean(HostpaceExchangeFilter.class));
    });
  }

  @Test
  void I6_theReadmesPropertiesFileConfiguresTheEngine() {
    runner.withInitializer(context -> {
          try {
            context.getEnvironment().getPropertySources()
                .addFirst(new ResourcePropertySource(new ClassPathResource("readme-example.properties")));
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        })
        .run(context -> {
          Hostpace engine = context.getBean(Hostpace.class);
          assertThat(engine.effectiveLimits(URI.create("https://qlever.dev/"), CallContext.DEFAULT))
              .isEqualTo(new Limits(1, Rate.perSecond(1)));
          assertThat(engine.effectiveLimits(URI.create("http://api.example.org:8080/"), CallContext.DEFAULT))
              .isEqualTo(new Limits(8, Rate.of(100, Duration.ofMinutes(1))));
          assertThat(engine.retries()).isEqualTo(3);
          assertThat(engine.retryDelayLimit()).isEqualTo(Duration.ofSeconds(30));
          assertThat(engine.userAgent()).isEqualTo("my-app/1.0 (+https://example.org; ops@example.org)");
        });
  }

  @Test
  void I6_S2_anApplicationsOwnFleetIsTheOneTheEngineJoins() {
    VirtualTime time = VirtualTime.create();
    LocalFleet fleet = new LocalFleet(time, time, Duration.ofMillis(5));
    List<Fleet.Lesson> heard = new ArrayList<>();
    fleet.join().listen(heard::add);
    runner.withPropertyValues("hostpace.fleet=crawlers")
        .withBean(Fleet.class, fleet::join)
        .withBean("virtualTime", HostpaceBuilderCustomizer.class, () -> builder -> builder.time(time))
        .run(context -> {
          assertThat(context).doesNotHaveBean(RedisFleet.class);
          // At 0 s a.test is sent a request; at 50 ms it refuses it for 30 s; 5 ms later the other
          // process of the fleet hears it.
          context.getBean(Hostpace.class).execute(ScriptedExchange.builder(URI.create("http://a.test/"),
                  (Integer status) -> status)
              .headers((status, name) -> name.equalsIgnoreCase("Retry-After") ? "30" : null)
              .answers(attempt -> ScriptedExchange.after(time, 50_000_000L, 429))
              .build());
          time.advance(Duration.ofMillis(100));
          assertThat(heard).extracting(Fleet.Lesson::key, Fleet.Lesson::refused).contains(
              org.assertj.core.groups.Tuple.tuple("a.test", true));
        });
  }
}

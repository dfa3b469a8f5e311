package io.hostpace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.CallContext;
import io.hostpace.HostStateFile;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceClosedException;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.VirtualTime;
import io.hostpace.micrometer.HostpaceMetrics;
import io.hostpace.redis.RedisFleet;
import io.hostpace.spring.HostpaceExchangeFilter;
import io.hostpace.spring.HostpaceRequestInterceptor;
import io.hostpace.testing.ScriptedExchange;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The auto-configuration's beans and conditions (SPEC I6): each bean with and without the class
 * it needs, each property, and each switch.
 */
class HostpaceAutoConfigurationTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(HostpaceAutoConfiguration.class));

  @Test
  void I6_theAutoConfigurationIsRegisteredForBootToFind() {
    List<String> candidates = new ArrayList<>();
    ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).forEach(candidates::add);
    assertThat(candidates).contains(HostpaceAutoConfiguration.class.getName());
  }

  @Test
  void I6_oneEngineWithTheEngineDefaultsWhenNothingIsSet() {
    runner.run(context -> {
      Hostpace engine = context.getBean(Hostpace.class);
      assertThat(engine.retries()).isEqualTo(5);
      assertThat(engine.retryDelayLimit()).isEqualTo(Duration.ofSeconds(60));
      assertThat(engine.userAgent()).isEqualTo(Hostpace.DEFAULT_USER_AGENT);
      assertThat(engine.timeoutPolicy()).isNull();
    });
  }

  @Test
  void I6_thePropertiesConfigureTheEngine() {
    runner.withPropertyValues(
            "hostpace.hosts.qlever.dev=inFlight:1,perSecond:1",
            "hostpace.hosts[*.wikidata.org]=inFlight:10",
            "hostpace.max-in-flight=4",
            "hostpace.max-rate=2.5",
            "hostpace.retries=3",
            "hostpace.retry-delay-limit=5s",
            "hostpace.user-agent=my-app/1.0 (+https://example.org)")
        // A key with ':' in it, as a properties file writes it escaped: hostpace.hosts[example.org\\:8080]
        .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
            new MapPropertySource("port", Map.of("hostpace.hosts[example.org:8080]", "rate:100/m"))))
        .run(context -> {
          Hostpace engine = context.getBean(Hostpace.class);
          assertThat(engine.effectiveLimits(URI.create("https://qlever.dev/api"), CallContext.DEFAULT))
              .isEqualTo(new Limits(1, Rate.perSecond(1)));
          assertThat(engine.effectiveLimits(URI.create("http://example.org:8080/"), CallContext.DEFAULT).rate())
              .isEqualTo(Rate.of(100, Duration.ofMinutes(1)));
          assertThat(engine.effectiveLimits(URI.create("https://other.test/"), CallContext.DEFAULT))
              .isEqualTo(new Limits(4, Rate.perSecond(2.5)));
          assertThat(engine.effectiveLimits(URI.create("https://query.wikidata.org/"), CallContext.DEFAULT).inFlight())
              .isEqualTo(4);
          assertThat(engine.retries()).isEqualTo(3);
          assertThat(engine.retryDelayLimit()).isEqualTo(Duration.ofSeconds(5));
          assertThat(engine.userAgent()).isEqualTo("my-app/1.0 (+https://example.org)");
        });
  }

  @Test
  void I6_aDurationWithoutUnitIsInSecondsAsOnTheCommandLine() {
    runner.withPropertyValues("hostpace.retry-delay-limit=30")
        .run(context -> assertThat(context.getBean(Hostpace.class).retryDelayLimit()).isEqualTo(Duration.ofSeconds(30)));
  }

  @Test
  void I6_aBadHostSpecFailsNamingThePropertyAndWhatIsWrong() {
    runner.withPropertyValues("hostpace.hosts.qlever.dev=inFlight:x")
        .run(context -> assertThat(failure(context))
            .isEqualTo("hostpace.hosts[qlever.dev]: host limit 'qlever.dev': inFlight 'x' is not a whole number"));
    runner.withPropertyValues("hostpace.hosts.qlever.dev=speed:3")
        .run(context -> assertThat(failure(context)).isEqualTo("hostpace.hosts[qlever.dev]: host limit 'qlever.dev':"
            + " limit 'speed' is unknown: expected inFlight, perSecond or rate"));
  }

  @Test
  void I6_bootShowsABadPropertyWithWhatToDo() {
    runner.withPropertyValues("hostpace.hosts.qlever.dev=inFlight:x").run(context -> {
      FailureAnalysis analysis = new HostpaceFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis).isNotNull();
      assertThat(analysis.getDescription())
          .isEqualTo("hostpace.hosts[qlever.dev]: host limit 'qlever.dev': inFlight 'x' is not a whole number");
      assertThat(analysis.getAction()).isEqualTo("Correct hostpace.hosts[qlever.dev] in the application's configuration.");
    });
    // Boot's own analyzers that need its context to be made are skipped here.
    assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
            .load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {})))
        .hasAtLeastOneElementOfType(HostpaceFailureAnalyzer.class);
  }

  @Test
  void I6_aKeyThatCanNeverMatchFailsNamingTheProperty() {
    runner.withPropertyValues("hostpace.hosts[*.wikidata]=inFlight:1")
        .run(context -> assertThat(failure(context))
            .startsWith("hostpace.hosts[*.wikidata]: host limit '*.wikidata' is not a domain"));
  }

  @Test
  void I6_badValuesFailNamingTheirProperty() {
    runner.withPropertyValues("hostpace.retries=-1")
        .run(context -> assertThat(failure(context)).isEqualTo("hostpace.retries: retries must be zero or more, got -1"));
    runner.withPropertyValues("hostpace.max-in-flight=0")
        .run(context -> assertThat(failure(context))
            .isEqualTo("hostpace.max-in-flight: inFlight must be at least 1, got 0"));
    runner.withPropertyValues("hostpace.max-rate=-2")
        .run(context -> assertThat(failure(context)).startsWith("hostpace.max-rate: "));
    runner.withPropertyValues("hostpace.user-agent= ")
        .run(context -> assertThat(failure(context)).isEqualTo("hostpace.user-agent: user agent must not be blank"));
    runner.withPropertyValues("hostpace.retry-delay-limit=-1s")
        .run(context -> assertThat(failure(context)).startsWith("hostpace.retry-delay-limit: retry delay limit must not be negative"));
  }

  @Test
  void I6_aTimeoutGivenAloneBudgetsEveryAttemptAsTheCommandLinesDoesAndRetriesAreBoundedAsThere() {
    runner.withPropertyValues("hostpace.timeout=30s")
        .run(context -> assertThat(context.getBean(Hostpace.class).timeoutPolicy())
            .isNotNull().extracting(Object::toString).asString().contains("fixed"));
    runner.withPropertyValues("hostpace.retries=500")
        .run(context -> assertThat(failure(context)).isEqualTo("hostpace.retries: retries must be 0 to 100, got 500"));
    runner.withPropertyValues("hostpace.retries=100")
        .run(context -> assertThat(context.getBean(Hostpace.class).retries()).isEqualTo(100));
  }

  @Test
  void I6_durationsAreBoundedAsOnTheCommandLine() {
    runner.withPropertyValues("hostpace.timeout=1ns")
        .run(context -> assertThat(failure(context)).isEqualTo("hostpace.timeout: timeout must be at least 1ms, got PT0.000000001S"));
    runner.withPropertyValues("hostpace.timeout=500us")
        .run(context -> assertThat(failure(context)).isEqualTo("hostpace.timeout: timeout must be at least 1ms, got PT0.0005S"));
    runner.withPropertyValues("hostpace.timeout-policy=adaptive", "hostpace.timeout=400d")
        .run(context -> assertThat(failure(context))
            .isEqualTo("hostpace.timeout: timeout must be at most a year (365d), got PT9600H"));
    runner.withPropertyValues("hostpace.retry-delay-limit=400d")
        .run(context -> assertThat(failure(context))
            .isEqualTo("hostpace.retry-delay-limit: retry delay limit must be at most a year (365d), got PT9600H"));
    runner.withPropertyValues("hostpace.retry-delay-limit=500us")
        .run(context -> assertThat(failure(context)).startsWith("hostpace.retry-delay-limit: retry delay limit must be at least 1ms"));
    runner.withPropertyValues("hostpace.timeout=1ms", "hostpace.retry-delay-limit=365d")
        .run(context -> assertThat(context).hasNotFailed());
    runner.withPropertyValues("hostpace.timeout-policy=adaptive", "hostpace.timeout=365d", "hostpace.retry-delay-limit=0")
        .run(context -> assertThat(context.getBean(Hostpace.class).retryDelayLimit()).isZero());
  }

  @Test
  void I6_theTimeoutPolicyIsTheEnginesOnlyWhenOneIsNamedOrATimeoutGiven() {
    runner.withPropertyValues("hostpace.timeout-policy=adaptive", "hostpace.timeout=20")
        .run(context -> assertThat(context.getBean(Hostpace.class).timeoutPolicy()).isNotNull());
    runner.withPropertyValues("hostpace.timeout-policy=fixed", "hostpace.timeout=0s")
        .run(context -> assertThat(failure(context)).startsWith("hostpace.timeout: "));
  }

  @Test
  void I6_customizersChangeTheBuilderAfterTheProperties() {
    runner.withPropertyValues("hostpace.retries=3")
        .withBean("nine", HostpaceBuilderCustomizer.class, () -> builder -> builder.retries(9))
        .run(context -> assertThat(context.getBean(Hostpace.class).retries()).isEqualTo(9));
  }

  @Test
  void I6_anEngineOfTheApplicationsOwnIsKept() {
    Hostpace own = Hostpace.builder().retries(1).build();
    runner.withBean(Hostpace.class, () -> own)
        .run(context -> assertThat(context.getBean(Hostpace.class)).isSameAs(own));
  }

  @Test
  void I6_T8_theEngineIsClosedWithTheContextAndTheCallsThatWaitEndWithIt() {
    VirtualTime time = VirtualTime.create();
    List<Hostpace> engine = new ArrayList<>();
    List<CompletableFuture<Integer>> calls = new ArrayList<>();
    runner.withPropertyValues("hostpace.hosts.a.test=inFlight:1")
        .withBean("virtualTime", HostpaceBuilderCustomizer.class, () -> builder -> builder.time(time))
        .run(context -> {
          engine.add(context.getBean(Hostpace.class));
          // At 0 s two calls come for a.test, which holds one at a time: the first is answered at
          // 1 s, the second waits; at 0.5 s the context closes.
          for (int i = 0; i < 2; i++) {
            calls.add(engine.get(0).execute(ScriptedExchange.statuses("http://a.test/")
                .answers(attempt -> ScriptedExchange.after(time, 1_000_000_000L, 200)).build()));
          }
          time.advance(Duration.ofMillis(500));
          assertThat(calls.get(1)).isNotDone();
        });
    assertThat(engine.get(0).isClosed()).isTrue();
    assertThat(calls.get(1)).isCompletedExceptionally();
    assertThatThrownBy(() -> calls.get(1).join()).hasCauseInstanceOf(HostpaceClosedException.class);
    time.advance(Duration.ofSeconds(1));
    assertThat(calls.get(0)).isCompletedWithValue(200);
  }

  @Test
  void I6_S1_theStateFileIsReadAtTheStartAndSavedWhenTheContextCloses(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("kept").resolve("hosts.tsv");
    runner.withPropertyValues("hostpace.state=" + file)
        .run(context -> {
          assertThat(context).hasSingleBean(HostStateFile.class);
          assertThat(file).doesNotExist();
        });
    assertThat(file).exists();
    assertThat(Files.readAllLines(file).get(0)).startsWith("#");
    runner.run(context -> assertThat(context).doesNotHaveBean(HostStateFile.class));
  }

  @Test
  void I6_S1_aStateFileThatIsNoStateFileFailsNamingTheProperty(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("junk.tsv");
    Files.writeString(file, "not a state file\n");
    runner.withPropertyValues("hostpace.state=" + file)
        .run(context -> assertThat(failure(context)).startsWith("hostpace.state: "));
  }

  @Test
  void I6_S1_anEmptyStateFailsNamingThePropertyAndWhatToDo() {
    runner.withPropertyValues("hostpace.state=").run(context -> {
      assertThat(failure(context)).isEqualTo("hostpace.state is empty: expected the path of a host state file");
      FailureAnalysis analysis = new HostpaceFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis).isNotNull();
      assertThat(analysis.getAction())
          .isEqualTo("Name a host state file in hostpace.state (one this engine saved, or none yet), or remove it.");
    });
  }

  @Test
  void I6_S2_aFleetWithoutHostpaceRedisFailsSayingWhatIsMissing() {
    runner.withClassLoader(new FilteredClassLoader(RedisFleet.class))
        .withPropertyValues("hostpace.fleet=crawlers")
        .run(context -> assertThat(failure(context)).startsWith("hostpace.fleet 'crawlers' needs hostpace-redis"));
  }

  @Test
  void I6_S2_redisWithoutAFleetFailsAsOnTheCommandLine() {
    runner.withPropertyValues("hostpace.redis=redis://127.0.0.1:6379")
        .run(context -> assertThat(failure(context)).startsWith("hostpace.redis needs hostpace.fleet"));
    runner.withPropertyValues("hostpace.fleet=a", "hostpace.redis=redis://127.0.0.1:6379",
            "hostpace.redis-cluster=redis://127.0.0.1:7000")
        .run(context -> assertThat(failure(context))
            .isEqualTo("hostpace.redis and hostpace.redis-cluster both name the fleet's Redis: give one"));
  }

  @Test
  void I6_noFleetUnlessOneIsNamed() {
    runner.run(context -> assertThat(context).doesNotHaveBean(RedisFleet.class));
  }

  @Test
  void I6_theRestClientAndRestTemplateCustomizersAddTheInterceptor() {
    runner.run(context -> {
      HostpaceRequestInterceptor interceptor = context.getBean(HostpaceRequestInterceptor.class);
      RestClient.Builder builder = RestClient.builder();
      context.getBean(RestClientCustomizer.class).customize(builder);
      builder.requestInterceptors(interceptors -> assertThat(interceptors).containsExactly(interceptor));
      RestTemplate template = new RestTemplate();
      context.getBean(RestTemplateCustomizer.class).customize(template);
      assertThat(template.getInterceptors()).containsExactly(interceptor);
    });
  }

  @Test
  void I6_eachClientCustomizerCanBeSwitchedOff() {
    runner.withPropertyValues("hostpace.rest-client.enabled=false").run(context -> {
      assertThat(context).doesNotHaveBean(RestClientCustomizer.class);
      assertThat(context).hasSingleBean(RestTemplateCustomizer.class);
      assertThat(context).hasSingleBean(WebClientCustomizer.class);
    });
    runner.withPropertyValues("hostpace.rest-template.enabled=false").run(context -> {
      assertThat(context).hasSingleBean(RestClientCustomizer.class);
      assertThat(context).doesNotHaveBean(RestTemplateCustomizer.class);
    });
    runner.withPropertyValues("hostpace.web-client.enabled=false").run(context -> {
      assertThat(context).doesNotHaveBean(WebClientCustomizer.class);
      assertThat(context).doesNotHaveBean(HostpaceExchangeFilter.class);
      assertThat(context).hasSingleBean(RestClientCustomizer.class);
    });
  }

  @Test
  void I6_noRestClientCustomizersWithoutBootsRestClientModule() {
    runner.withClassLoader(new FilteredClassLoader(RestClientCustomizer.class)).run(context -> {
      assertThat(context).hasSingleBean(Hostpace.class);
      assertThat(context).doesNotHaveBean(HostpaceRequestInterceptor.class);
      assertThat(context).doesNotHaveBean("hostpaceRestClientCustomizer");
      assertThat(context).doesNotHaveBean("hostpaceRestTemplateCustomizer");
    });
  }

  @Test
  void I6_theWebClientCustomizerAddsTheFilter() {
    runner.run(context -> {
      HostpaceExchangeFilter filter = context.getBean(HostpaceExchangeFilter.class);
      WebClient.Builder builder = WebClient.builder();
      context.getBean(WebClientCustomizer.class).customize(builder);
      List<ExchangeFilterFunction> filters = new ArrayList<>();
      builder.filters(filters::addAll);
      assertThat(filters).containsExactly(filter);
    });
  }

  @Test
  void I6_noWebClientCustomizerWithoutWebFluxOrBootsWebClientModule() {
    runner.withClassLoader(new FilteredClassLoader(WebClient.class))
        .run(context -> assertThat(context).doesNotHaveBean(WebClientCustomizer.class)
            .doesNotHaveBean(HostpaceExchangeFilter.class).hasSingleBean(RestClientCustomizer.class));
    runner.withClassLoader(new FilteredClassLoader(WebClientCustomizer.class))
        .run(context -> assertThat(context).doesNotHaveBean("hostpaceWebClientCustomizer"));
  }

  @Test
  void I6_theMetricsHearTheEngineAndBootBindsThem() {
    VirtualTime time = VirtualTime.create();
    runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
        .withBean("virtualTime", HostpaceBuilderCustomizer.class, () -> builder -> builder.time(time))
        .run(context -> {
          assertThat(context).hasSingleBean(HostpaceMetrics.class);
          Hostpace engine = context.getBean(Hostpace.class);
          var call = engine.execute(ScriptedExchange.statuses("http://a.test/")
              .answers(attempt -> ScriptedExchange.after(time, 50_000_000L, attempt == 1 ? 429 : 200))
              .build());
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          // At 10 ms the first attempt is in flight: the gauges read the engine's snapshot.
          time.advance(Duration.ofMillis(10));
          assertThat(registry.get("hostpace.attempts.in.flight").tag("host", "a.test").gauge().value()).isEqualTo(1);
          // At 50 ms it is refused, and retried; at 100 ms and more its 200: the counters heard it.
          time.runUntilIdle(Duration.ofMinutes(1));
          assertThat(call).isCompletedWithValue(200);
          assertThat(registry.get("hostpace.attempts.started").tag("host", "a.test").functionCounter().count()).isEqualTo(2);
          assertThat(registry.get("hostpace.attempts.refused").tag("host", "a.test").functionCounter().count()).isEqualTo(1);
        });
  }

  @Test
  void I6_noMetricsWithoutHostpaceMicrometer() {
    runner.withClassLoader(new FilteredClassLoader(HostpaceMetrics.class)).run(context -> {
      assertThat(context).hasSingleBean(Hostpace.class);
      assertThat(context).doesNotHaveBean("hostpaceMetrics");
      assertThat(context).doesNotHaveBean("hostpaceMetricsListener");
    });
  }

  @Test
  void I6_theEndpointIsThereWhenActuatorIsAndItIsExposed() {
    runner.withPropertyValues("management.endpoints.web.exposure.include=hostpace")
        .run(context -> assertThat(context).hasSingleBean(HostpaceEndpoint.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(HostpaceEndpoint.class));
    runner.withPropertyValues("management.endpoints.web.exposure.include=hostpace")
        .withClassLoader(new FilteredClassLoader(Endpoint.class))
        .run(context -> assertThat(context).hasSingleBean(Hostpace.class).doesNotHaveBean(HostpaceEndpoint.class));
  }

  /** At 0 s a.test is sent a request; at 0.05 s it refuses it for 30 s; returns at 1 s, while it waits. */
  static void pausedForHalfAMinute(Hostpace engine, VirtualTime time) {
    engine.execute(ScriptedExchange.builder(URI.create("http://a.test/"), (Integer status) -> status)
        .headers((status, name) -> name.equalsIgnoreCase("Retry-After") ? "30" : null)
        .answers(attempt -> ScriptedExchange.after(time, 50_000_000L, 429))
        .build());
    time.advance(Duration.ofSeconds(1));
  }

  @Test
  void I6_theEndpointShowsEachHostsSnapshot() {
    VirtualTime time = VirtualTime.create();
    runner.withPropertyValues("management.endpoints.web.exposure.include=hostpace")
        .withBean("virtualTime", HostpaceBuilderCustomizer.class, () -> builder -> builder.time(time))
        .run(context -> {
          Hostpace engine = context.getBean(Hostpace.class);
          pausedForHalfAMinute(engine, time);
          HostpaceEndpoint.Host host = context.getBean(HostpaceEndpoint.class).hosts().hosts().get("a.test");
          assertThat(host).isNotNull();
          assertThat(host.group()).isFalse();
          assertThat(host.inFlight()).isZero();
          assertThat(host.waiting()).isEqualTo(1);
          assertThat(host.pausedForMillis()).isEqualTo(29_050.0);
          assertThat(host.starts()).isEqualTo(1);
          assertThat(host.refusals()).isEqualTo(1);
          assertThat(host.retries()).isEqualTo(1);
          assertThat(context.getBean(HostpaceEndpoint.class).host("a.test")).isEqualTo(host);
          assertThat(context.getBean(HostpaceEndpoint.class).host("b.test")).isNull();
        });
  }

  /** The message of the property's failure that stopped {@code context}. */
  private static String failure(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    Throwable cause = context.getStartupFailure();
    while (cause.getCause() != null && !(cause instanceof HostpacePropertyException)) {
      cause = cause.getCause();
    }
    assertThat(cause).isInstanceOf(HostpacePropertyException.class);
    return cause.getMessage();
  }
}

package io.hostpace.spring.boot;

import io.hostpace.HostStateFile;
import io.hostpace.Hostpace;
import io.hostpace.micrometer.HostpaceMetrics;
import io.hostpace.redis.RedisFleet;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spring.HostpaceExchangeFilter;
import io.hostpace.spring.HostpaceRequestInterceptor;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Path;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * One {@link Hostpace} engine for the application, built from {@link HostpaceProperties} and
 * every {@link HostpaceBuilderCustomizer}, unless the application defines its own; and, each when
 * its classes are present, the engine on every client Boot builds ({@code RestClient},
 * {@code RestTemplate}, {@code WebClient}; {@code hostpace.rest-client.enabled=false} and its
 * siblings switch one off), its meters (hostpace-micrometer), a fleet (hostpace-redis, with
 * {@code hostpace.fleet}) and the {@code hostpace} Actuator endpoint.
 *
 * <p>The engine is closed with the context (SPEC T8): the calls that wait end with a
 * {@code HostpaceClosedException}. What it uses that must be ended is a bean of its own, ended
 * after it: the {@code hostpace.fleet} is left, the {@code hostpace.state} file saved.
 */
@AutoConfiguration
@EnableConfigurationProperties(HostpaceProperties.class)
public class HostpaceAutoConfiguration {

  private static final String STATE_ACTION =
      "Name a host state file in hostpace.state (one this engine saved, or none yet), or remove it.";

  /** The configuration Boot makes; not for applications to call. */
  public HostpaceAutoConfiguration() {}

  /**
   * The engine: the properties applied to a new builder, then the application's store and fleet
   * beans, if any, then each customizer in order; closed with the context.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  Hostpace hostpace(HostpaceProperties properties, ObjectProvider<HostpaceBuilderCustomizer> customizers,
      ObjectProvider<HostStateStore> store, ObjectProvider<Fleet> fleet) {
    Hostpace.Builder builder = new EngineFromProperties(properties).apply(Hostpace.builder());
    store.ifUnique(builder::hostStateStore);
    Fleet joined = fleet.getIfUnique();
    if (joined != null) {
      builder.fleet(joined);
    } else if (properties.getFleet() != null) {
      throw new HostpacePropertyException("hostpace.fleet", "hostpace.fleet '" + properties.getFleet()
          + "' needs hostpace-redis on the classpath (io.hostpace:hostpace-redis), or a Fleet bean: no fleet can be"
          + " joined without one", "Add io.hostpace:hostpace-redis to the application, or remove hostpace.fleet.", null);
    }
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    return builder.build();
  }

  /** The {@code hostpace.state} file, read now and saved when the context closes. */
  @Bean(destroyMethod = "save")
  @ConditionalOnProperty("hostpace.state")
  @ConditionalOnMissingBean(HostStateStore.class)
  HostStateFile hostpaceStateFile(HostpaceProperties properties) {
    Path state = properties.getState();
    if (state == null) {
      // The condition matches an empty value, which Boot binds to no path: refused as an empty
      // hostpace.fleet is, not taken for no file, so that a value lost on its way is seen.
      throw new HostpacePropertyException("hostpace.state",
          "hostpace.state is empty: expected the path of a host state file", STATE_ACTION, null);
    }
    try {
      return HostStateFile.load(state);
    } catch (CharacterCodingException e) {
      throw new HostpacePropertyException("hostpace.state",
          "hostpace.state '" + state + "' is not UTF-8 text, so not a host state file", STATE_ACTION, e);
    } catch (IOException e) {
      throw new HostpacePropertyException("hostpace.state", "hostpace.state '" + state + "' cannot be read: " + e,
          STATE_ACTION, e);
    } catch (IllegalArgumentException e) {
      throw new HostpacePropertyException("hostpace.state", "hostpace.state: " + e.getMessage(), STATE_ACTION, e);
    }
  }

  /** The fleet of {@code hostpace.fleet} over Redis, left when the context closes. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisFleet.class)
  @ConditionalOnProperty("hostpace.fleet")
  static class FleetConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(Fleet.class)
    RedisFleet hostpaceFleet(HostpaceProperties properties) {
      return RedisFleets.join(properties);
    }
  }

  /** The interceptor on every {@code RestClient} and {@code RestTemplate} Boot builds. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RestClientCustomizer.class)
  static class RestClientsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    HostpaceRequestInterceptor hostpaceRequestInterceptor(Hostpace engine) {
      return HostpaceRequestInterceptor.of(engine);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "hostpace.rest-client.enabled", matchIfMissing = true)
    RestClientCustomizer hostpaceRestClientCustomizer(HostpaceRequestInterceptor interceptor) {
      return builder -> builder.requestInterceptor(interceptor);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "hostpace.rest-template.enabled", matchIfMissing = true)
    RestTemplateCustomizer hostpaceRestTemplateCustomizer(HostpaceRequestInterceptor interceptor) {
      return restTemplate -> restTemplate.getInterceptors().add(interceptor);
    }
  }

  /** The filter on every {@code WebClient} Boot builds. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({WebClientCustomizer.class, WebClient.class})
  @ConditionalOnBooleanProperty(name = "hostpace.web-client.enabled", matchIfMissing = true)
  static class WebClientConfiguration {

    @Bean
    @ConditionalOnMissingBean
    HostpaceExchangeFilter hostpaceExchangeFilter(Hostpace engine) {
      return HostpaceExchangeFilter.of(engine);
    }

    @Bean
    WebClientCustomizer hostpaceWebClientCustomizer(HostpaceExchangeFilter filter) {
      return builder -> builder.filter(filter);
    }
  }

  /**
   * The engine's meters: Boot binds every {@link MeterBinder} bean to its registries. The
   * metrics hear the engine's decisions through a listener the auto-configured engine is built
   * with, and read its snapshot once every bean is made.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({HostpaceMetrics.class, MeterBinder.class})
  static class MetricsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    HostpaceMetrics hostpaceMetrics() {
      return HostpaceMetrics.create();
    }

    @Bean
    HostpaceBuilderCustomizer hostpaceMetricsListener(HostpaceMetrics metrics) {
      return builder -> builder.addListener(metrics.listener());
    }

    @Bean
    SmartInitializingSingleton hostpaceMetricsWatch(HostpaceMetrics metrics, ObjectProvider<Hostpace> engine) {
      return () -> engine.ifUnique(metrics::watch);
    }
  }

  /** The {@code hostpace} endpoint, when Actuator is present and the endpoint is exposed. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  static class EndpointConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    HostpaceEndpoint hostpaceEndpoint(Hostpace engine) {
      return new HostpaceEndpoint(engine);
    }
  }
}

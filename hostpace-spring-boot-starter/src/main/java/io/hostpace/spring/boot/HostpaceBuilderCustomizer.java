package io.hostpace.spring.boot;

import io.hostpace.Hostpace;

/**
 * Changes the engine's builder after the {@code hostpace.*} properties were applied and before
 * the {@link Hostpace} bean is built: a learning rule, refusal statuses, a listener, anything the
 * properties do not say. Every bean of this type is called, in their {@code @Order}.
 *
 * <pre>{@code
 * @Bean
 * HostpaceBuilderCustomizer refusals() {
 *   return builder -> builder.refusalStatuses(Set.of(429, 503, 509), Set.of(405));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface HostpaceBuilderCustomizer {

  /** Changes {@code builder}, which the properties have configured already. */
  void customize(Hostpace.Builder builder);
}

/**
 * Spring Boot auto-configuration for Hostpace: one engine from {@code hostpace.*} properties
 * ({@link io.hostpace.spring.boot.HostpaceProperties}), changed by
 * {@link io.hostpace.spring.boot.HostpaceBuilderCustomizer} beans, on every {@code RestClient},
 * {@code RestTemplate} and {@code WebClient} Boot builds; its meters with hostpace-micrometer, a
 * fleet with hostpace-redis, and the {@code hostpace} endpoint
 * ({@link io.hostpace.spring.boot.HostpaceEndpoint}) with Actuator.
 */
@NullMarked
package io.hostpace.spring.boot;

import org.jspecify.annotations.NullMarked;

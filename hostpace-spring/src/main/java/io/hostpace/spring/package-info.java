/**
 * Hostpace for Spring Framework's HTTP clients (SPEC I3):
 * {@link io.hostpace.spring.HostpaceRequestInterceptor} for {@code RestClient} and
 * {@code RestTemplate}, {@link io.hostpace.spring.HostpaceExchangeFilter} for {@code WebClient}.
 */
@NullMarked
package io.hostpace.spring;

import org.jspecify.annotations.NullMarked;

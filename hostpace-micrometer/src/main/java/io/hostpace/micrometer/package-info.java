/**
 * Hostpace metrics for Micrometer: {@link io.hostpace.micrometer.HostpaceMetrics}, a
 * {@code MeterBinder} that publishes per host and group what the engine knows and decides.
 */
@NullMarked
package io.hostpace.micrometer;

import org.jspecify.annotations.NullMarked;

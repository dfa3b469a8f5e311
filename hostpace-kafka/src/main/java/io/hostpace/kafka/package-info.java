/**
 * Hostpace for Spring Kafka (SPEC I4): {@link io.hostpace.kafka.RetryAfterBackOffHandler}, a
 * {@code BackOffHandler} for {@code DefaultErrorHandler} that waits as long as a refusing HTTP
 * server asked before a record is delivered to its listener again.
 */
@NullMarked
package io.hostpace.kafka;

import org.jspecify.annotations.NullMarked;

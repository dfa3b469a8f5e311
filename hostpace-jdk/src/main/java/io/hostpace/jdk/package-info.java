/**
 * Hostpace for {@code java.net.http}: {@link io.hostpace.jdk.PacedHttpClient}, an
 * {@link java.net.http.HttpClient} whose requests wait in the engine's host queues (SPEC I1).
 */
@NullMarked
package io.hostpace.jdk;

import org.jspecify.annotations.NullMarked;

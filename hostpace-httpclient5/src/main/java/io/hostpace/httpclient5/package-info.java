/**
 * Hostpace for Apache HttpClient 5: {@link io.hostpace.httpclient5.HostpaceHttpClient5} puts an
 * exec-chain handler at the head of a classic or async client's chain, so that its requests wait
 * in the engine's host queues (SPEC I3).
 */
@NullMarked
package io.hostpace.httpclient5;

import org.jspecify.annotations.NullMarked;

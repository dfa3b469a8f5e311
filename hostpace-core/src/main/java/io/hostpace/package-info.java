/**
 * Hostpace: per-host pacing, refusal handling and retries for HTTP clients.
 *
 * <p>Start with {@link io.hostpace.Hostpace}.
 */
@NullMarked
package io.hostpace;

import org.jspecify.annotations.NullMarked;

/**
 * Extension points of Hostpace: what an HTTP client adapter implements, and where the
 * engine's learned state and learning rules can be replaced.
 */
@NullMarked
package io.hostpace.spi;

import org.jspecify.annotations.NullMarked;

/**
 * A local reverse proxy whose upstream requests go through one Hostpace engine (SPEC X1 to X5):
 * {@link io.hostpace.proxy.HostpaceProxy} lets a program in any language be paced by changing only
 * the base URL it sends to.
 */
@NullMarked
package io.hostpace.proxy;

import org.jspecify.annotations.NullMarked;

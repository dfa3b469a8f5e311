/**
 * What tests and simulations of Hostpace use, shipped in core as {@link io.hostpace.VirtualTime}
 * is: {@link io.hostpace.testing.LocalFleet}, a fleet of engines in one JVM (SPEC S2 without
 * Redis). None of it is needed to run the engine.
 */
@NullMarked
package io.hostpace.testing;

import org.jspecify.annotations.NullMarked;

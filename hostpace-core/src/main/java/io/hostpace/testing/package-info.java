/**
 * What tests and simulations of Hostpace use to drive the engine without a network, in virtual
 * time or on the caller's thread, such as {@link io.hostpace.testing.ScriptedExchange}, an
 * exchange whose attempts a script answers. Main code, so that the tests of every module and the
 * simulator share one copy, and users can drive an engine the same way in tests of their own.
 */
@NullMarked
package io.hostpace.testing;

import org.jspecify.annotations.NullMarked;

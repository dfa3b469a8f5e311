/**
 * A kit for testing HTTP client adapters of Hostpace against real servers on 127.0.0.1.
 *
 * <ul>
 * <li>{@link io.hostpace.testkit.AdapterContract}: one set of scenarios, each named after the
 *     SPEC item it checks, that every adapter's tests run by extending it and implementing
 *     {@link io.hostpace.testkit.AdapterUnderTest}: "send this request through your client".
 * <li>{@link io.hostpace.testkit.TestServer}: a JDK HTTP server that logs what it receives and
 *     how many requests it held at once; its handlers play the seed's hosts:
 *     {@link io.hostpace.testkit.QleverLike}, {@link io.hostpace.testkit.KgfLike},
 *     {@link io.hostpace.testkit.BucketServer} (a rate limiter), {@link io.hostpace.testkit.Refusing},
 *     {@link io.hostpace.testkit.SlowBody}, {@link io.hostpace.testkit.Echo}.
 * <li>{@link io.hostpace.testkit.RawServer}: a bare socket that resets a connection or never answers.
 * </ul>
 *
 * <p>Real Redis servers for the tests of fleets are not here but in {@code hostpace-redis}'s
 * {@code io.hostpace.redis.testing}, beside the fleet they serve, where the command line's demo
 * can start one too.
 *
 * <p>Main code on purpose: a module's tests never depend on another module's test classes, and
 * users can run the same scenarios against an adapter of their own.
 */
@NullMarked
package io.hostpace.testkit;

import org.jspecify.annotations.NullMarked;

/**
 * The learning rules: state machines fed {@code (now, outcome)} that decide a host's interval,
 * in-flight limit and quota from its answers. {@link io.hostpace.rules.SeedRule} is SPEC R4;
 * {@link io.hostpace.rules.HostpaceRule} the default, with {@link io.hostpace.rules.WindowQuota}
 * for hosts that count in fixed windows. Users name them through
 * {@link io.hostpace.spi.LearningRule#seed()} and {@link io.hostpace.spi.LearningRule#hostpace()}.
 */
@NullMarked
package io.hostpace.rules;

import org.jspecify.annotations.NullMarked;

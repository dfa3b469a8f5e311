/**
 * One complete example per client, each a small class whose marked part the README quotes; the
 * build compiles them and its tests run each against a server on 127.0.0.1.
 */
@NullMarked
package io.hostpace.examples;

import org.jspecify.annotations.NullMarked;

/** The {@code hostpace} command line. */
@NullMarked
package io.hostpace.cli;

import org.jspecify.annotations.NullMarked;

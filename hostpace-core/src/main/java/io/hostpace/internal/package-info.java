/**
 * What Hostpace's own modules share and a program should not call: the {@code Retry-After} and
 * announced-quota parsers, the User-Agent an adapter adds, the redaction of secrets in messages,
 * the text of a number, the unwrapping of a future's failure, the answer deadline of blocking clients, and the schedule
 * of the timeout policies' probes. The module descriptor exports this package only to the
 * project's modules; on the class path it is reachable, but not API: it changes without notice.
 */
@NullMarked
package io.hostpace.internal;

import org.jspecify.annotations.NullMarked;

package io.hostpace;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What the engine knows of one host or group at one moment.
 *
 * @param key the host key ({@code example.org:8080}) or group key ({@code *.example.org})
 * @param group whether {@code key} is a group
 * @param queues queues held for the key: one per distinct limits its calls' contexts give it
 * @param inFlight requests started and not yet answered
 * @param waiting requests waiting in its queues (for a group: in its hosts' queues)
 * @param pausedFor how long it still starts nothing, zero when not paused
 * @param interval the interval between starts the host is held to now, zero when nothing was
 *     learned: its learned pace, or once, while a run of refusals holds its next start back, that
 *     wait (SPEC R14)
 * @param inFlightLimit how many requests at once the host was learned to hold, 0 when nothing was
 *     learned (always 0 for a group)
 * @param quota the quota the host was learned to count in fixed windows, null when none: its
 *     permits are the starts a window; its interval is how long after the current window's first
 *     start the next window's goes, which narrows to the host's window as the rule finds where
 *     the host's windows begin (shorter while a quota of a few tries one more alone part way into
 *     a window, SPEC R11)
 * @param starts attempts started since the engine began to hold the key
 * @param refusals refusals, likewise
 * @param retries retries, likewise
 * @param gaveUps calls that ended with a refusal, likewise
 */
public record HostSnapshot(
    String key,
    boolean group,
    int queues,
    int inFlight,
    int waiting,
    Duration pausedFor,
    Duration interval,
    int inFlightLimit,
    @Nullable Rate quota,
    long starts,
    long refusals,
    long retries,
    long gaveUps) {}

package io.hostpace;

import java.util.List;

/**
 * The limits a context gives a host and its groups: the identity of a {@link HostQueue} (SPEC P8).
 * {@code fleetInFlight} is the host's in-flight limit when it was given for the host by key (not
 * for every host, nor built in) and the engine has a fleet: the fleet's processes hold no more
 * than it together (SPEC S2); else 0.
 */
record QueueKey(Limits host, List<GateKey> gates, int fleetInFlight) {
  QueueKey(Limits host, List<GateKey> gates) {
    this(host, gates, 0);
  }
}

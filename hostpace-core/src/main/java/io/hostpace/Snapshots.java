package io.hostpace;

import io.hostpace.spi.HostState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * What the engine knows of each node it holds, as the public {@link HostSnapshot}s; read under the
 * engine's lock, and a node the {@link LocalPath} guards under its monitor too.
 */
final class Snapshots {

  private Snapshots() {}

  /** A snapshot of each of {@code nodes} at {@code now}, sorted by key. */
  static List<HostSnapshot> of(Collection<Node> nodes, long now) {
    List<HostSnapshot> hosts = new ArrayList<>(nodes.size());
    for (Node node : nodes) {
      if (node.global) {
        hosts.add(of(node, now));
      } else {
        synchronized (node) { // the local path's: read under its monitor
          if (!node.dropped) {
            hosts.add(of(node, now));
          }
        }
      }
    }
    hosts.sort(Comparator.comparing(HostSnapshot::key));
    return hosts;
  }

  private static HostSnapshot of(Node node, long now) {
    int inFlight = 0;
    int waiting = 0;
    int queues;
    if (node.group) {
      queues = node.gates.size();
      for (GroupGate gate : node.gates.values()) {
        inFlight += gate.inFlight;
        waiting += gate.waiting;
      }
    } else {
      queues = node.queueCount();
      for (int i = 0; i < queues; i++) {
        HostQueue queue = node.queueAt(i);
        inFlight += queue.inFlight;
        waiting += queue.live;
      }
    }
    HostState state = node.state;
    long pausedFor = state.paused() ? Math.max(0, state.pausedUntil() - now) : 0;
    return new HostSnapshot(
        node.key, node.group, queues, inFlight, waiting,
        Duration.ofNanos(pausedFor), Duration.ofNanos(state.interval()), state.inFlightLimit(),
        Learning.quotaOf(node.quota),
        node.starts, node.refusals, node.retries, node.gaveUps);
  }
}

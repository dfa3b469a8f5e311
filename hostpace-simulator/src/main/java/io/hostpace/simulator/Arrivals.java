package io.hostpace.simulator;

import io.hostpace.simulator.PacingScenario.ClientSpec;
import io.hostpace.simulator.PacingScenario.ServerSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.jspecify.annotations.Nullable;

/**
 * The requests of a pacing scenario, the same for every policy: for each client, when each
 * arrives (request i is process i mod processes's, and arrives as late as that process joins),
 * and the ideal finish: the shortest time in which the server models accept them.
 */
final class Arrivals {

  /** Per client, in the scenario's order, its requests' arrival times from the run's start. */
  final List<long[]> byClient = new ArrayList<>();
  private final Map<String, long[]> byHostSorted = new HashMap<>();
  private final Map<String, ServerSpec> servers = new HashMap<>();
  private final Instant wallOrigin;
  /** The shortest time in which the servers accept every request. */
  final long idealNanos;

  Arrivals(PacingScenario scenario, Instant wallOrigin) {
    this.wallOrigin = wallOrigin;
    Random random = new Random(scenario.seed());
    Map<String, List<Long>> byHost = new HashMap<>();
    for (ClientSpec client : scenario.clients()) {
      long[] times = new long[client.requests()];
      double t = 0;
      for (int i = 0; i < times.length; i++) {
        if (client.perSecond() > 0) {
          t += -Math.log(1 - random.nextDouble()) / client.perSecond();
        }
        times[i] = Math.round(t * 1e9) + client.joinOf(i % client.processes());
      }
      byClient.add(times);
      List<Long> all = byHost.computeIfAbsent(client.host(), h -> new ArrayList<>());
      for (long time : times) {
        all.add(time);
      }
    }
    for (ServerSpec server : scenario.servers()) {
      List<Long> all = byHost.get(server.host());
      if (all != null) {
        byHostSorted.put(server.host(), all.stream().mapToLong(Long::longValue).sorted().toArray());
        servers.put(server.host(), server);
      }
    }
    this.idealNanos = ideal(null);
  }

  /**
   * The shortest time in which the servers accept every request, or with {@code completed}
   * only as many of each host's requests (its first arrivals) as a policy completed.
   */
  long ideal(@Nullable Map<String, Integer> completed) {
    long ideal = 0;
    for (Map.Entry<String, long[]> host : byHostSorted.entrySet()) {
      long[] sorted = host.getValue();
      int n = completed == null ? sorted.length : completed.getOrDefault(host.getKey(), 0);
      if (n > 0) {
        // Arrivals keeps a host's arrivals only together with its server.
        ServerSpec server = Objects.requireNonNull(servers.get(host.getKey()), "no server for host '" + host.getKey() + "'");
        ideal = Math.max(ideal, ServerModel.idealFinish(server, Arrays.copyOf(sorted, n), wallOrigin));
      }
    }
    return ideal;
  }
}

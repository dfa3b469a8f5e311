package io.hostpace.spring.boot;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.Rate;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The Actuator endpoint {@code hostpace} ({@code GET /actuator/hostpace} once exposed): what the
 * engine knows of each host and group it holds, from {@link Hostpace#snapshot()};
 * {@code /actuator/hostpace/KEY} shows one.
 *
 * <pre>
 * {"hosts": {"qlever.dev": {"group": false, "inFlight": 1, "waiting": 12, "pausedForMillis": 0,
 *   "intervalMillis": 1020, "inFlightLimit": 0, "quota": null, "starts": 40, "refusals": 2, ...}}}
 * </pre>
 */
@Endpoint(id = "hostpace")
public class HostpaceEndpoint {

  private final Hostpace engine;

  /** The endpoint of {@code engine}. */
  public HostpaceEndpoint(Hostpace engine) {
    this.engine = engine;
  }

  /** Every host and group the engine holds now, by key, in the snapshot's order. */
  @ReadOperation
  public Hosts hosts() {
    Map<String, Host> hosts = new LinkedHashMap<>();
    for (HostSnapshot snapshot : engine.snapshot()) {
      hosts.put(snapshot.key(), Host.of(snapshot));
    }
    return new Hosts(hosts);
  }

  /**
   * One host or group by its key as the snapshot spells it ({@code GET /actuator/hostpace/qlever.dev}),
   * or null (404) when the engine holds nothing of it.
   */
  @ReadOperation
  public @Nullable Host host(@Selector String key) {
    for (HostSnapshot snapshot : engine.snapshot()) {
      if (snapshot.key().equals(key)) {
        return Host.of(snapshot);
      }
    }
    return null;
  }

  /**
   * What the engine holds, by host or group key.
   *
   * @param hosts each key's state
   */
  public record Hosts(Map<String, Host> hosts) {}

  /**
   * One host's or group's state, as {@link HostSnapshot} has it, durations in milliseconds.
   *
   * @param group whether the key is a {@code *.domain} group
   * @param inFlight requests started and not yet answered
   * @param waiting requests waiting to start
   * @param pausedForMillis how long it still starts nothing, 0 when not paused
   * @param intervalMillis the learned interval between starts, 0 when nothing was learned
   * @param inFlightLimit the learned requests at once, 0 when nothing was learned
   * @param quota the learned quota counted in fixed windows ({@code 60/m}), null when none
   * @param starts attempts started since the engine began to hold the key
   * @param refusals attempts refused, likewise
   * @param retries attempts sent back to the queue, likewise
   * @param gaveUps calls that ended with their refusal, likewise
   */
  public record Host(
      boolean group,
      int inFlight,
      int waiting,
      double pausedForMillis,
      double intervalMillis,
      int inFlightLimit,
      @Nullable String quota,
      long starts,
      long refusals,
      long retries,
      long gaveUps) {

    static Host of(HostSnapshot snapshot) {
      Rate quota = snapshot.quota();
      return new Host(snapshot.group(), snapshot.inFlight(), snapshot.waiting(),
          snapshot.pausedFor().toNanos() / 1e6, snapshot.interval().toNanos() / 1e6, snapshot.inFlightLimit(),
          quota == null ? null : quota.toString(), snapshot.starts(), snapshot.refusals(), snapshot.retries(),
          snapshot.gaveUps());
    }
  }
}

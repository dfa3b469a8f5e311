package io.hostpace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The limits a call gets for its host, field by field from three {@link LimitTable}s: its
 * context's, the engine's, then the built-in defaults (SPEC P4). Resolved into the
 * {@link QueueKey} the call waits under: the host's limits, and those of each {@code *.domain}
 * group it is in. Immutable.
 *
 * <p>Example: the engine gives every host {@code inFlight 8} and {@code *.wikidata.org}
 * {@code inFlight 5}; a context gives {@code query.wikidata.org} {@code perSecond 2}. A call with
 * that context to {@code query.wikidata.org} waits under {@code {inFlight 8, perSecond 2}} and
 * the gate {@code *.wikidata.org {inFlight 5}}; one with the default context, under
 * {@code {inFlight 8}} and the same gate.
 */
final class LimitLevels {

  /** The built-in limits (SPEC P3, P9): 32 in flight for every host; QLever's hosts one start a second. */
  static final LimitTable BUILT_IN = LimitTable.of(
      Limits.inFlight(32),
      Map.of("qlever.dev", Limits.perSecond(1), "qlever.cs.uni-freiburg.de", Limits.perSecond(1)));

  private final LimitTable engine;
  /** Whether the engine has a fleet (SPEC S2), whose processes share the limits given hosts by key. */
  private final boolean fleet;
  /**
   * What every host with the default context gets when nothing names it, by key or by group: the
   * limits for every host, the engine's over the built-in. The same for all such hosts, so made
   * once, and a call to one of them resolves its limits without making anything.
   */
  private final QueueKey untold;
  /**
   * What every host with the default context gets when nothing names it by key and it is in one
   * group of the engine's, by that group: the same for all the group's such hosts, so made once
   * for the group, and shared by the queues of all its member hosts (a crawler's group may have
   * thousands). Bounded by the engine's groups.
   */
  private final Map<String, QueueKey> bySoleGroup = new ConcurrentHashMap<>();

  LimitLevels(LimitTable engine, boolean fleet) {
    this.engine = engine;
    this.fleet = fleet;
    this.untold = new QueueKey(engine.everyHost().orElse(BUILT_IN.everyHost()), List.of(), 0);
  }

  /** The engine's own level. */
  LimitTable engine() {
    return engine;
  }

  /**
   * The limits a call with {@code context} gets for {@code hostKey}: the host's own, and those of
   * each group it is in. Each field falls through context, engine, built-in (SPEC P4).
   */
  QueueKey queueKey(String hostKey, CallContext context) {
    LimitTable contextLimits = context.limits();
    if (contextLimits == LimitTable.EMPTY && !namedByKey(hostKey)) {
      String group = engine.groupOrSeveral(hostKey);
      if (group == null) {
        return untold;
      }
      if (group != LimitTable.SEVERAL) {
        QueueKey key = bySoleGroup.get(group); // asked first: the function that resolves it is made only when missing
        return key != null ? key : bySoleGroup.computeIfAbsent(group, g -> resolve(hostKey, contextLimits));
      }
    }
    return resolve(hostKey, contextLimits);
  }

  /** {@link #queueKey}, made anew. */
  private QueueKey resolve(String hostKey, LimitTable contextLimits) {
    Limits host = contextLimits.forHost(hostKey).orElse(engine.forHost(hostKey)).orElse(BUILT_IN.forHost(hostKey));
    List<GateKey> gates = gates(hostKey, contextLimits);
    int fleetInFlight = fleet && host.inFlight() != null && inFlightByKey(hostKey, contextLimits) ? host.inFlight() : 0;
    return new QueueKey(host, gates, fleetInFlight);
  }

  /**
   * Whether {@code hostKey} was told limits of its own (SPEC P12): by its key, in the context, the
   * engine or the built-in defaults, or through one of its groups ({@code key}'s gates). Such a
   * host is known: it opens with what it was told, not gently.
   */
  boolean told(String hostKey, CallContext context, QueueKey key) {
    if (key == untold) {
      return false; // nothing named the host: see queueKey
    }
    return !key.gates().isEmpty() || !context.limits().forKey(hostKey).equals(Limits.NONE)
        || !engine.forKey(hostKey).equals(Limits.NONE) || !BUILT_IN.forKey(hostKey).equals(Limits.NONE);
  }

  /**
   * Whether the in-flight limit {@code hostKey} gets with {@code contextLimits} was given for the
   * host by key (the context's or the engine's), not for every host nor built in: a host's limit,
   * which a fleet shares (SPEC S2), where the others are each process's own.
   */
  private boolean inFlightByKey(String hostKey, LimitTable contextLimits) {
    if (contextLimits.forKey(hostKey).inFlight() != null) {
      return true;
    }
    if (contextLimits.everyHost().inFlight() != null) {
      return false; // the context's for every host stands over the engine's by key (SPEC P4)
    }
    return engine.forKey(hostKey).inFlight() != null;
  }

  /** Whether a key of the engine's or a built-in one names {@code hostKey}. */
  private boolean namedByKey(String hostKey) {
    return !engine.forKey(hostKey).equals(Limits.NONE) || !BUILT_IN.forKey(hostKey).equals(Limits.NONE);
  }

  /**
   * The gates of the groups {@code hostKey} is in, of the context's groups and the engine's, each
   * with its limits falling through context, engine, built-in; sorted by group, and none for a
   * group left with no limits. Each table finds its own groups ({@link LimitTable#groupsOf}, sorted),
   * and the two lists are merged, a group in both taken once: a host in no group makes nothing.
   */
  private List<GateKey> gates(String hostKey, LimitTable contextLimits) {
    List<String> fromContext = contextLimits.groupsOf(hostKey);
    List<String> fromEngine = engine.groupsOf(hostKey);
    if (fromContext.isEmpty() && fromEngine.isEmpty()) {
      return List.of();
    }
    List<GateKey> gates = new ArrayList<>(fromContext.size() + fromEngine.size());
    int c = 0;
    int e = 0;
    while (c < fromContext.size() || e < fromEngine.size()) {
      String group;
      if (e == fromEngine.size()) {
        group = fromContext.get(c++);
      } else if (c == fromContext.size()) {
        group = fromEngine.get(e++);
      } else {
        int order = fromContext.get(c).compareTo(fromEngine.get(e));
        group = order <= 0 ? fromContext.get(c++) : fromEngine.get(e++);
        if (order == 0) {
          e++;
        }
      }
      Limits groupLimits = contextLimits.forGroup(group).orElse(engine.forGroup(group)).orElse(BUILT_IN.forGroup(group));
      if (!groupLimits.equals(Limits.NONE)) {
        gates.add(new GateKey(group, groupLimits));
      }
    }
    return List.copyOf(gates);
  }
}

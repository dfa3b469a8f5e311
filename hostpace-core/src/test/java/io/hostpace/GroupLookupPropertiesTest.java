package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * The groups a host is in (SPEC P5), as {@link LimitTable#groupsOf} finds them by the suffixes of
 * the host's name, against the reference: {@link HostKey#inGroup} asked of every group of the
 * table, in the table's sorted order. And the gates {@link LimitLevels} makes of the groups of a
 * context and of the engine, against the same made with that reference.
 *
 * <p>Names are drawn from a few short labels ({@code a}, {@code b}, {@code c}, {@code 1},
 * {@code org}) so that hosts fall in groups often, at any depth, and are sometimes a group's own
 * domain (the apex, in no group of that domain); hosts come with and without ports, and some are
 * IP addresses (an all-number name is one: {@code 1.1} is {@code 1.0.0.1}), IPv4 and IPv6. The
 * tries come from the build.
 */
class GroupLookupPropertiesTest {

  static final List<String> LABELS = List.of("a", "b", "c", "1", "org");
  /** A group's last label is a name's, so that no group's domain is an IP address (refused as a group). */
  static final List<String> LAST_LABELS = List.of("a", "b", "org");
  static final List<String> IPV6 = List.of("[::1]", "[2001:db8::a]", "[fe80::1%25eth0.a]", "[::ffff:1.2.3.4]");

  /** A table's groups and a host's key. */
  record Case(List<String> groups, String hostKey) {}

  /** The groups of a context and of the engine, each with its limits, and a host's key. */
  record Levels(Map<String, Limits> context, Map<String, Limits> engine, String hostKey) {}

  /** The engine's groups with their limits, hosts asked in turn, and those of them the engine names by key. */
  record Crowd(Map<String, Limits> groups, List<String> hosts, Set<String> named) {}

  @Property
  void P5_aTableFindsTheGroupsTheLoopOverEveryGroupFindsInItsOrder(@ForAll("cases") Case c) {
    LimitTable table = LimitTable.of(Limits.NONE, limitsOf(c.groups()));
    List<String> expected = loop(table, c.hostKey());

    assertThat(table.groupsOf(c.hostKey())).as(c.hostKey()).containsExactlyElementsOf(expected);
    String group = table.groupOrSeveral(c.hostKey());
    assertThat(group != null).as(c.hostKey()).isEqualTo(!expected.isEmpty());
    assertThat(group == LimitTable.SEVERAL ? null : group).as(c.hostKey()).isEqualTo(expected.size() == 1 ? expected.get(0) : null);
    Statistics.label("groups the host is in").collect(Math.min(expected.size(), 2));
    Statistics.label("groups the host is in").coverage(coverage -> {
      coverage.check(0).percentage(p -> p > 10);
      coverage.check(1).percentage(p -> p > 10);
      coverage.check(2).percentage(p -> p > 5);
    });
  }

  @Property
  void P5_P6_theGatesOfAContextAndTheEngineAreThoseTheLoopGives(@ForAll("levels") Levels levels) {
    LimitTable engine = LimitTable.of(Limits.NONE, levels.engine());
    CallContext.Builder builder = CallContext.builder();
    levels.context().forEach(builder::addLimit);
    CallContext context = builder.build();
    LimitLevels limitLevels = new LimitLevels(engine, false);

    List<GateKey> gates = limitLevels.queueKey(levels.hostKey(), context).gates();

    assertThat(gates).as(levels.hostKey()).isEqualTo(loopGates(levels.hostKey(), context.limits(), engine));
    Statistics.label("gates").collect(Math.min(gates.size(), 2));
  }

  /**
   * One engine's limits asked for many hosts in turn, as its calls ask: each host gets what an
   * engine asked for that host alone resolves (the hosts of one group, that nothing names by key,
   * share what the first of them resolved; a host named by key, or in two groups, does not).
   */
  @Property
  void P4_P5_eachHostOfAnEngineGetsItsOwnLimitsWhateverHostsWereAskedBefore(@ForAll("crowds") Crowd crowd) {
    Map<String, Limits> keys = new LinkedHashMap<>(crowd.groups());
    crowd.named().forEach(host -> keys.put(host, Limits.inFlight(7)));
    LimitTable engine = LimitTable.of(Limits.inFlight(5), keys);
    LimitLevels asked = new LimitLevels(engine, false);

    for (String host : crowd.hosts()) {
      QueueKey alone = new LimitLevels(engine, false).queueKey(host, CallContext.DEFAULT);
      assertThat(asked.queueKey(host, CallContext.DEFAULT)).as(host).isEqualTo(alone);
    }
    Statistics.label("hosts named by key").collect(crowd.named().isEmpty() ? 0 : 1);
  }

  // ---------------------------------------------------------------- the reference

  /** The groups of {@code table} that {@code hostKey} is in, each group asked in turn. */
  static List<String> loop(LimitTable table, String hostKey) {
    List<String> found = new ArrayList<>();
    for (String group : table.groups()) {
      if (HostKey.inGroup(hostKey, group)) {
        found.add(group);
      }
    }
    return found;
  }

  /** The gates as the loop over every group of the context's and the engine's made them. */
  static List<GateKey> loopGates(String hostKey, LimitTable contextLimits, LimitTable engine) {
    Set<String> groups = new LinkedHashSet<>(loop(contextLimits, hostKey));
    groups.addAll(loop(engine, hostKey));
    List<GateKey> gates = new ArrayList<>();
    for (String group : groups) {
      Limits limits = contextLimits.forGroup(group).orElse(engine.forGroup(group))
          .orElse(LimitLevels.BUILT_IN.forGroup(group));
      if (!limits.equals(Limits.NONE)) {
        gates.add(new GateKey(group, limits));
      }
    }
    gates.sort((a, b) -> a.group().compareTo(b.group()));
    return gates;
  }

  // ---------------------------------------------------------------- the cases

  @Provide
  Arbitrary<Case> cases() {
    return groups().flatMap(groups -> hostKeys(groups).map(host -> new Case(groups, host)));
  }

  @Provide
  Arbitrary<Levels> levels() {
    return Combinators.combine(groups(), groups()).as(Tuple::of).flatMap(both -> {
      List<String> all = new ArrayList<>(both.get1());
      all.addAll(both.get2());
      return Combinators.combine(limitsFor(both.get1()), limitsFor(both.get2()), hostKeys(all)).as(Levels::new);
    });
  }

  @Provide
  Arbitrary<Crowd> crowds() {
    return groups().flatMap(groups -> Combinators.combine(limitsFor(groups), hostKeys(groups).list().ofMinSize(1).ofMaxSize(12))
        .as(Tuple::of)
        .flatMap(both -> Arbitraries.subsetOf(both.get2()).map(named -> new Crowd(both.get1(), both.get2(), named))));
  }

  /**
   * Up to 40 group keys, a domain each of one to three labels and a name's last label
   * ({@code *.1.a.org}), and some of the domains it is under ({@code *.a.org}), so that a host is
   * often in more than one.
   */
  static Arbitrary<List<String>> groups() {
    Arbitrary<Set<String>> nested = Combinators.combine(
            Arbitraries.of(LABELS).list().ofMinSize(1).ofMaxSize(3), Arbitraries.of(LAST_LABELS))
        .as((labels, last) -> {
          List<String> domains = new ArrayList<>();
          for (int i = 0; i < labels.size(); i++) {
            domains.add("*." + String.join(".", labels.subList(i, labels.size())) + "." + last);
          }
          return domains;
        })
        .flatMap(domains -> Arbitraries.subsetOf(domains).ofMinSize(1));
    return nested.list().ofMaxSize(20).map(lists -> {
      Set<String> groups = new LinkedHashSet<>();
      lists.forEach(groups::addAll);
      return List.copyOf(groups);
    });
  }

  /**
   * A host's key: a name of one to five labels, one to three labels before a group's domain, a
   * group's domain itself, or an IP address; on the default port or another.
   */
  static Arbitrary<String> hostKeys(List<String> groups) {
    Arbitrary<String> labels = Arbitraries.of(LABELS).list().ofMinSize(1).ofMaxSize(5).map(l -> String.join(".", l));
    Arbitrary<String> ipv4 = Arbitraries.integers().between(0, 3).list().ofSize(4)
        .map(l -> l.stream().map(String::valueOf).reduce((a, b) -> a + "." + b).orElseThrow());
    List<Tuple.Tuple2<Integer, Arbitrary<String>>> hosts = new ArrayList<>(List.of(
        Tuple.of(3, labels), Tuple.of(1, ipv4), Tuple.of(1, Arbitraries.of(IPV6))));
    if (!groups.isEmpty()) {
      Arbitrary<String> domain = Arbitraries.of(groups).map(g -> g.substring(2));
      Arbitrary<String> below = Combinators.combine(
              Arbitraries.of(LABELS).list().ofMinSize(1).ofMaxSize(3), domain)
          .as((l, d) -> String.join(".", l) + "." + d);
      hosts.add(Tuple.of(8, below));
      hosts.add(Tuple.of(1, domain));
    }
    Arbitrary<Integer> ports = Arbitraries.of(-1, 443, 8080, 1);
    return Combinators.combine(Arbitraries.frequencyOf(hosts), ports).as(GroupLookupPropertiesTest::keyOf);
  }

  /** Each group's limits: a cap, a rate, or none (a group given no limits has no gate). */
  static Arbitrary<Map<String, Limits>> limitsFor(List<String> groups) {
    Arbitrary<Limits> limits = Arbitraries.oneOf(
        Arbitraries.integers().between(1, 3).map(Limits::inFlight),
        Arbitraries.integers().between(1, 3).map(Limits::perSecond),
        Arbitraries.just(Limits.NONE));
    return limits.list().ofSize(groups.size()).map(list -> {
      Map<String, Limits> byGroup = new LinkedHashMap<>();
      for (int i = 0; i < groups.size(); i++) {
        byGroup.put(groups.get(i), list.get(i));
      }
      return byGroup;
    });
  }

  static Map<String, Limits> limitsOf(List<String> groups) {
    Map<String, Limits> byGroup = new LinkedHashMap<>();
    groups.forEach(group -> byGroup.put(group, Limits.inFlight(1)));
    return byGroup;
  }

  /** The engine's key of a host and port, as a URI's would be. */
  static String keyOf(String host, int port) {
    String key = HostKey.key(host, port);
    if (key == null) {
      throw new AssertionError("not a host: " + host);
    }
    return key;
  }
}

package io.hostpace;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.spi.LearningRule;
import io.hostpace.testing.ScriptedExchange;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.jspecify.annotations.Nullable;

/**
 * SPEC P6 and P7 against a reference model, in virtual time: "each request starts when its host
 * and all its groups can start it, before every later arrival that could start too, and none is
 * left waiting that could start."
 *
 * <p>A workload is five hosts, four under {@code *.example.org} and two of those also under
 * {@code *.x.example.org}, in a quarter of the workloads with 5 to 40 more, half of them in each
 * group (so that a release of the outer group meets many heads the inner one holds back), with
 * random caps and rates for the hosts and groups, maybe a second
 * context with limits of its own, and calls that arrive at random times, some cancelled at a
 * random time, some whose first connection dies (sent again under their first arrival, SPEC T6).
 * Answers take longer than any rate's window, and the rule learns nothing, so the limits alone
 * decide (SPEC P1's first start counted at its answer never applies).
 *
 * <p>The model knows only the limits and what the engine saw happen (arrivals, answers,
 * cancellations, deaths), never the engine's state: it replays that in order and, at each send,
 * says whether P6 lets the call start then and P7 lets it go before every older call waiting;
 * and whenever time moves on, that no waiting call could have started meanwhile.
 */
class GroupOrderPropertiesTest {

  static final List<String> HOSTS =
      List.of("a.example.org", "b.example.org", "c.x.example.org", "d.x.example.org", "e.test");
  /** How many hosts a workload has beyond {@link #HOSTS}. */
  static final Arbitrary<Integer> MORE_HOSTS =
      Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(0)), Tuple.of(1, Arbitraries.integers().between(5, 40)));
  static final List<String> GROUPS = List.of("*.example.org", "*.x.example.org");

  /** A call: its host, its context, the time before it arrives, its answer's latency, whether its first connection dies, and when the test cancels it. */
  record CallSpec(int host, boolean second, int gapMillis, int latencyMillis, boolean dies, @Nullable Integer cancelAfterMillis) {}

  record ContextSpec(List<@Nullable Limits> hosts, List<@Nullable Limits> groups) {}

  record Workload(List<String> names, List<@Nullable Limits> hosts, List<@Nullable Limits> groups, @Nullable ContextSpec second,
      List<CallSpec> calls, long origin) {}

  @Provide
  Arbitrary<Workload> workloads() {
    return MORE_HOSTS.flatMap(GroupOrderPropertiesTest::workloads);
  }

  /** Workloads over {@link #HOSTS} and {@code more} hosts, alternately in the inner group and in the outer one only. */
  static Arbitrary<Workload> workloads(int more) {
    List<String> names = new ArrayList<>(HOSTS);
    for (int i = 0; i < more; i++) {
      names.add(i % 2 == 0 ? "h" + i + ".x.example.org" : "h" + i + ".example.org");
    }
    Arbitrary<ContextSpec> second = Combinators.combine(
            limits().injectNull(0.5).list().ofSize(names.size()), limits().injectNull(0.5).list().ofSize(GROUPS.size()))
        .as(ContextSpec::new);
    return Combinators.combine(
            limits().injectNull(0.4).list().ofSize(names.size()),
            limits().injectNull(0.2).list().ofSize(GROUPS.size()),
            second.injectNull(0.5),
            calls(names.size()).list().ofMinSize(1).ofMaxSize(more == 0 ? 30 : 80),
            Arbitraries.longs().between(-(1L << 62), 1L << 62))
        .as((hosts, groups, context, calls, origin) -> new Workload(List.copyOf(names), hosts, groups, context, calls, origin));
  }

  /** A cap of 1 to 3 or none; no rate, 1 to 20 a second, or a burst of 2 to 4 per 0.25 to 1 s: no window above 1 s. */
  static Arbitrary<Limits> limits() {
    Arbitrary<Rate> perSecond = Arbitraries.integers().between(1, 20).map(Rate::perSecond);
    Arbitrary<Rate> burst = Combinators.combine(Arbitraries.integers().between(2, 4), Arbitraries.integers().between(1, 4))
        .as((permits, quarters) -> Rate.of(permits, Duration.ofMillis(quarters * 250L)));
    Arbitrary<Rate> rate = Arbitraries.frequencyOf(Tuple.of(1, perSecond), Tuple.of(1, burst));
    return Combinators.combine(Arbitraries.integers().between(1, 3).injectNull(0.3), rate.injectNull(0.4))
        .as(Limits::new);
  }

  static Arbitrary<CallSpec> calls(int hosts) {
    Arbitrary<Integer> gap = Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.just(0)),
        Tuple.of(4, Arbitraries.integers().between(1, 20).map(n -> n * 50)),
        Tuple.of(1, Arbitraries.integers().between(1, 10).map(n -> n * 500)));
    return Combinators.combine(
            Arbitraries.integers().between(0, hosts - 1),
            Arbitraries.of(false, true),
            gap,
            Arbitraries.integers().between(0, 40).map(n -> 1050 + n * 50), // longer than any window (1 s and its 20 ms)
            Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true))),
            Arbitraries.integers().between(0, 60).map(n -> n * 100).injectNull(0.8))
        .as(CallSpec::new);
  }

  @Property
  void P7_eachStartIsOfTheOldestCallItsHostAndGroupsLetStartAndNoneThatCouldIsLeftWaiting(
      @ForAll("workloads") Workload workload) {
    Run run = new Run(workload);
    run.go();
    List<String> problems = run.check();
    Statistics.label("an older call passed over").collect(run.passedOver > 0);
    assertThat(problems).as(run::trace).isEmpty();
  }

  /** What happened, in the order the engine saw it. */
  enum Kind { ARRIVED, CANCELLED, SENT, ANSWERED, DIED, ENDED_BY_ENGINE }

  record Event(long at, Kind kind, int call) {}

  static final class Run {
    final Workload workload;
    final VirtualTime time;
    final Hostpace engine;
    final @Nullable CallContext second;
    final List<Event> events = new ArrayList<>();
    final List<CompletableFuture<Integer>> futures = new ArrayList<>();
    int passedOver;

    Run(Workload workload) {
      this.workload = workload;
      this.time = VirtualTime.startingAt(workload.origin(), Instant.parse("2026-01-01T00:00:00Z"));
      Hostpace.Builder builder = Hostpace.builder().time(time).widenFirstContact(false).learningRule(LEARNS_NOTHING);
      for (int i = 0; i < workload.names().size(); i++) {
        if (workload.hosts().get(i) != null) {
          builder.addLimit(workload.names().get(i), workload.hosts().get(i));
        }
      }
      for (int g = 0; g < GROUPS.size(); g++) {
        if (workload.groups().get(g) != null) {
          builder.addLimit(GROUPS.get(g), workload.groups().get(g));
        }
      }
      this.engine = builder.build();
      ContextSpec context = workload.second();
      if (context == null) {
        this.second = null;
      } else {
        CallContext.Builder b = CallContext.builder();
        for (int i = 0; i < workload.names().size(); i++) {
          if (context.hosts().get(i) != null) {
            b.addLimit(workload.names().get(i), context.hosts().get(i));
          }
        }
        for (int g = 0; g < GROUPS.size(); g++) {
          if (context.groups().get(g) != null) {
            b.addLimit(GROUPS.get(g), context.groups().get(g));
          }
        }
        this.second = b.build();
      }
    }

    void go() {
      List<CallSpec> calls = workload.calls();
      for (int id = 0; id < calls.size(); id++) {
        CallSpec spec = calls.get(id);
        time.advance(Duration.ofMillis(spec.gapMillis()));
        int call = id;
        log(Kind.ARRIVED, call);
        CompletableFuture<Integer> future = engine.execute(new Exchange(call), context(call));
        futures.add(future);
        Integer cancelAfter = spec.cancelAfterMillis();
        if (cancelAfter != null) {
          time.schedule(() -> {
            if (!future.isDone()) {
              log(Kind.CANCELLED, call);
              future.cancel(true);
            }
          }, Duration.ofMillis(cancelAfter).toNanos());
        }
      }
      time.runUntilIdle(Duration.ofDays(1));
    }

    CallContext context(int call) {
      return workload.calls().get(call).second() && second != null ? second : CallContext.DEFAULT;
    }

    long now() {
      return time.nanoTime() - workload.origin();
    }

    void log(Kind kind, int call) {
      events.add(new Event(now(), kind, call));
    }

    String trace() {
      StringBuilder text = new StringBuilder("engine limits ").append(workload.hosts()).append(' ')
          .append(workload.groups()).append(", ctx2 ").append(second).append('\n');
      for (Event event : events) {
        CallSpec spec = workload.calls().get(event.call());
        text.append(String.format(Locale.ROOT, "%9.3f %s #%d %s%s%n", event.at() / 1e9, event.kind(), event.call(),
            workload.names().get(spec.host()), context(event.call()) == CallContext.DEFAULT ? "" : " ctx2"));
      }
      return text.toString();
    }

    // ---------------------------------------------------------------- the model

    /** Each field from the first level that sets it (SPEC P4): the context, the engine, the default. */
    static Limits fallThrough(@Nullable Limits context, @Nullable Limits engine, @Nullable Integer inFlight) {
      Limits c = context != null ? context : Limits.NONE;
      Limits e = engine != null ? engine : Limits.NONE;
      return new Limits(c.inFlight() != null ? c.inFlight() : e.inFlight() != null ? e.inFlight() : inFlight,
          c.rate() != null ? c.rate() : e.rate());
    }

    Limits hostLimits(int call) {
      CallSpec spec = workload.calls().get(call);
      ContextSpec context = context(call) == CallContext.DEFAULT ? null : workload.second();
      return fallThrough(context == null ? null : context.hosts().get(spec.host()), workload.hosts().get(spec.host()), 32);
    }

    @Nullable Limits groupLimits(int call, int group) {
      CallSpec spec = workload.calls().get(call);
      if (!workload.names().get(spec.host()).endsWith(GROUPS.get(group).substring(1))) {
        return null;
      }
      ContextSpec context = context(call) == CallContext.DEFAULT ? null : workload.second();
      Limits limits = fallThrough(context == null ? null : context.groups().get(group), workload.groups().get(group), null);
      return limits.equals(Limits.NONE) ? null : limits;
    }

    /** Limits as the engine tells them apart: by value, a rate by its permits and window. */
    static String identity(Limits limits) {
      Rate rate = limits.rate();
      return limits.inFlight() + "/" + (rate == null ? "-" : rate.permits() + " per " + rate.per().toNanos());
    }

    /** The places a call takes (its queue's, SPEC P8, and each of its groups' with a cap, P6) with their caps. */
    Map<String, Integer> caps(int call) {
      Map<String, Integer> caps = new LinkedHashMap<>();
      Limits host = hostLimits(call);
      StringBuilder queue = new StringBuilder("queue " + workload.names().get(workload.calls().get(call).host()) + " " + identity(host));
      for (int g = 0; g < GROUPS.size(); g++) {
        Limits group = groupLimits(call, g);
        if (group != null) {
          queue.append(" via ").append(GROUPS.get(g)).append(' ').append(identity(group));
          if (group.inFlight() != null) {
            caps.put("group " + GROUPS.get(g) + " " + identity(group), group.inFlight());
          }
        }
      }
      caps.put(queue.toString(), host.inFlight());
      return caps;
    }

    /** The rates that space a call's start: its host's and its groups', each of a host or group and its limits (SPEC P8). */
    Map<String, Rate> rates(int call) {
      Map<String, Rate> rates = new LinkedHashMap<>();
      Limits host = hostLimits(call);
      if (host.rate() != null) {
        rates.put("host " + workload.names().get(workload.calls().get(call).host()) + " " + identity(host), host.rate());
      }
      for (int g = 0; g < GROUPS.size(); g++) {
        Limits group = groupLimits(call, g);
        if (group != null && group.rate() != null) {
          rates.put("group " + GROUPS.get(g) + " " + identity(group), group.rate());
        }
      }
      return rates;
    }

    enum State { NEW, WAITING, IN_FLIGHT, DONE }

    final Map<String, Integer> inFlight = new HashMap<>();
    final Map<String, List<Long>> starts = new HashMap<>();

    /**
     * When {@code call} may start as far as its limits go: never while one of its places is
     * taken, else once each rate's {@code permits}-th last start is a window (and its margin,
     * SPEC P1) ago.
     */
    long startableAt(int call) {
      for (Map.Entry<String, Integer> cap : caps(call).entrySet()) {
        if (inFlight.getOrDefault(cap.getKey(), 0) >= cap.getValue()) {
          return Long.MAX_VALUE;
        }
      }
      long at = Long.MIN_VALUE;
      for (Map.Entry<String, Rate> rate : rates(call).entrySet()) {
        List<Long> started = starts.getOrDefault(rate.getKey(), List.of());
        int permits = rate.getValue().permits();
        if (started.size() >= permits) {
          long per = rate.getValue().per().toNanos();
          at = Math.max(at, started.get(started.size() - permits) + per + Math.min(per / 50, RateState.MAX_MARGIN));
        }
      }
      return at;
    }

    void take(int call, int delta) {
      for (String cap : caps(call).keySet()) {
        inFlight.merge(cap, delta, Integer::sum);
      }
    }

    /** Replays what happened against the model; returns what the engine did that P6 and P7 do not allow. */
    List<String> check() {
      List<String> problems = new ArrayList<>();
      int n = workload.calls().size();
      State[] states = new State[n];
      java.util.Arrays.fill(states, State.NEW);
      long at = 0;
      for (Event event : events) {
        if (event.at() != at) {
          quiet(states, at, event.at(), problems);
          at = event.at();
        }
        int call = event.call();
        String name = String.format(Locale.ROOT, "%.3f: #%d", at / 1e9, call);
        switch (event.kind()) {
          case ARRIVED -> states[call] = State.WAITING;
          case CANCELLED -> {
            if (states[call] == State.IN_FLIGHT) {
              take(call, -1);
            }
            states[call] = State.DONE;
          }
          case SENT -> {
            if (states[call] != State.WAITING) {
              problems.add(name + " was sent while " + states[call]);
              continue;
            }
            long startable = startableAt(call);
            if (startable > at) { // times count from the origin: no wrap-around here
              problems.add(name + " started though its host or a group holds it back "
                  + (startable == Long.MAX_VALUE ? "(no place)" : "until " + startable / 1e9) + " (SPEC P6)");
            }
            for (int older = 0; older < call; older++) {
              if (states[older] == State.WAITING) {
                if (startableAt(older) <= at) {
                  problems.add(name + " started before the older #" + older + ", which could start too (SPEC P7)");
                } else {
                  passedOver++;
                }
              }
            }
            states[call] = State.IN_FLIGHT;
            take(call, 1);
            for (String rate : rates(call).keySet()) {
              starts.computeIfAbsent(rate, k -> new ArrayList<>()).add(at);
            }
          }
          case ANSWERED, DIED -> {
            if (states[call] == State.IN_FLIGHT) {
              take(call, -1);
              states[call] = event.kind() == Kind.DIED ? State.WAITING : State.DONE; // sent again under its arrival (SPEC T6)
            } else {
              problems.add(name + " ended while " + states[call]);
            }
          }
          case ENDED_BY_ENGINE -> {
            if (states[call] != State.DONE) {
              problems.add(name + " was ended by the engine while " + states[call]);
            }
          }
        }
      }
      quiet(states, at, Long.MAX_VALUE, problems);
      for (int call = 0; call < n; call++) {
        if (states[call] != State.DONE) {
          problems.add("#" + call + " is " + states[call] + " at the end");
        } else if (!futures.get(call).isCancelled() && !Integer.valueOf(200).equals(futures.get(call).getNow(null))) {
          // getNow, not join: a call the engine lost never completes, and is a problem, not a hang
          problems.add("#" + call + " completed with " + futures.get(call).getNow(null) + " (null: not at all)");
        }
      }
      return problems;
    }

    /** Between {@code from} and {@code to} nothing happened: no waiting call could start in that time. */
    void quiet(State[] states, long from, long to, List<String> problems) {
      for (int call = 0; call < states.length; call++) {
        if (states[call] == State.WAITING) {
          long startable = startableAt(call);
          if (startable != Long.MAX_VALUE && startable < to) {
            problems.add(String.format(Locale.ROOT, "#%d could start at %.3f, but was still waiting at %s", call,
                Math.max(startable, from) / 1e9, to == Long.MAX_VALUE ? "the end" : to / 1e9 + ""));
          }
        }
      }
    }

    /** A call's exchange: answers 200 after its latency, its first attempt's connection dying first when it is to. */
    final class Exchange extends ScriptedExchange<Integer> {
      private final int call;

      Exchange(int call) {
        super(ScriptedExchange.<Integer>builder(URI.create("http://" + workload.names().get(workload.calls().get(call).host()) + "/" + call),
            status -> status));
        this.call = call;
      }

      @Override
      public CompletableFuture<Integer> send() {
        boolean first = events.stream().noneMatch(e -> e.call() == call && e.kind() == Kind.SENT);
        log(Kind.SENT, call);
        CallSpec spec = workload.calls().get(call);
        boolean[] ended = {false};
        CompletableFuture<Integer> future = new CompletableFuture<>() {
          @Override
          public boolean cancel(boolean mayInterruptIfRunning) {
            if (!isDone() && !ended[0]) {
              ended[0] = true;
              log(Kind.ENDED_BY_ENGINE, call);
            }
            return super.cancel(mayInterruptIfRunning);
          }
        };
        time.schedule(() -> {
          if (future.isDone()) {
            return;
          }
          ended[0] = true;
          if (first && spec.dies()) {
            log(Kind.DIED, call);
            future.completeExceptionally(new FakeServer.DeadConnection());
          } else {
            log(Kind.ANSWERED, call);
            future.complete(200);
          }
        }, Duration.ofMillis(spec.latencyMillis()).toNanos());
        return future;
      }

      @Override
      public boolean diedBeforeAnswer(Throwable failure) {
        return failure instanceof FakeServer.DeadConnection;
      }
    }
  }

  /** Learns nothing from answers, so that the limits alone decide. */
  static final LearningRule LEARNS_NOTHING = new LearningRule() {
    @Override
    public long onRefusal(long now, long startedAt, long interval, long changedAt) {
      return 0;
    }

    @Override
    public long onAnswer(long now, long startedAt, long interval, long changedAt) {
      return 0;
    }

    @Override
    public String toString() {
      return "learns nothing";
    }
  };
}

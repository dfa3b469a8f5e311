package io.hostpace;

import io.hostpace.testing.LocalFleet;
import io.hostpace.testing.ScriptedExchange;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostState;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.ToIntFunction;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import org.jspecify.annotations.Nullable;

/**
 * Random workloads for {@link EnginePropertiesTest}, and a fake server of its own that runs
 * one in virtual time and records what it saw: every send with its time, host and attempt,
 * every end of an attempt (answered, failed, or cancelled by the engine), every discard, and
 * how each call's future completed.
 *
 * <p>The checks read only those observations and an independent model of the limits (which
 * limits a call gets for its host and groups, SPEC P4 to P6, P8), never the engine's own
 * bookkeeping, except for the snapshot and queue counts they are meant to check.
 *
 * <p>Everything is generated from jqwik {@link Arbitraries}, including the virtual clock's
 * origin, so a failing seed reproduces exactly and shrinks to a small workload.
 */
final class RandomWorkload {

  /** The hosts a workload may use: three under {@code *.example.org}, one also under {@code *.c.example.org}. */
  static final List<String> HOSTS =
      List.of("a.example.org", "b.example.org", "deep.c.example.org", "example.org", "x.test:8080");

  /** The groups a workload may limit. The apex {@code example.org} is in neither (SPEC P5). */
  static final List<String> GROUPS = List.of("*.example.org", "*.c.example.org");

  static final int DEFAULT_IN_FLIGHT = 32;
  static final int DEFAULT_RETRIES = 5;
  static final Duration DEFAULT_RETRY_DELAY_LIMIT = Duration.ofSeconds(60);

  private RandomWorkload() {}

  // ---------------------------------------------------------------- the workload

  /**
   * What the server answers one attempt: a status (and Retry-After, and what it announces of its
   * quota) after a latency, an IOException after a latency, or nothing, until the test cancels the
   * call {@code latencyMillis} after the send. A latency of 0 answers inside {@code send()} itself.
   */
  record Reply(int status, @Nullable String retryAfter, int latencyMillis, boolean fail, boolean hang,
      @Nullable Announced announced) {
    /** What attempts beyond a call's script get. */
    static final Reply AFTER_SCRIPT = new Reply(200, null, 100, false, false);

    /** A reply that announces nothing. */
    Reply(int status, @Nullable String retryAfter, int latencyMillis, boolean fail, boolean hang) {
      this(status, retryAfter, latencyMillis, fail, hang, null);
    }

    @Override
    public String toString() {
      if (hang) {
        return "hang(cancelled after " + latencyMillis + "ms)";
      }
      String what = fail ? "IOException" : status + (retryAfter != null ? "(RA " + retryAfter + ")" : "")
          + (announced != null ? "(" + announced + ")" : "");
      return what + "@" + latencyMillis + "ms";
    }
  }

  /**
   * What an answer announces of the host's quota (SPEC R8): {@code remaining} of {@code limit}
   * until a reset {@code resetSeconds} away, in one of the forms the engine reads: the IETF
   * draft's {@code RateLimit} as a dictionary (form 0) or with a {@code RateLimit-Policy} (1), or
   * the {@code X-RateLimit-*} fields (2). They pace a host; they neither refuse nor retry.
   */
  record Announced(int limit, int remaining, int resetSeconds, int form) {
    @Nullable String header(String name) {
      String key = name.toLowerCase(Locale.ROOT);
      return switch (form) {
        case 0 -> key.equals("ratelimit")
            ? "limit=" + limit + ", remaining=" + remaining + ", reset=" + resetSeconds : null;
        case 1 -> key.equals("ratelimit") ? "\"default\";r=" + remaining + ";t=" + resetSeconds
            : key.equals("ratelimit-policy") ? "\"default\";q=" + limit + ";w=" + resetSeconds : null;
        default -> switch (key) {
          case "x-ratelimit-limit" -> String.valueOf(limit);
          case "x-ratelimit-remaining" -> String.valueOf(remaining);
          case "x-ratelimit-reset-after" -> String.valueOf(resetSeconds);
          default -> null;
        };
      };
    }

    @Override
    public String toString() {
      return "RL " + remaining + "/" + limit + " reset " + resetSeconds + "s" + (form == 0 ? "" : form == 1 ? " policy" : " X-");
    }
  }

  /**
   * One call: its host (an index into the workload's hosts, modulo their number), whether it
   * goes with the second context, the virtual time before it is submitted, the server's script
   * by attempt, when the test cancels it (after submission), and whether its body can be resent.
   */
  record CallSpec(
      int host, boolean second, int gapMillis, List<Reply> script, @Nullable Integer cancelAfterMillis,
      boolean canResend) {

    Reply reply(int attempt) {
      return attempt <= script.size() ? script.get(attempt - 1) : Reply.AFTER_SCRIPT;
    }

    @Override
    public String toString() {
      return "call(host " + host + (second ? ", ctx2" : "") + ", +" + gapMillis + "ms, " + script
          + (cancelAfterMillis != null ? ", cancel@" + cancelAfterMillis + "ms" : "")
          + (canResend ? "" : ", stream") + ")";
    }
  }

  /** The second context: limits by host and by group (null: none), a retry count, and SPEC T2's 500. */
  record ContextSpec(
      List<@Nullable Limits> hosts, List<@Nullable Limits> groups, @Nullable Integer retries,
      boolean retry500, int fallbackMillis) {}

  /**
   * The engine: retries and retry delay limit (null: defaults), learning rule, the clock's origin,
   * a quota its store knows for one host or group (null: none), and the fleet it is one process of
   * (null: none).
   */
  record EngineSpec(
      @Nullable Integer retries, @Nullable Integer retryDelayLimitMillis, boolean forgetful, long origin,
      @Nullable KnownQuota known, @Nullable FleetSpec fleet) {}

  /**
   * A fleet in this JVM of which the engine is the one process (SPEC S2), whose answers take
   * {@code latencyMillis}; without {@code waitingClaims}, one that keeps no claim waiting for a
   * place, as {@code Fleet}'s default claim does. For {@code downForMillis} from {@code
   * downAtMillis} (0: never) the engine cannot reach it (SPEC S4, {@link UnreachableFleet}).
   */
  record FleetSpec(int latencyMillis, boolean waitingClaims, int downAtMillis, int downForMillis) {
    /** A fleet the engine always reaches. */
    FleetSpec(int latencyMillis, boolean waitingClaims) {
      this(latencyMillis, waitingClaims, 0, 0);
    }
  }

  /**
   * A quota the store knows for {@link #HOSTS}' or, past them, {@link #GROUPS}' key {@code key}
   * (kept from another run, SPEC S1): {@code permits} starts a window of {@code windowMillis}.
   */
  record KnownQuota(int key, int permits, int windowMillis) {
    String keyName() {
      return key < HOSTS.size() ? HOSTS.get(key) : GROUPS.get(key - HOSTS.size());
    }
  }

  /** Engine limits for the first hosts of {@link #HOSTS} (null: none) and for {@link #GROUPS}. */
  record Workload(
      EngineSpec engine, List<@Nullable Limits> hosts, List<@Nullable Limits> groups,
      @Nullable ContextSpec second, List<CallSpec> calls) {}

  /**
   * Processes of one fleet (SPEC S2), two or three: each a workload of its own (engine settings
   * and calls) with the first's limits (by host, by group, and the second context's), as a fleet's
   * workers are configured alike. The fleet's {@code downAtMillis} and {@code downForMillis} hold
   * for every process at once, as when the fleet itself is out of reach; or, {@code apart}, one
   * process after another, each alone out of reach (its network), process {@code p} from {@code
   * downAtMillis + p * downForMillis}.
   */
  record FleetWorkload(FleetSpec fleet, boolean apart, List<Workload> processes) {
    /** Processes that lose the fleet together, if at all. */
    FleetWorkload(FleetSpec fleet, List<Workload> processes) {
      this(fleet, false, processes);
    }
  }

  // ---------------------------------------------------------------- generators

  static Arbitrary<Workload> workloads() {
    return Combinators.combine(
            engines(),
            limits().injectNull(0.25).list().ofMinSize(1).ofMaxSize(HOSTS.size()),
            limits().injectNull(0.4).list().ofSize(GROUPS.size()),
            contexts().injectNull(0.4),
            calls().list().ofMinSize(1).ofMaxSize(25))
        .as(Workload::new);
  }

  static Arbitrary<EngineSpec> engines() {
    Arbitrary<Long> origin = Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just(0L)),
        Tuple.of(8, Arbitraries.longs().between(-(1L << 62), 1L << 62)),
        // the monotonic clock wraps around during the run
        Tuple.of(1, Arbitraries.just(Long.MAX_VALUE - Duration.ofSeconds(2).toNanos())));
    Arbitrary<KnownQuota> known = Combinators.combine(
            Arbitraries.integers().between(0, HOSTS.size() + GROUPS.size() - 1),
            Arbitraries.integers().between(1, 5),
            Arbitraries.integers().between(2, 40).map(n -> n * 250))
        .as(KnownQuota::new);
    return Combinators.combine(
            Arbitraries.integers().between(0, 5).injectNull(0.5),
            Arbitraries.integers().between(0, 12).map(n -> n * 250).injectNull(0.6),
            Arbitraries.of(false, true),
            origin,
            known.injectNull(0.6),
            fleets().injectNull(0.75))
        .as(EngineSpec::new);
  }

  /** 0 to 30 ms away, keeping claims waiting or not, a third of them out of reach once for 0.5 to 20 s. */
  static Arbitrary<FleetSpec> fleets() {
    return Combinators.combine(
            Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(0)), Tuple.of(2, Arbitraries.integers().between(1, 30))),
            Arbitraries.of(false, true),
            Arbitraries.integers().between(0, 40).map(n -> n * 250),
            Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(0)), Tuple.of(1, Arbitraries.integers().between(2, 80).map(n -> n * 250))))
        .as(FleetSpec::new);
  }

  static Arbitrary<FleetWorkload> fleetWorkloads() {
    return Combinators.combine(fleets(), Arbitraries.of(false, true), workloads().list().ofMinSize(2).ofMaxSize(3))
        .as((fleet, apart, workloads) -> {
          Workload first = workloads.get(0);
          List<Workload> processes = new ArrayList<>();
          for (Workload own : workloads) {
            EngineSpec e = own.engine();
            processes.add(new Workload(
                new EngineSpec(e.retries(), e.retryDelayLimitMillis(), e.forgetful(), e.origin(), e.known(), null),
                first.hosts(), first.groups(), first.second(), own.calls()));
          }
          return new FleetWorkload(fleet, apart, processes);
        });
  }

  static Arbitrary<ContextSpec> contexts() {
    return Combinators.combine(
            limits().injectNull(0.5).list().ofSize(HOSTS.size()),
            limits().injectNull(0.7).list().ofSize(GROUPS.size()),
            Arbitraries.integers().between(0, 3).injectNull(0.5),
            Arbitraries.of(false, true),
            Arbitraries.integers().between(0, 8).map(n -> n * 250))
        .as(ContextSpec::new);
  }

  /** inFlight 1 to 5 or unset; no rate, a perSecond of 0.5 to 20, or a burst of 2 to 5 per 0.5 to 3 s. */
  static Arbitrary<Limits> limits() {
    Arbitrary<Rate> perSecond = Arbitraries.doubles().between(0.5, 20).ofScale(1).map(Rate::perSecond);
    Arbitrary<Rate> burst = Combinators.combine(
            Arbitraries.integers().between(2, 5), Arbitraries.integers().between(2, 12))
        .as((permits, quarters) -> Rate.of(permits, Duration.ofMillis(quarters * 250L)));
    Arbitrary<Rate> rate = Arbitraries.frequencyOf(Tuple.of(1, perSecond), Tuple.of(1, burst));
    return Combinators.combine(Arbitraries.integers().between(1, 5).injectNull(0.2), rate.injectNull(0.4))
        .as(Limits::new);
  }

  static Arbitrary<CallSpec> calls() {
    Arbitrary<Integer> gap = Arbitraries.frequencyOf(
        Tuple.of(5, Arbitraries.just(0)),
        Tuple.of(3, Arbitraries.integers().between(1, 10).map(n -> n * 50)),
        Tuple.of(3, Arbitraries.integers().between(1, 40).map(n -> n * 50)),
        Tuple.of(1, Arbitraries.integers().between(1, 20).map(n -> n * 500)));
    Arbitrary<Integer> cancel = Arbitraries.integers().between(0, 100).map(n -> n * 50).injectNull(0.75);
    return Combinators.combine(
            Arbitraries.integers().between(0, HOSTS.size() - 1),
            Arbitraries.of(false, true),
            gap,
            replies().list().ofMinSize(1).ofMaxSize(7),
            cancel,
            Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false))))
        .as(CallSpec::new);
  }

  static Arbitrary<Reply> replies() {
    Arbitrary<Integer> latency = Arbitraries.frequencyOf(
        Tuple.of(2, Arbitraries.just(0)),
        Tuple.of(4, Arbitraries.integers().between(1, 10).map(n -> n * 50)),
        Tuple.of(4, Arbitraries.integers().between(1, 60).map(n -> n * 50)));
    Arbitrary<String> retryAfter = Arbitraries.of("0", "0.25", "0.5", "1", "1.5", "2", "2.75", "3");
    return Combinators.combine(scripted(latency, retryAfter), announcements().injectNull(0.8))
        .as((reply, announced) -> reply.fail() || reply.hang() ? reply
            : new Reply(reply.status(), reply.retryAfter(), reply.latencyMillis(), false, false, announced));
  }

  /** A limit of 1 to 5, 0 to all of it remaining, a reset 1 to 4 s away, in any of the three forms. */
  static Arbitrary<Announced> announcements() {
    return Combinators.combine(
            Arbitraries.integers().between(1, 5), Arbitraries.integers().between(0, 5),
            Arbitraries.integers().between(1, 4), Arbitraries.integers().between(0, 2))
        .as((limit, remaining, reset, form) -> new Announced(limit, Math.min(limit, remaining), reset, form));
  }

  private static Arbitrary<Reply> scripted(Arbitrary<Integer> latency, Arbitrary<String> retryAfter) {
    return Arbitraries.frequencyOf(
        Tuple.of(6, latency.map(ms -> new Reply(200, null, ms, false, false))),
        Tuple.of(2, latency.map(ms -> new Reply(429, null, ms, false, false))),
        Tuple.of(3, Combinators.combine(Arbitraries.of(429, 503), retryAfter, latency)
            .as((status, after, ms) -> new Reply(status, after, ms, false, false))),
        Tuple.of(1, latency.map(ms -> new Reply(405, null, ms, false, false))),
        Tuple.of(1, Combinators.combine(retryAfter, latency).as((after, ms) -> new Reply(405, after, ms, false, false))),
        Tuple.of(1, latency.map(ms -> new Reply(500, null, ms, false, false))),
        Tuple.of(1, latency.map(ms -> new Reply(0, null, ms, true, false))),
        Tuple.of(1, Arbitraries.integers().between(0, 20).map(n -> new Reply(0, null, n * 500, false, true))));
  }

  // ---------------------------------------------------------------- the model

  static String hostName(int host) {
    return HOSTS.get(host);
  }

  static boolean inGroup(int host, int group) {
    String name = HOSTS.get(host);
    int colon = name.indexOf(':');
    if (colon >= 0) {
      name = name.substring(0, colon);
    }
    return name.endsWith(GROUPS.get(group).substring(1));
  }

  /** Each field from the first level that sets it (SPEC P4). */
  private static Limits fallThrough(@Nullable Limits context, @Nullable Limits engine, @Nullable Integer inFlight) {
    Limits c = context != null ? context : Limits.NONE;
    Limits e = engine != null ? engine : Limits.NONE;
    Integer places = c.inFlight() != null ? c.inFlight() : e.inFlight() != null ? e.inFlight() : inFlight;
    Rate rate = c.rate() != null ? c.rate() : e.rate();
    return new Limits(places, rate);
  }

  // ---------------------------------------------------------------- a run

  /** What the fake server answered. Compared by identity. */
  static final class Answer {
    final Attempt attempt;
    final int status;
    final @Nullable String retryAfter;
    final @Nullable Announced announced;
    int discards;

    Answer(Attempt attempt, int status, @Nullable String retryAfter, @Nullable Announced announced) {
      this.attempt = attempt;
      this.status = status;
      this.retryAfter = retryAfter;
      this.announced = announced;
    }

    @Override
    public String toString() {
      return status + " of call #" + attempt.call.id + " attempt " + attempt.number;
    }
  }

  /** One send() of a call. */
  static final class Attempt {
    final CallRecord call;
    final int number;
    final Reply reply;
    final long startSeq;
    final long startNanos;
    /** Queue and gate identities this attempt passes, with their caps (SPEC P1, P6, P8). */
    final Map<String, Integer> caps;
    /** Rate identities this attempt is spaced by. */
    final Map<String, Rate> rates;
    boolean ended;
    long endNanos;
    @Nullable Answer answer;
    @Nullable IOException failure;
    boolean cancelledByEngine;

    Attempt(CallRecord call, int number, Reply reply, long startSeq, long startNanos,
        Map<String, Integer> caps, Map<String, Rate> rates) {
      this.call = call;
      this.number = number;
      this.reply = reply;
      this.startSeq = startSeq;
      this.startNanos = startNanos;
      this.caps = caps;
      this.rates = rates;
    }
  }

  /** What the test knows of one call. */
  static final class CallRecord {
    final int id;
    final CallSpec spec;
    final int host;
    final boolean second;
    final List<Attempt> attempts = new ArrayList<>();
    @Nullable CompletableFuture<Answer> future;
    int completions;
    @Nullable Object value;
    @Nullable Throwable failure;
    long completedNanos = -1;
    boolean cancelledByTest;
    /** Where the call was when the test cancelled it: "waiting", "in flight", "between attempts". */
    @Nullable String cancelledWhile;

    CallRecord(int id, CallSpec spec, int host, boolean second) {
      this.id = id;
      this.spec = spec;
      this.host = host;
      this.second = second;
    }

    @Nullable Attempt last() {
      return attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
    }
  }

  /** A start or an end of an attempt, in the order the server saw them. */
  record Event(boolean start, Attempt attempt) {}

  /** What the model expects of a call nobody cancels: how many attempts, and the last one's reply. */
  record Expected(int attempts, Reply last) {}

  /** One workload run to idle on a fresh engine in virtual time. */
  static final class Run {
    final Workload workload;
    final VirtualTime time;
    final long origin;
    final Hostpace engine;
    final @Nullable CallContext second;
    final List<CallRecord> calls = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
    final List<String> trace;
    /** The processes it is one of, or null: a run alone. */
    private final @Nullable Processes processes;
    /** How its trace lines begin: the process's name, or nothing for a run alone. */
    private final String name;
    /** What a plain run's listener heard, each event as it prints. */
    final List<String> heard = new ArrayList<>();
    /** Breaches of the Exchange contract seen by the fake server as they happened. */
    final List<String> contract = new ArrayList<>();
    long seq;

    // at the end
    int pendingTasksAtEnd;
    List<HostSnapshot> snapshotAtEnd = List.of();
    int queueCountAtEnd;
    int nodeCountAfterForget;
    List<HostSnapshot> snapshotAfterForget = List.of();

    private Run(Workload workload) {
      this(workload, false, false, null, "");
    }

    /**
     * {@code plain}: the engine's own rule whatever the workload's, no fleet, and a listener that
     * records every event in {@link #heard}, so that nothing in its set-up keeps it off the local
     * path; {@code locked} then gives it a store of its own, which does keep it off.
     */
    private Run(Workload workload, boolean plain, boolean locked, @Nullable Processes processes, String name) {
      this.workload = workload;
      this.processes = processes;
      this.name = name;
      this.origin = processes != null ? processes.origin : workload.engine().origin();
      this.time = processes != null ? processes.time
          : clockFrom(origin);
      this.trace = processes != null ? processes.trace : new ArrayList<>();
      Hostpace.Builder builder = Hostpace.builder().time(time);
      for (int i = 0; i < workload.hosts().size(); i++) {
        Limits limits = workload.hosts().get(i);
        if (limits != null) {
          builder.addLimit(HOSTS.get(i), limits);
        }
      }
      for (int g = 0; g < GROUPS.size(); g++) {
        Limits limits = workload.groups().get(g);
        if (limits != null) {
          builder.addLimit(GROUPS.get(g), limits);
        }
      }
      EngineSpec spec = workload.engine();
      if (spec.retries() != null) {
        builder.retries(spec.retries());
      }
      if (spec.retryDelayLimitMillis() != null) {
        builder.retryDelayLimit(Duration.ofMillis(spec.retryDelayLimitMillis()));
      }
      if (plain) {
        builder.addListener(event -> heard.add(event.toString()));
        builder.learningRule(LearningRule.hostpace());
      }
      if (locked) {
        builder.hostStateStore(HostStateStore.inMemory(state -> {}));
      }
      KnownQuota known = spec.known();
      if (!plain && known != null) {
        builder.hostStateStore(knowing(known));
      }
      if (plain) {
      } else if (!spec.forgetful()) {
        // The default rule, but for SPEC R10's spared retries (RetriesSparedTest's): these
        // properties hold every call to T1's retry count exactly, which R10 lets depend on what the
        // host gave other calls meanwhile.
        builder.learningRule(new SparingNoRetries(LearningRule.hostpace()));
      }
      if (!plain && spec.forgetful()) {
        builder.learningRule(new LearningRule() {
          @Override
          public long onRefusal(long now, long startedAt, long interval, long changedAt) {
            return LearningRule.seed().onRefusal(now, startedAt, interval, changedAt);
          }

          @Override
          public long onAnswer(long now, long startedAt, long interval, long changedAt) {
            return 0;
          }

          @Override
          public String toString() {
            return "forgetful";
          }
        });
      }
      FleetSpec fleet = spec.fleet();
      if (processes != null) {
        builder.fleet(processes.join(name));
      } else if (!plain && fleet != null) {
        Fleet member = new LocalFleet(time, time, Duration.ofMillis(fleet.latencyMillis())).join();
        UnreachableFleet reached = new UnreachableFleet(member, time, 1);
        reached.placesWait = fleet.waitingClaims();
        if (fleet.downForMillis() > 0) {
          time.schedule(() -> reached.down = true, Duration.ofMillis(fleet.downAtMillis()).toNanos());
          time.schedule(() -> reached.down = false,
              Duration.ofMillis(fleet.downAtMillis() + fleet.downForMillis()).toNanos());
        }
        builder.fleet(reached);
      }
      this.engine = builder.build();
      ContextSpec context = workload.second();
      if (context == null) {
        this.second = null;
      } else {
        CallContext.Builder b = CallContext.builder();
        for (int i = 0; i < HOSTS.size(); i++) {
          Limits limits = context.hosts().get(i);
          if (limits != null) {
            b.addLimit(HOSTS.get(i), limits);
          }
        }
        for (int g = 0; g < GROUPS.size(); g++) {
          Limits limits = context.groups().get(g);
          if (limits != null) {
            b.addLimit(GROUPS.get(g), limits);
          }
        }
        if (context.retries() != null) {
          b.retries(context.retries());
        }
        if (context.retry500()) {
          b.retryStatuses(Set.of(500));
        }
        b.retryFallbackDelay(Duration.ofMillis(context.fallbackMillis()));
        this.second = b.build();
      }
    }

    /** A store that knows {@code known}'s quota each time its key is opened, and nothing else. */
    private static HostStateStore knowing(KnownQuota known) {
      return new HostStateStore() {
        @Override
        public HostState open(String key) {
          HostState state = HostStateStore.inMemory().open(key);
          if (key.equals(known.keyName())) {
            state.quota(known.permits(), Duration.ofMillis(known.windowMillis()).toNanos());
          }
          return state;
        }

        @Override
        public void close(HostState state) {}
      };
    }

    /** Runs {@code workload} to idle, then forgets everything and runs to idle again. */
    static Run of(Workload workload) {
      Run run = new Run(workload);
      run.go();
      return run;
    }

    /** {@link #of}, on an engine with its own rule and a listener, and with a store of its own when {@code locked}. */
    static Run plain(Workload workload, boolean locked) {
      Run run = new Run(workload, true, locked, null, "");
      run.go();
      return run;
    }

    private void go() {
      for (CallSpec spec : workload.calls()) {
        time.advance(Duration.ofMillis(spec.gapMillis()));
        submit(spec);
      }
      time.runUntilIdle(Duration.ofDays(1));
      atIdle();
      engine.forgetAll();
      time.runUntilIdle(Duration.ofDays(1));
      forgotten();
    }

    /** Submits each call at its gap after the one before, on the timer: several processes' calls go together. */
    private void schedule() {
      long at = 0;
      for (CallSpec spec : workload.calls()) {
        at += Duration.ofMillis(spec.gapMillis()).toNanos();
        time.schedule(() -> submit(spec), at);
      }
    }

    private void submit(CallSpec spec) {
      int host = spec.host() % workload.hosts().size();
      boolean useSecond = spec.second() && second != null;
      CallRecord call = new CallRecord(calls.size(), spec, host, useSecond);
      calls.add(call);
      log("submit #" + call.id + " " + hostName(host) + (useSecond ? " ctx2" : "") + " " + spec);
      CompletableFuture<Answer> future =
          engine.execute(new FakeExchange(call), useSecond ? second : CallContext.DEFAULT);
      call.future = future;
      future.whenComplete((value, failure) -> {
        call.completions++;
        call.value = value;
        call.failure = failure;
        call.completedNanos = now();
        log("completed #" + call.id + " with " + (failure != null ? failure : value));
      });
      Integer cancelAfter = spec.cancelAfterMillis();
      if (cancelAfter != null) {
        time.schedule(() -> cancelByTest(call, "at random"), Duration.ofMillis(cancelAfter).toNanos());
      }
    }

    private void atIdle() {
      pendingTasksAtEnd = time.pendingTasks();
      snapshotAtEnd = engine.snapshot();
      queueCountAtEnd = GroupAndContextTest.queueCount(engine);
    }

    private void forgotten() {
      nodeCountAfterForget = engine.snapshot().size();
      snapshotAfterForget = engine.snapshot();
    }

    private void record(Event event) {
      events.add(event);
      if (processes != null) {
        processes.events.add(event);
      }
    }

    private void cancelByTest(CallRecord call, String why) {
      CompletableFuture<Answer> future = call.future;
      if (future == null || future.isDone()) {
        return;
      }
      Attempt last = call.last();
      String where = last == null ? "waiting" : !last.ended ? "in flight" : "between attempts";
      log("test cancels #" + call.id + " (" + why + ", " + where + ")");
      if (future.cancel(true)) {
        call.cancelledByTest = true;
        call.cancelledWhile = where;
      }
    }

    long now() {
      return time.nanoTime() - origin;
    }

    void log(String line) {
      trace.add(traceLine(now(), name + line));
    }

    /** The trace of the run, for a failure's message. */
    String trace() {
      StringBuilder text = new StringBuilder("engine ").append(engine).append('\n');
      if (second != null) {
        text.append("ctx2 ").append(second).append('\n');
      }
      for (String line : trace) {
        text.append(line).append('\n');
      }
      return text.toString();
    }

    // ---------------------------------------------------------------- the model of limits

    Limits hostLimits(int host, boolean useSecond) {
      ContextSpec context = workload.second();
      Limits fromContext = useSecond && context != null ? context.hosts().get(host) : null;
      return fallThrough(fromContext, workload.hosts().get(host), DEFAULT_IN_FLIGHT);
    }

    Limits groupLimits(int group, boolean useSecond) {
      ContextSpec context = workload.second();
      Limits fromContext = useSecond && context != null ? context.groups().get(group) : null;
      return fallThrough(fromContext, workload.groups().get(group), null);
    }

    int retries(CallRecord call) {
      ContextSpec context = workload.second();
      if (call.second && context != null && context.retries() != null) {
        return context.retries();
      }
      Integer engineRetries = workload.engine().retries();
      return engineRetries != null ? engineRetries : DEFAULT_RETRIES;
    }

    Duration retryDelayLimit() {
      Integer millis = workload.engine().retryDelayLimitMillis();
      return millis != null ? Duration.ofMillis(millis) : DEFAULT_RETRY_DELAY_LIMIT;
    }

    /** SPEC R1 to R3, T1 to T4: what happens to a call nobody cancels. */
    Expected expected(CallRecord call) {
      ContextSpec context = call.second ? workload.second() : null;
      Integer contextRetries = context != null ? context.retries() : null;
      int retries = retries(call);
      for (int attempt = 1; ; attempt++) {
        Reply reply = call.spec.reply(attempt);
        if (reply.hang() || reply.fail()) {
          return new Expected(attempt, reply);
        }
        boolean hasRetryAfter = reply.retryAfter() != null;
        boolean refusal = reply.status() == 429 || reply.status() == 503 || (reply.status() == 405 && hasRetryAfter);
        if (refusal) {
          if (hasRetryAfter
              && new BigDecimal(reply.retryAfter()).movePointRight(9).longValueExact() > retryDelayLimit().toNanos()) {
            return new Expected(attempt, reply);
          }
          if (attempt > retries || !call.spec.canResend()) {
            return new Expected(attempt, reply);
          }
          continue;
        }
        if (contextRetries == null || attempt > retries) {
          return new Expected(attempt, reply);
        }
        boolean listed = context.retry500() && reply.status() == 500;
        if (!listed || !call.spec.canResend()) {
          return new Expected(attempt, reply);
        }
      }
    }

    /** The queue and gate identities a call passes, with their caps. */
    private Map<String, Integer> caps(CallRecord call) {
      Map<String, Integer> caps = new LinkedHashMap<>();
      Limits host = hostLimits(call.host, call.second);
      StringBuilder queue = new StringBuilder("queue " + hostName(call.host) + " " + identity(host));
      for (int g = 0; g < GROUPS.size(); g++) {
        Limits group = groupLimits(g, call.second);
        if (inGroup(call.host, g) && !group.equals(Limits.NONE)) {
          queue.append(" via ").append(GROUPS.get(g)).append(' ').append(identity(group));
          if (group.inFlight() != null) {
            caps.put("group " + GROUPS.get(g) + " " + identity(group), group.inFlight());
          }
        }
      }
      caps.put(queue.toString(), host.inFlight());
      return caps;
    }

    /**
     * The caps of {@link #caps} that are the fleet's (SPEC S2): a group's, and its host's where the
     * host's in-flight limit was given by key, not the engine's default.
     */
    Map<String, Integer> fleetCaps(CallRecord call) {
      Map<String, Integer> caps = caps(call);
      ContextSpec context = workload.second();
      Limits fromContext = call.second && context != null ? context.hosts().get(call.host) : null;
      Limits fromEngine = workload.hosts().get(call.host);
      boolean given = fromContext != null && fromContext.inFlight() != null
          || fromEngine != null && fromEngine.inFlight() != null;
      if (!given) {
        caps.keySet().removeIf(key -> key.startsWith("queue "));
      }
      return caps;
    }

    /**
     * Limits as the engine tells them apart: by value, not by how they print. A rate of two a
     * second in a burst and one every 500 ms both read "2/s", and are two queues' limits (SPEC P8).
     */
    private static String identity(Limits limits) {
      Rate rate = limits.rate();
      return limits + (rate == null ? "" : " [" + rate.permits() + " per " + rate.per().toNanos() + " ns]");
    }

    /** The rate identities a call is spaced by: a rate belongs to a host or group and the limits it comes in (SPEC P8). */
    private Map<String, Rate> rates(CallRecord call) {
      Map<String, Rate> rates = new LinkedHashMap<>();
      Limits host = hostLimits(call.host, call.second);
      if (host.rate() != null) {
        rates.put("host " + hostName(call.host) + " " + identity(host), host.rate());
      }
      for (int g = 0; g < GROUPS.size(); g++) {
        Limits group = groupLimits(g, call.second);
        if (inGroup(call.host, g) && group.rate() != null) {
          rates.put("group " + GROUPS.get(g) + " " + identity(group), group.rate());
        }
      }
      return rates;
    }

    // ---------------------------------------------------------------- the fake exchange

    private void end(Attempt attempt, String how) {
      attempt.ended = true;
      attempt.endNanos = now();
      record(new Event(false, attempt));
      seq++;
      log("end #" + attempt.call.id + "." + attempt.number + " " + how);
    }

    /**
     * An attempt's future that ends the attempt at the server the moment the engine cancels it,
     * before any of its dependents run: the engine's own dependent frees the place and may send
     * the next request at once, and by then this one is no longer in flight.
     */
    final class AttemptFuture extends CompletableFuture<Answer> {
      private final Attempt attempt;

      AttemptFuture(Attempt attempt) {
        this.attempt = attempt;
      }

      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        if (!isDone() && !attempt.ended) {
          attempt.cancelledByEngine = true;
          end(attempt, "cancelled by the engine");
        }
        return super.cancel(mayInterruptIfRunning);
      }

      @Override
      public boolean completeExceptionally(Throwable failure) {
        if (!isDone() && !attempt.ended) {
          end(attempt, "completed exceptionally by someone else: " + failure);
        }
        return super.completeExceptionally(failure);
      }
    }

    /** A call's exchange with the fake server. */
    final class FakeExchange extends ScriptedExchange<Answer> {
      private final CallRecord call;
      private final URI uri;

      FakeExchange(CallRecord call) {
        this(call, URI.create("http://" + hostName(call.host) + "/" + call.id));
      }

      private FakeExchange(CallRecord call, URI uri) {
        super(ScriptedExchange.<Answer>builder(uri, response -> response.status)
            .method(call.spec.canResend() ? "GET" : "POST").canResend(call.spec.canResend())
            .headers((response, name) -> name.equalsIgnoreCase("Retry-After") ? response.retryAfter
                : response.announced != null ? response.announced.header(name) : null));
        this.call = call;
        this.uri = uri;
      }

      @Override
      public CompletableFuture<Answer> send() {
        int number = call.attempts.size() + 1;
        Attempt previous = call.last();
        if (previous != null && !previous.ended) {
          contract.add("call #" + call.id + " sent attempt " + number + " while attempt " + previous.number
              + " was still in flight");
        }
        if (previous != null && previous.answer != null && previous.answer.discards == 0) {
          contract.add("call #" + call.id + " sent attempt " + number + " before the response of attempt "
              + previous.number + " was discarded");
        }
        if (call.completions > 0 || call.cancelledByTest) {
          contract.add("call #" + call.id + " sent attempt " + number + " after its future completed"
              + (call.cancelledByTest ? " (cancelled by the test)" : ""));
        }
        Reply reply = call.spec.reply(number);
        Attempt attempt = new Attempt(call, number, reply, seq++, now(), caps(call), rates(call));
        call.attempts.add(attempt);
        record(new Event(true, attempt));
        log("send #" + call.id + "." + number + " " + uri.getAuthority() + " -> " + reply);
        CompletableFuture<Answer> future = new AttemptFuture(attempt);
        if (reply.hang()) {
          time.schedule(() -> cancelByTest(call, "hung"), Duration.ofMillis(reply.latencyMillis()).toNanos());
          return future;
        }
        Runnable answer = () -> {
          if (future.isDone()) {
            return;
          }
          // The server is done before its answer is heard: the place is free from here on.
          end(attempt, reply.fail() ? "failed" : "answered " + reply.status());
          if (reply.fail()) {
            IOException failure = new IOException("call #" + call.id + " attempt " + number + " failed");
            attempt.failure = failure;
            future.completeExceptionally(failure);
          } else {
            Answer response = new Answer(attempt, reply.status(), reply.retryAfter(), reply.announced());
            attempt.answer = response;
            future.complete(response);
          }
        };
        if (reply.latencyMillis() == 0) {
          answer.run();
        } else {
          time.schedule(answer, Duration.ofMillis(reply.latencyMillis()).toNanos());
        }
        return future;
      }

      @Override
      public void discard(Answer response) {
        response.discards++;
        log("discard " + response);
      }
    }

    // ---------------------------------------------------------------- the checks

    /** SPEC P1, P2, P6, P8: no queue and no group gate ever has more in flight than its cap. */
    List<String> inFlightProblems() {
      return RandomWorkload.inFlightProblems(events, attempt -> attempt.caps);
    }

    /** The start times of each rate identity, in the order they started. */
    Map<String, List<Long>> startsByRate() {
      return RandomWorkload.startsByRate(events);
    }

    Map<String, Rate> rateOf() {
      return RandomWorkload.rateOf(events);
    }

    /**
     * SPEC P1, P6, P8, P11, as {@link Rate} defines a rate: at most {@code permits} starts in any
     * window of length {@code per} (half open).
     */
    List<String> rateProblems() {
      return RandomWorkload.rateProblems(events, identity -> 16);
    }

    /** Every future is done, once, and how the model says: its last answer, its failure, or cancelled by the test. */
    List<String> completionProblems() {
      List<String> problems = new ArrayList<>();
      for (CallRecord call : calls) {
        String name = "call #" + call.id;
        CompletableFuture<Answer> future = call.future;
        if (future == null || !future.isDone()) {
          problems.add(name + " never completed");
          continue;
        }
        if (call.completions != 1) {
          problems.add(name + " completed " + call.completions + " times");
        }
        Expected expected = expected(call);
        if (call.cancelledByTest) {
          if (!future.isCancelled() || !(call.failure instanceof CancellationException)) {
            problems.add(name + " was cancelled by the test but completed with " + describe(call));
          }
          if (call.attempts.size() > expected.attempts()) {
            problems.add(name + " was sent " + call.attempts.size() + " times, the model expects at most "
                + expected.attempts());
          }
          continue;
        }
        if (future.isCancelled()) {
          problems.add(name + " was cancelled, but not by the test");
          continue;
        }
        if (call.attempts.size() != expected.attempts()) {
          problems.add(name + " was sent " + call.attempts.size() + " times, the model expects "
              + expected.attempts() + " (ending with " + expected.last() + ")");
          continue;
        }
        Attempt last = call.last();
        if (expected.last().fail()) {
          if (call.failure != last.failure || last.failure == null) {
            problems.add(name + " should have failed with " + last.failure + ", but completed with " + describe(call));
          }
        } else if (expected.last().hang()) {
          problems.add(name + " hung and yet was not cancelled by the test: " + describe(call));
        } else if (call.value != last.answer || last.answer == null) {
          problems.add(name + " should have completed with " + last.answer + ", but completed with " + describe(call));
        }
        // a 200 on some attempt is what the caller gets
        for (Attempt attempt : call.attempts) {
          if (attempt.answer != null && attempt.answer.status == 200 && call.value != attempt.answer) {
            problems.add(name + " was answered 200 on attempt " + attempt.number + " but completed with "
                + describe(call));
          }
        }
        if (call.completedNanos < last.endNanos) {
          problems.add(name + " completed before its last attempt ended");
        }
      }
      return problems;
    }

    private static String describe(CallRecord call) {
      return call.failure != null ? call.failure.toString() : String.valueOf(call.value);
    }

    /** SPEC T1, T3, T4, T5 and the Exchange contract: how often and when each call is sent, and what is discarded. */
    List<String> sendProblems() {
      List<String> problems = new ArrayList<>(contract);
      for (CallRecord call : calls) {
        String name = "call #" + call.id;
        int retries = retries(call);
        int sends = call.attempts.size();
        if (sends > 1 + retries) {
          problems.add(name + " was sent " + sends + " times with " + retries + " retries");
        }
        if (!call.spec.canResend()) {
          if (sends > 1) {
            problems.add(name + " cannot be resent but was sent " + sends + " times");
          }
          if (sends == 0 && !call.cancelledByTest) {
            problems.add(name + " cannot be resent and was never sent");
          }
        }
        if (sends == 0 && !call.cancelledByTest) {
          problems.add(name + " was never sent, yet nobody cancelled it");
        }
        for (Attempt attempt : call.attempts) {
          Answer answer = attempt.answer;
          if (answer == null) {
            continue;
          }
          boolean returned = call.value == answer;
          if (returned && answer.discards != 0) {
            problems.add(name + " returned " + answer + " and also discarded it");
          }
          if (!returned && answer.discards != 1) {
            problems.add(name + " discarded " + answer + " " + answer.discards + " times instead of once");
          }
        }
      }
      return problems;
    }

    /** SPEC P2, P10, T5: nothing is left in flight or waiting, and no queue, gate or node is held. */
    List<String> releaseProblems() {
      List<String> problems = new ArrayList<>();
      if (pendingTasksAtEnd != 0) {
        problems.add(pendingTasksAtEnd + " timer tasks still pending after a day of virtual time");
      }
      for (HostSnapshot host : snapshotAtEnd) {
        if (host.inFlight() != 0 || host.waiting() != 0) {
          problems.add("at the end " + host);
        }
      }
      if (queueCountAtEnd != 0) {
        problems.add("at the end the engine still holds " + queueCountAtEnd + " queues: " + snapshotAtEnd);
      }
      if (nodeCountAfterForget != 0 || !snapshotAfterForget.isEmpty()) {
        problems.add("after forgetAll() and time to idle the engine still holds " + nodeCountAfterForget
            + " hosts and groups: " + snapshotAfterForget);
      }
      for (CallRecord call : calls) {
        for (Attempt attempt : call.attempts) {
          if (!attempt.ended) {
            problems.add("call #" + call.id + " attempt " + attempt.number + " never ended at the server");
          }
        }
      }
      return problems;
    }
  }

  /** The processes of a {@link FleetWorkload}, run together on one virtual time and one {@link LocalFleet}. */
  static final class Processes {
    final FleetWorkload workload;
    final long origin;
    final VirtualTime time;
    final LocalFleet fleet;
    final List<Run> runs = new ArrayList<>();
    /** Every process's sends and ends, in the order the server saw them. */
    final List<Event> events = new ArrayList<>();
    final List<String> trace = new ArrayList<>();
    private final List<UnreachableFleet> members = new ArrayList<>();

    private Processes(FleetWorkload workload) {
      this.workload = workload;
      this.origin = workload.processes().get(0).engine().origin();
      this.time = clockFrom(origin);
      FleetSpec spec = workload.fleet();
      this.fleet = new LocalFleet(time, time, Duration.ofMillis(spec.latencyMillis()));
      if (spec.downForMillis() > 0 && !workload.apart()) {
        time.schedule(() -> members.forEach(member -> member.down = true), Duration.ofMillis(spec.downAtMillis()).toNanos());
        time.schedule(() -> members.forEach(member -> member.down = false),
            Duration.ofMillis(spec.downAtMillis() + spec.downForMillis()).toNanos());
      }
    }

    /** The processes of {@code workload} run together to idle, then each forgets everything and they run to idle again. */
    static Processes of(FleetWorkload workload) {
      Processes processes = new Processes(workload);
      for (int p = 0; p < workload.processes().size(); p++) {
        processes.runs.add(new Run(workload.processes().get(p), false, false, processes, "p" + p + " "));
      }
      for (Run run : processes.runs) {
        run.schedule();
      }
      processes.time.runUntilIdle(Duration.ofDays(1));
      for (Run run : processes.runs) {
        run.atIdle();
      }
      for (Run run : processes.runs) {
        run.engine.forgetAll();
      }
      processes.time.runUntilIdle(Duration.ofDays(1));
      for (Run run : processes.runs) {
        run.forgotten();
      }
      return processes;
    }

    /** A new process's member of the fleet, whose claims and their answers go to the trace under {@code name}. */
    Fleet join(String name) {
      UnreachableFleet member = new UnreachableFleet(fleet.join(), time, workload.processes().size());
      FleetSpec spec = workload.fleet();
      member.placesWait = spec.waitingClaims();
      if (spec.downForMillis() > 0 && workload.apart()) {
        long from = Duration.ofMillis(spec.downAtMillis() + (long) members.size() * spec.downForMillis()).toNanos();
        time.schedule(() -> member.down = true, from);
        time.schedule(() -> member.down = false, from + Duration.ofMillis(spec.downForMillis()).toNanos());
      }
      members.add(member);
      return new ForwardingFleet(member) {
        @Override
        public void claimStart(List<String> keys, long[] intervalNanos, LongConsumer then) {
          log(name + "claims a start of " + keys);
          super.claimStart(keys, intervalNanos, delay -> {
            log(name + "start of " + keys + (delay == 0 ? " granted" : delay == UNCLAIMED ? " unclaimed"
                : String.format(Locale.ROOT, ": ask again in %.6f s", delay / 1e9)));
            then.accept(delay);
          });
        }

        @Override
        public void claimPlace(String key, long place, int limit, long leaseNanos, LongConsumer then) {
          log(name + "claims place " + place + " of " + key);
          super.claimPlace(key, place, limit, leaseNanos, held -> {
            log(name + "place " + place + " of " + key + (held > 0 ? " granted" : held == UNCLAIMED ? " unclaimed" : " all held"));
            then.accept(held);
          });
        }

        @Override
        public void claimPlace(String key, long place, int limit, LongConsumer then, LongConsumer granted) {
          log(name + "claims place " + place + " of " + key + ", waiting");
          member.claimPlace(key, place, limit, held -> {
            log(name + "place " + place + " of " + key + (held > 0 ? " granted" : held == UNCLAIMED ? " unclaimed" : " waits"));
            then.accept(held);
          }, held -> {
            log(name + "place " + place + " of " + key + " granted after its wait");
            granted.accept(held);
          });
        }

        @Override
        public void releasePlace(String key, long place) {
          log(name + "releases place " + place + " of " + key);
          super.releasePlace(key, place);
        }
      };
    }

    void log(String line) {
      trace.add(traceLine(time.nanoTime() - origin, line));
    }

    /**
     * SPEC S2: no host or group has more in flight at the server, all processes together, than the
     * in-flight limit given it by key (a learned one is lower), as long as the fleet could be
     * reached (SPEC S4: each process then holds its places alone).
     */
    List<String> inFlightProblems() {
      return RandomWorkload.inFlightProblems(events, attempt -> runs.get(0).fleetCaps(attempt.call));
    }

    /**
     * SPEC S2, P11: no host or group, all processes together, starts more than its rate allows, but
     * for S2's sixteenths. A start goes within a sixteenth of the spacing after its grant, from
     * which the fleet spaces the next, so a rate's window is fifteen sixteenths of its own; and
     * the fleet holds a start to the shortest interval claimed of its host or group lately where
     * its own is longer by no more than a sixteenth of itself, so where another rate of the same
     * host or group is shorter (another context's), fourteen.
     */
    List<String> rateProblems() {
      Map<String, Rate> rates = rateOf(events);
      return RandomWorkload.rateProblems(events, identity -> {
        String key = keyOf(identity);
        long spacing = spacing(rates.get(identity));
        boolean shorter = rates.entrySet().stream()
            .anyMatch(other -> keyOf(other.getKey()).equals(key) && spacing(other.getValue()) < spacing);
        return shorter ? 14 : 15;
      });
    }

    /** The host or group of a rate identity: its kind and name, "host a.example.org". */
    private static String keyOf(String identity) {
      int first = identity.indexOf(' ');
      return identity.substring(0, identity.indexOf(' ', first + 1));
    }

    private static long spacing(Rate rate) {
      return rate.per().toNanos() / rate.permits();
    }

    /** The trace of every process, for a failure's message. */
    String trace() {
      StringBuilder text = new StringBuilder("fleet ").append(workload.fleet()).append('\n');
      for (int p = 0; p < runs.size(); p++) {
        text.append('p').append(p).append(" engine ").append(runs.get(p).engine).append('\n');
      }
      Run first = runs.get(0);
      if (first.second != null) {
        text.append("ctx2 ").append(first.second).append('\n');
      }
      for (String line : trace) {
        text.append(line).append('\n');
      }
      return text.toString();
    }
  }

  /** A run's virtual time, its monotonic clock at {@code origin}: the same wall-clock day for every run. */
  private static VirtualTime clockFrom(long origin) {
    return VirtualTime.startingAt(origin, Instant.parse("2026-01-01T00:00:00Z"));
  }

  /** A line of a run's trace, {@code nanos} after its start, to the microsecond (a fleet's round trips are a few milliseconds). */
  private static String traceLine(long nanos, String text) {
    return String.format(Locale.ROOT, "%12.6f %s", nanos / 1e9, text);
  }

  // ---------------------------------------------------------------- checks over sends, of one process or several

  /** No limiter of {@code caps} ever has more attempts of {@code events} in flight than its cap. */
  static List<String> inFlightProblems(List<Event> events, Function<Attempt, Map<String, Integer>> caps) {
    List<String> problems = new ArrayList<>();
    Map<String, Integer> inFlight = new LinkedHashMap<>();
    for (Event event : events) {
      Attempt attempt = event.attempt();
      for (Map.Entry<String, Integer> limiter : caps.apply(attempt).entrySet()) {
        int count = inFlight.merge(limiter.getKey(), event.start() ? 1 : -1, Integer::sum);
        if (event.start() && count > limiter.getValue()) {
          problems.add(String.format(Locale.ROOT, "%.3f: %s had %d in flight, cap %d, on send #%d.%d",
              attempt.startNanos / 1e9, limiter.getKey(), count, limiter.getValue(), attempt.call.id, attempt.number));
        }
      }
    }
    for (Map.Entry<String, Integer> left : inFlight.entrySet()) {
      if (left.getValue() != 0) {
        problems.add(left.getKey() + " still had " + left.getValue() + " in flight at the end");
      }
    }
    return problems;
  }

  /** The start times of each rate identity, in the order they started. */
  static Map<String, List<Long>> startsByRate(List<Event> events) {
    Map<String, List<Long>> starts = new LinkedHashMap<>();
    for (Event event : events) {
      if (event.start()) {
        for (String key : event.attempt().rates.keySet()) {
          starts.computeIfAbsent(key, k -> new ArrayList<>()).add(event.attempt().startNanos);
        }
      }
    }
    return starts;
  }

  static Map<String, Rate> rateOf(List<Event> events) {
    Map<String, Rate> rates = new LinkedHashMap<>();
    for (Event event : events) {
      rates.putAll(event.attempt().rates);
    }
    return rates;
  }

  /**
   * SPEC P1, P6, P8, P11, as {@link Rate} defines a rate: at most {@code permits} starts in any
   * window (half open) of {@code sixteenths} sixteenths of {@code per}, by rate identity.
   */
  static List<String> rateProblems(List<Event> events, ToIntFunction<String> sixteenths) {
    List<String> problems = new ArrayList<>();
    Map<String, Rate> rates = rateOf(events);
    for (Map.Entry<String, List<Long>> entry : startsByRate(events).entrySet()) {
      Rate rate = rates.get(entry.getKey());
      int parts = sixteenths.applyAsInt(entry.getKey());
      long per = parts == 16 ? rate.per().toNanos() : rate.per().toNanos() / 16 * parts;
      List<Long> starts = entry.getValue();
      int from = 0;
      for (int to = 0; to < starts.size(); to++) {
        while (starts.get(to) - starts.get(from) >= per) {
          from++;
        }
        if (to - from + 1 > rate.permits()) {
          problems.add(String.format(Locale.ROOT, "%s: %d starts from %.6f to %.6f, within %s",
              entry.getKey(), to - from + 1, starts.get(from) / 1e9, starts.get(to) / 1e9, Duration.ofNanos(per)));
          break;
        }
      }
    }
    return problems;
  }

  /** A rule that learns as {@code rule} does and spends a retry on every refusal (SPEC T1). */
  static final class SparingNoRetries implements LearningRule {
    private final LearningRule rule;

    SparingNoRetries(LearningRule rule) {
      this.rule = rule;
    }

    @Override
    public long onRefusal(long now, long startedAt, long interval, long changedAt) {
      return rule.onRefusal(now, startedAt, interval, changedAt);
    }

    @Override
    public long onAnswer(long now, long startedAt, long interval, long changedAt) {
      return rule.onAnswer(now, startedAt, interval, changedAt);
    }

    @Override
    public long onRefusal(long now, long startedAt, HostState host) {
      return rule.onRefusal(now, startedAt, host);
    }

    @Override
    public long onAnswer(long now, long startedAt, HostState host) {
      return rule.onAnswer(now, startedAt, host);
    }

    @Override
    public int inFlightAfterPause(long now, long startedAt, int inFlightAtStart, HostState host) {
      return rule.inFlightAfterPause(now, startedAt, inFlightAtStart, host);
    }

    @Override
    public int inFlightAfterAnswer(long now, long startedAt, int inFlightAtStart, HostState host) {
      return rule.inFlightAfterAnswer(now, startedAt, inFlightAtStart, host);
    }

    @Override
    public int openingInFlight() {
      return rule.openingInFlight();
    }

    @Override
    public String toString() {
      return rule.toString();
    }
  }
}

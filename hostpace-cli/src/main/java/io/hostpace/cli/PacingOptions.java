package io.hostpace.cli;

import io.hostpace.CallContext;
import io.hostpace.HostStateFile;
import io.hostpace.Hostpace;
import io.hostpace.HostpaceListener;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.internal.NumberText;
import io.hostpace.internal.Redaction;
import io.hostpace.jdk.ExchangeFailures;
import io.hostpace.redis.RedisFleet;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options every command that sends requests shares: limits, retries, timeout, User-Agent
 * (SPEC I5: {@code --max-in-flight} and {@code --max-rate} set the context's limits). Each
 * check throws a usage error whose one line names the option and what is wrong.
 */
final class PacingOptions {

  @Spec(Spec.Target.MIXEE)
  @SuppressWarnings("NullAway.Init")
  CommandSpec spec;

  @Option(names = "--max-in-flight", paramLabel = "N",
      description = "requests in flight per host (default 32; each process's own with --fleet, where a --host inFlight is the fleet's)")
  @Nullable Integer maxInFlight;

  @Option(names = "--max-rate", paramLabel = "R",
      description = "starts per second per host, a decimal (default none)")
  @Nullable String maxRate;

  @Option(names = "--host", paramLabel = "KEY=SPEC",
      description = "limits for a host (host or host:port) or a *.domain group; SPEC is inFlight:N and/or "
          + "perSecond:R (or rate:N/PERIOD), comma separated; repeatable, e.g. --host 'qlever.dev=inFlight:1,perSecond:1'")
  List<String> hosts = new ArrayList<>();

  @Option(names = "--retries", paramLabel = "N", defaultValue = "5",
      description = "retries of a refused request, 0 to " + MAX_RETRIES + " (default ${DEFAULT-VALUE}); a refusal"
          + " while the host accepts others spends none, up to 2N+1 attempts")
  int retries;

  @Option(names = "--retry-delay-limit", paramLabel = "S", defaultValue = "60",
      description = "the longest pause a Retry-After may impose, seconds or with a unit: 90s, 2m, 1h (default ${DEFAULT-VALUE})")
  String retryDelayLimit = "60";

  @Option(names = "--timeout", paramLabel = "S", defaultValue = "60",
      description = "per attempt, for the whole answer, body included (proxy: for the headers, then for each wait for"
          + " more of the body), seconds or with a unit: 500ms, 30s, 2m; at least 1ms (default ${DEFAULT-VALUE})")
  String timeout = "60";

  @Option(names = "--user-agent", paramLabel = "UA", description = "the User-Agent of requests that set none")
  @Nullable String userAgent;

  @Option(names = "--state", paramLabel = "FILE",
      description = "keep what hosts taught (their pace, in-flight limit, quota, a pause not ended) in FILE across "
          + "runs: read at the start if it exists (held to this run's limits), written at the end, merged with "
          + "what other processes saved there since (the newest of each host is kept)")
  @Nullable Path state;

  /** The store of {@code --state}, once the engine is made. */
  private @Nullable HostStateFile kept;

  @Option(names = "--fleet", paramLabel = "NAME",
      description = "share what hosts teach, a paced host's starts, a gate's places (and the --host inFlight limits) "
          + "and a learned quota's windows with the other "
          + "processes of fleet NAME through Redis (--redis), so that together they are as polite as one")
  @Nullable String fleetName;

  @Option(names = "--redis", paramLabel = "URI",
      // Broken into lines by hand: picocli breaks a URI that ends a line at its colon.
      description = {"the Redis of --fleet: one server,",
          "redis://HOST[:PORT][/DB] (rediss://, redis+ssl://",
          "or redis+tls:// with TLS), or the Sentinels that",
          "name its master,",
          "redis-sentinel://HOST:PORT[,HOST:PORT...]#MASTER",
          "(rediss-sentinel:// with TLS); a password goes",
          "before the first HOST, as :PASSWORD@ or",
          "USER:PASSWORD@ (default " + DEFAULT_REDIS + ")"})
  @Nullable String redis;

  @Option(names = "--redis-cluster", paramLabel = "URI[,URI...]", split = ",",
      description = "the Redis Cluster of --fleet instead: one or more of its nodes, from which the others are found")
  @Nullable List<String> redisCluster;

  @Option(names = "--fleet-lease", paramLabel = "S",
      description = "how long a place of --fleet stays held after this process dies (it is renewed while it lives), "
          + "seconds or with a unit: 5s, 1m; 1s to a day (default 10s)")
  @Nullable String fleetLease;

  static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";

  /**
   * The most retries {@code --retries} takes: a refused call can wait up to its retry delay limit
   * for each, so more would hold one for hours at the default limit (and past what the engine's
   * arithmetic in nanoseconds holds at a limit of a year).
   */
  static final int MAX_RETRIES = 100;

  /** The shortest duration an option takes, a millisecond. */
  private static final BigDecimal SMALLEST = new BigDecimal("0.001");


  /** The fleet of {@code --fleet}, once the engine is made. */
  private @Nullable RedisFleet fleet;

  /** How each attempt's time is budgeted. */
  enum TimeoutPolicyName { fixed, adaptive }

  @Option(names = "--timeout-policy", paramLabel = "POLICY", defaultValue = "fixed",
      description = "fixed: every attempt gets --timeout; adaptive: each endpoint's budget follows what its "
          + "answers took, up to --timeout, and an endpoint that fails at once fails fast (default ${DEFAULT-VALUE})")
  TimeoutPolicyName timeoutPolicy = TimeoutPolicyName.fixed;

  @Option(names = "--config", paramLabel = "FILE",
      description = "read the hostpace.* keys of a properties file, the Spring Boot starter's (hostpace.hosts[KEY], "
          + "hostpace.max-in-flight, hostpace.retries ...): each is the option of its name; options given here "
          + "override it; $${NAME} in a value is the environment variable's, $${NAME:default} one that may be unset")
  @Nullable Path config;

  /**
   * Where an option's value came from when not from the command line: the key of the
   * {@code --config} file or the environment variable, to name in a message about it.
   */
  private final java.util.Map<String, String> sources = new java.util.HashMap<>();
  private boolean configured;
  /** The {@code --config} file, once read; null without one. */
  private @Nullable ConfigFile file;

  /**
   * The {@code --config} file these options read (its keys for other commands' options too), or
   * null without one; the file is read, and its keys checked, first.
   */
  @Nullable ConfigFile configFile() {
    configure();
    return file;
  }

  /** The environment: {@code ${NAME}} in {@code --config}, and the fleet's Redis. */
  java.util.function.Function<String, @Nullable String> environment = System::getenv;

  /** The environment variables that name the fleet's Redis, as Spring Boot binds them. */
  private static final String[][] REDIS_VARIABLES = {
      {"--redis", "HOSTPACE_REDIS"}, {"--redis-cluster", "HOSTPACE_REDISCLUSTER"}, {"--redis-cluster", "HOSTPACE_REDIS_CLUSTER"}};

  @Option(names = "--verbose",
      description = "print each decision of the engine (queued, started, refused, paused, paced, retried, gave up) "
          + "to stderr, a line each with the time and the host; warnings are printed in any case")
  boolean verbose;

  /**
   * The engine these options describe, heard by {@code listener}; with the adaptive policy, an
   * endpoint it holds down or degraded is probed with {@code probe} (SPEC D6), cut off after the
   * policy's floor, a tenth of {@code --timeout}.
   */
  Hostpace engine(HostpaceListener listener, io.hostpace.spi.Probe probe) {
    configure();
    if (verbose) {
      LogSetup.verbose();
    }
    if (retries < 0 || retries > MAX_RETRIES) {
      throw usage("--retries must be 0 to " + MAX_RETRIES + ", got " + retries);
    }
    Hostpace.Builder builder = Hostpace.builder()
        .retryDelayLimit(seconds("--retry-delay-limit", retryDelayLimit, true))
        .addListener(listener);
    // A count the user gave caps a call's attempts; the engine's own lets a host being learned
    // spend none of them on the refusals its slowing pace met (SPEC R10).
    if (given("--retries")) {
      builder.retries(retries);
    }
    if (timeoutPolicy == TimeoutPolicyName.adaptive) {
      Duration budget = timeout();
      builder.timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder()
          .defaultBudget(budget).floor(budget.dividedBy(10)).probe(budget.dividedBy(10)).build()));
      builder.probe(probe);
    }
    if (userAgent != null) {
      if (userAgent.isBlank()) {
        throw usage("--user-agent must not be blank");
      }
      builder.userAgent(HeaderOption.value("--user-agent", "User-Agent", userAgent, this::usage).value());
    }
    if (state != null) {
      // Written at the end: a file that cannot be is said now, before anything is fetched.
      FileOption.writableMakingFolders("--state", state, this::usage);
      try {
        kept = HostStateFile.load(state);
      } catch (java.nio.charset.CharacterCodingException e) {
        throw usage("--state '" + state + "' is not UTF-8 text, so not a host state file");
      } catch (IOException e) {
        throw usage("--state '" + state + "' cannot be read: " + Main.failure(e));
      } catch (IllegalArgumentException e) {
        throw usage("--state: " + e.getMessage());
      }
      builder.hostStateStore(kept);
    }
    if (redis != null && fleetName == null) {
      throw usage("--redis needs --fleet NAME: the fleet whose processes share what hosts teach");
    }
    List<String> cluster = redisCluster;
    if (cluster != null && fleetName == null) {
      throw usage("--redis-cluster needs --fleet NAME: the fleet whose processes share what hosts teach");
    }
    if (cluster != null && redis != null) {
      throw usage("--redis and --redis-cluster both name the fleet's Redis: give one");
    }
    Duration lease = fleetLease();
    if (fleetName != null) {
      String where = cluster != null ? String.join(",", cluster) : redis != null ? redis : DEFAULT_REDIS;
      String option = cluster != null ? "--redis-cluster" : "--redis";
      try {
        fleet = cluster != null ? RedisFleet.connectCluster(cluster, fleetName) : RedisFleet.connect(where, fleetName);
      } catch (IllegalArgumentException e) {
        throw usage((e.getMessage() != null && e.getMessage().startsWith("fleet name") ? "--fleet: " : option + ": ")
            + e.getMessage());
      } catch (io.lettuce.core.RedisCommandExecutionException e) { // reached, but it runs no fleet: a replica, a user without scripting
        throw usage(option + " '" + Redaction.userInfo(where) + "': " + e.getMessage());
      } catch (RuntimeException e) { // Lettuce's RedisConnectionException, or a Cluster that cannot be read
        // In the words fetch says a URL's failure in (connection refused, DNS failure), else Lettuce's.
        String why = ExchangeFailures.describe(e, "Lettuce's connect timeout");
        throw usage(option + " '" + Redaction.userInfo(where) + "' cannot be reached: " + (why != null ? why : e.getMessage()));
      }
      if (lease != null) {
        fleet.placeLease(lease);
      }
      builder.fleet(fleet);
    }
    return builder.build();
  }

  /**
   * Ends the run: writes what hosts taught to the {@code --state} file, if one was given, and
   * leaves the {@code --fleet}, if one was joined. Whether what hosts taught is saved (or there
   * was no {@code --state}): a file that cannot be written is said on standard error, as the
   * store's one-line warning, and the run then exits with {@link Main#FAILED}.
   */
  boolean endRun(PrintStream err) {
    RedisFleet joined = fleet;
    if (joined != null) {
      joined.close();
    }
    HostStateFile store = kept;
    if (store == null) {
      return true;
    }
    try {
      store.save();
      return true;
    } catch (IOException e) {
      // HostStateFile warned of it, with the file and why, and LogSetup printed the warning to stderr
      return false;
    }
  }

  /** The limits {@link #context()} read for every host. */
  private Limits everyHost = Limits.NONE;
  /** The limits {@link #context()} read by key, in the order given. */
  private final List<java.util.Map.Entry<String, Limits>> byKey = new ArrayList<>();

  /** The context these options describe: the limits for every host and per key. */
  CallContext context() {
    configure();
    CallContext.Builder context = CallContext.builder();
    everyHost = Limits.NONE;
    byKey.clear();
    if (maxInFlight != null) {
      if (maxInFlight < 1) {
        throw usage("--max-in-flight must be at least 1, got " + maxInFlight);
      }
      everyHost = everyHost.withInFlight(maxInFlight);
    }
    if (maxRate != null) {
      everyHost = everyHost.withRate(rate(maxRate));
    }
    context.limitsForEveryHost(everyHost);
    for (String host : hosts) {
      int equals = host.indexOf('=');
      if (equals <= 0) {
        throw usage("--host '" + host + "' is not KEY=SPEC, such as 'qlever.dev=inFlight:1,perSecond:1'");
      }
      String key = host.substring(0, equals).strip();
      try {
        Limits limits = Limits.parse(host.substring(equals + 1));
        context.addLimit(key, limits);
        byKey.add(java.util.Map.entry(key, limits));
      } catch (IllegalArgumentException e) {
        throw hostUsage(host, "--host '" + host + "': " + e.getMessage());
      }
    }
    return context.build();
  }

  /** A usage error about the {@code --host} entry {@code host}, naming the {@code --config} key that gave it, if one did. */
  private CommandLine.ParameterException hostUsage(String host, String message) {
    ConfigFile read = file;
    String where = read != null ? read.whereOf(host) : null;
    return usage(where != null ? message + " (from " + where + ")" : message);
  }

  /**
   * The context of {@link #context()} with {@code rate} for the host {@code hostAndPort}
   * ({@code example.org:443}, {@code 127.0.0.1:8080}), which {@code fetch --respect-robots} gives a
   * host whose robots.txt asks for a slower pace than these options do. The rate is given by the
   * host's key with its port, which holds over a {@code --host} key without port, field by field
   * (SPEC P4); a {@code --host} key that names the same host and port lends it its other fields
   * instead of being given twice, which the engine would refuse. Every other limit is as given.
   */
  CallContext context(String hostAndPort, Rate rate) {
    CallContext.Builder context = CallContext.builder().limitsForEveryHost(everyHost);
    Integer inFlight = null;
    for (java.util.Map.Entry<String, Limits> given : byKey) {
      if (sameKey(given.getKey(), hostAndPort)) {
        inFlight = given.getValue().inFlight();
      } else {
        context.addLimit(given.getKey(), given.getValue());
      }
    }
    return context.addLimit(hostAndPort, new Limits(inFlight, rate)).build();
  }

  /** Whether the engine reads {@code a} and {@code b} as one key, to which it would refuse two limits (SPEC P4). */
  private static boolean sameKey(String a, String b) {
    return Hostpace.normaliseKey(a).equals(Hostpace.normaliseKey(b));
  }

  /**
   * The lease of {@code --fleet-lease}, checked before the fleet is joined (a second to a day, as
   * {@link RedisFleet#placeLease} takes it); null when not given.
   */
  private @Nullable Duration fleetLease() {
    String value = fleetLease;
    if (value == null) {
      return null;
    }
    if (fleetName == null) {
      throw usage("--fleet-lease needs --fleet NAME: the fleet whose places it leases");
    }
    BigDecimal seconds = inSeconds("--fleet-lease", value); // one range, and one message for whatever is outside it
    if (seconds.compareTo(BigDecimal.ONE) < 0 || seconds.compareTo(BigDecimal.valueOf(24 * 3600)) > 0) {
      throw usage("--fleet-lease must be 1s to a day, got " + value);
    }
    return Duration.ofNanos(seconds.movePointRight(9).longValue());
  }

  /** The per-attempt deadline for the whole answer, body included (SPEC T7). */
  Duration timeout() {
    return seconds("--timeout", timeout, false);
  }

  private Rate rate(String value) {
    BigDecimal perSecond = decimal("--max-rate", value);
    if (perSecond.signum() <= 0) {
      throw usage("--max-rate must be a positive number, got " + value);
    }
    try {
      return Rate.perSecond(perSecond.doubleValue());
    } catch (IllegalArgumentException e) {
      throw usage("--max-rate " + value + ": " + e.getMessage());
    }
  }

  /**
   * A duration in seconds, of a millisecond at least (a finer one would round to nothing, or to
   * a timeout no answer can meet), at most a year; zero too where {@code zeroAllowed}.
   */
  private Duration seconds(String option, String value, boolean zeroAllowed) {
    BigDecimal seconds = inSeconds(option, value);
    if (seconds.signum() < 0 || (!zeroAllowed && seconds.signum() == 0)) {
      throw usage(option + " must be " + (zeroAllowed ? "zero or more" : "more than zero") + " seconds, got " + value);
    }
    if (seconds.signum() > 0 && seconds.compareTo(SMALLEST) < 0) {
      throw usage(option + " must be " + (zeroAllowed ? "zero or " : "") + "at least 0.001 seconds, got " + value);
    }
    if (seconds.compareTo(BigDecimal.valueOf(365L * 24 * 3600)) > 0) {
      throw usage(option + " must be at most a year, got " + value);
    }
    return Duration.ofNanos(seconds.movePointRight(9).longValue());
  }

  /** Units a duration may carry, as Spring's properties take them; a bare number is seconds. */
  private static final String[][] UNITS = {{"ms", "0.001"}, {"s", "1"}, {"m", "60"}, {"h", "3600"}, {"d", "86400"}};

  /**
   * Seconds in {@code value}: a decimal number of seconds, a decimal number followed by
   * {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}, or an ISO-8601 duration such as
   * {@code PT30S}, as Spring's properties take them. "ms" is tried before "s" and "m", which it
   * ends with and starts with.
   */
  private BigDecimal inSeconds(String option, String value) {
    String text = value.strip();
    if (text.length() > 1 && (text.charAt(0) == 'P' || text.charAt(0) == 'p')) {
      try {
        Duration iso = Duration.parse(text);
        return BigDecimal.valueOf(iso.getSeconds()).add(BigDecimal.valueOf(iso.getNano(), 9));
      } catch (java.time.format.DateTimeParseException e) {
        throw usage(option + " '" + value + "' is not a duration: an ISO-8601 one reads as PT30S or P1D");
      }
    }
    for (String[] unit : UNITS) {
      if (text.endsWith(unit[0]) && text.length() > unit[0].length()) {
        String number = text.substring(0, text.length() - unit[0].length()).strip();
        if (!NumberText.DECIMAL.matcher(number).matches()) {
          break;
        }
        return new BigDecimal(number).multiply(new BigDecimal(unit[1]));
      }
    }
    if (!NumberText.DECIMAL.matcher(text).matches()) {
      throw usage(option + " '" + value + "' is not a duration: expected seconds (a decimal number), "
          + "or a number with ms, s, m, h or d, or ISO-8601 such as PT30S");
    }
    return new BigDecimal(text);
  }

  private BigDecimal decimal(String option, String value) {
    if (!NumberText.DECIMAL.matcher(value.strip()).matches()) {
      throw usage(option + " '" + value + "' is not a decimal number");
    }
    return new BigDecimal(value.strip());
  }

  CommandLine.ParameterException usage(String message) {
    for (java.util.Map.Entry<String, String> source : sources.entrySet()) {
      String option = source.getKey();
      if (message.startsWith(option) && (message.length() == option.length()
          || !(Character.isLetter(message.charAt(option.length())) || message.charAt(option.length()) == '-'))) {
        return new CommandLine.ParameterException(spec.commandLine(), message + " (from " + source.getValue() + ")");
      }
    }
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /**
   * Gives each option not on the command line its value from the environment (the fleet's Redis,
   * when there is a fleet) or the {@code --config} file, in that order; the file's host limits go
   * before the command line's, which override those of the same key. Once, before the options
   * are read.
   */
  private void configure() {
    if (configured) {
      return;
    }
    configured = true;
    ConfigFile file = null;
    Path path = config;
    if (path != null) {
      try {
        file = ConfigFile.read(path, environment);
      } catch (IllegalArgumentException e) {
        throw usage(String.valueOf(e.getMessage())); // names the file, and the line where one is wrong
      }
    }
    boolean fleetNamed = fleetName != null || (file != null && file.value("--fleet") != null);
    for (String[] variable : REDIS_VARIABLES) {
      String value = environment.apply(variable[1]);
      if (fleetNamed && value != null && !given(variable[0])) {
        set(variable[0], value, "the environment variable " + variable[1]);
      }
    }
    if (file == null) {
      return;
    }
    this.file = file;
    for (String option : ConfigFile.READ) {
      String value = file.value(option);
      if (value != null && !given(option)) {
        set(option, value, String.valueOf(file.whereOf(option)));
      }
    }
    hosts = ConfigFile.merged(file.hosts(), hosts);
  }

  /** Whether {@code option} was given: on the command line, or already from the environment or the file. */
  private boolean given(String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option) || sources.containsKey(option);
  }

  /** Sets {@code option}'s field to {@code value}, which came from {@code source}. */
  private void set(String option, String value, String source) {
    sources.put(option, source);
    switch (option) {
      case "--max-in-flight" -> maxInFlight = whole(option, value);
      case "--max-rate" -> maxRate = value;
      case "--retries" -> retries = whole(option, value);
      case "--retry-delay-limit" -> retryDelayLimit = value;
      case "--timeout" -> timeout = value;
      case "--timeout-policy" -> {
        try {
          timeoutPolicy = TimeoutPolicyName.valueOf(value.strip().toLowerCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw usage(option + " '" + value + "' is not a policy: expected fixed or adaptive");
        }
      }
      case "--user-agent" -> userAgent = value;
      case "--state" -> {
        try {
          state = Path.of(value.strip());
        } catch (java.nio.file.InvalidPathException e) {
          throw usage(option + " '" + value + "' is not a file name: " + e.getReason());
        }
      }
      case "--fleet" -> fleetName = value.strip();
      case "--redis" -> redis = value.strip();
      case "--redis-cluster" -> redisCluster = java.util.Arrays.stream(value.split(",")).map(String::strip).toList();
      case "--fleet-lease" -> fleetLease = value;
      default -> throw new IllegalArgumentException("no option " + option);
    }
  }

  private int whole(String option, String value) {
    try {
      return Numbers.whole(value.strip());
    } catch (CommandLine.TypeConversionException e) {
      throw usage(option + " '" + value + "' is not a whole number");
    }
  }
}

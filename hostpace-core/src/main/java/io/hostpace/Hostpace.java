package io.hostpace;

import io.hostpace.internal.Redaction;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.Fleet;
import io.hostpace.spi.HostStateStore;
import io.hostpace.spi.LearningRule;
import io.hostpace.spi.Probe;
import io.hostpace.timeout.Budget;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The pacing engine: one per application, shared by all its HTTP clients, so that every
 * request to a host waits in that host's queue and what a host taught holds for all of them.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder()
 *     .limitsForEveryHost(Limits.inFlight(8))                                  // every host
 *     .addLimit("query.wikidata.org", Limits.perSecond(5))
 *     .addLimit("*.wikidata.org", Limits.inFlight(10))                // all of them together
 *     .build();
 * HttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);  // an adapter
 * }</pre>
 *
 * <p>What it does, by SPEC item: requests to a host wait in its queue and start when it has a
 * place and its rate allows (P1, P2); limits come from the call's {@link CallContext}, the
 * engine, then built-in defaults, field by field (P3, P4, P9); {@code *.domain} groups share
 * places and rates across their hosts, in arrival order (P5 to P7). A refusal (a 429, a 503, a
 * 405 with {@code Retry-After}; R1) pauses the host as long as {@code Retry-After} asks, within
 * the retry delay limit (R2, R3), or else slows it by the {@link LearningRule} (R4); the request
 * goes back to its queue ahead of later arrivals, up to the retry count (T1), and when retries
 * run out the last response is returned as it is (T3).
 *
 * <p>Adapters hand calls over as {@link Exchange}s, to {@link #execute} (asynchronous) or
 * {@link #send} (blocking). Thread-safe. Waiting requests cost a queue entry, not a thread.
 * {@link #close} ends what waits; an engine that lives as long as its program need not be closed.
 */
public final class Hostpace implements AutoCloseable {

  /** The version of this library, as in the default User-Agent. */
  public static final String VERSION;
  /** The project's address, as in the default User-Agent. */
  public static final String PROJECT_URL;

  static {
    Properties properties = new Properties();
    try (InputStream in = Hostpace.class.getResourceAsStream("hostpace.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    VERSION = properties.getProperty("version", "dev");
    PROJECT_URL = properties.getProperty("url", "https://github.com/hostpace/hostpace");
  }

  /** The default User-Agent (SPEC U1): {@code hostpace/<version> (+<project URL>)}. */
  public static final String DEFAULT_USER_AGENT = "hostpace/" + VERSION + " (+" + PROJECT_URL + ")";

  private final LimitLevels limits;
  private final String userAgent;
  private final LearningRule learningRule;
  /** What each call judges its attempts by. */
  private final CallRules rules;
  /** What sends the probe the adapter named when the policy asks (SPEC D6), or null for none. */
  private final @Nullable ProbeSender probes;
  private final Scheduler scheduler;
  /** How many in flight a host nothing is known of opens with (SPEC P12); 0 for the whole burst. */
  private final int opening;

  private Hostpace(Builder builder) {
    this.limits = new LimitLevels(builder.defaults.table(), builder.fleet != null);
    this.userAgent = builder.userAgent;
    this.learningRule = builder.learningRule;
    this.opening = builder.widenFirstContact ? Math.max(0, builder.learningRule.openingInFlight()) : 0;
    boolean sparesRetries = builder.learningRule.sparesRetries();
    this.scheduler = new Scheduler(
        builder.clock, builder.timer, builder.store, builder.learningRule, builder.retryDelayLimit,
        builder.forgetIdleAfter, opening, List.copyOf(builder.listeners), builder.logger, builder.fleet);
    ProbeSender probes = builder.timeoutPolicy != null && builder.probe != null
        ? new ProbeSender(builder.probe, builder.userAgent, builder.timeoutPolicy, builder.clock, builder.timer,
            this::callProbe, scheduler.outbox.log)
        : null;
    this.probes = probes;
    this.rules = new CallRules(
        builder.clock, builder.timer, builder.defaults.retriesOr(5), builder.defaults.retries() != null, builder.retryDelayLimit, builder.refusalStatuses,
        sparesRetries, builder.timeoutPolicy,
        probes == null ? CallRules.AfterOutcome.NONE : probes::afterOutcome, scheduler.outbox.log);
  }

  /** A builder with the defaults: 32 in flight per host, 5 retries, a 60 s retry delay limit. */
  public static Builder builder() {
    return new Builder();
  }

  /** An engine with the defaults and the system clock. */
  public static Hostpace create() {
    return builder().build();
  }

  // ---------------------------------------------------------------- calls

  /**
   * Runs a call through its host's queue, with retries, without blocking: the future completes
   * with the last response (an answer, or a refusal when retries ran out) or with the exchange's
   * failure. Cancelling the future, or ending it any other way ({@code orTimeout},
   * {@code completeExceptionally}), takes the call out of its queue, or frees its place (SPEC T5).
   * A URI without a valid host fails the future with {@link IllegalArgumentException}.
   */
  public <R> CompletableFuture<R> execute(Exchange<R> exchange, CallContext context) {
    return start(exchange, context, Trampoline.INSTANCE);
  }

  /** {@link #execute(Exchange, CallContext)} with the default context. */
  public <R> CompletableFuture<R> execute(Exchange<R> exchange) {
    return execute(exchange, CallContext.DEFAULT);
  }

  /**
   * Runs a call and waits for it; each attempt is sent on the calling thread, so an adapter of
   * a blocking client sends from {@link Exchange#send()} and returns a completed future. The
   * wait itself is a queue entry and a timer, like any other.
   *
   * @throws IOException the exchange's own failure, as it is
   * @throws InterruptedException when the thread is interrupted; the call is cancelled
   */
  public <R> R send(Exchange<R> exchange, CallContext context) throws IOException, InterruptedException {
    return send(exchange, context, cancel -> {});
  }

  /**
   * send(), and {@code onCancel} receives, before the call is queued, the action that cancels it,
   * for clients whose own cancel interrupts no thread; a call cancelled so throws
   * InterruptedIOException ("the call was cancelled").
   *
   * <p>The action may run on any thread, at any time, and more than once: before the call is
   * queued, nothing is sent; while it waits, it leaves its queue; while an attempt is sent, its
   * place is freed at once (letting the request go is the client's own cancel's part); after the
   * call ended, it does nothing.
   *
   * @throws IOException the exchange's own failure, as it is
   * @throws java.io.InterruptedIOException "the call was cancelled", its cause a
   *     {@link CancellationException}, when the action ended the call
   * @throws InterruptedException when the thread is interrupted; the call is cancelled
   */
  public <R> R send(Exchange<R> exchange, CallContext context, java.util.function.Consumer<Runnable> onCancel)
      throws IOException, InterruptedException {
    CancelAction cancel = new CancelAction();
    onCancel.accept(cancel);
    if (cancel.requested) {
      throw cancelled(new CancellationException("cancelled before it was queued"));
    }
    Mailbox mailbox = new Mailbox();
    CompletableFuture<R> future = start(exchange, context, mailbox);
    future.whenComplete((response, failure) -> mailbox.wake());
    cancel.attach(future);
    try {
      mailbox.runUntil(future::isDone);
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    }
    try {
      return future.get();
    } catch (ExecutionException e) {
      throw rethrow(e.getCause());
    } catch (CancellationException e) {
      // The cancel action ended the call (it leaves its queue, or frees its place): say so as I/O does.
      throw cancelled(e);
    }
  }

  private static java.io.InterruptedIOException cancelled(CancellationException cause) {
    java.io.InterruptedIOException cancelled = new java.io.InterruptedIOException("the call was cancelled");
    cancelled.initCause(cause);
    return cancelled;
  }

  /**
   * The action {@code send} hands out: it may run before the call's future exists, while it
   * runs, or after. Each side writes its own field, then reads the other's (both volatile), so at
   * least one of them sees both and cancels the future; cancelling it twice does nothing more.
   */
  private static final class CancelAction implements Runnable {
    private volatile boolean requested;
    private volatile @Nullable CompletableFuture<?> future;

    @Override
    public void run() {
      requested = true;
      CompletableFuture<?> started = future;
      if (started != null) {
        started.cancel(true);
      }
    }

    void attach(CompletableFuture<?> started) {
      future = started;
      if (requested) {
        started.cancel(true);
      }
    }
  }

  /** {@link #send(Exchange, CallContext)} with the default context. */
  public <R> R send(Exchange<R> exchange) throws IOException, InterruptedException {
    return send(exchange, CallContext.DEFAULT);
  }

  private <R> CompletableFuture<R> start(Exchange<R> exchange, CallContext context, Executor executor) {
    if (scheduler.closing()) {
      return CompletableFuture.failedFuture(new HostpaceClosedException(exchange.uri()));
    }
    String hostKey;
    try {
      hostKey = HostKey.of(exchange.uri());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
    Call<R> call = new Call<>(rules, scheduler, exchange, hostKey, context, executor, null);
    ProbeSender probing = probes;
    if (probing != null) {
      // A held endpoint's request waits for a probe first, outside its queue (SPEC D6).
      CompletableFuture<@Nullable Void> probed = probing.beforeRequest(hostKey, exchange.uri(), context);
      if (!probed.isDone()) {
        probed.whenComplete((done, failure) -> queue(call, hostKey, context));
        return call.result;
      }
    }
    queue(call, hostKey, context);
    return call.result;
  }

  private void queue(Call<?> call, String hostKey, CallContext context) {
    if (call.result.isDone()) {
      return; // the caller gave up while it waited for a probe
    }
    QueueKey key = limits.queueKey(hostKey, context);
    if (!scheduler.submit(call, hostKey, key, opening == 0 || limits.told(hostKey, context, key) ? 0 : opening)) {
      // closed since the call was made, or while it waited for a probe (SPEC T8)
      call.result.completeExceptionally(call.closed());
      return;
    }
    if (call.result.isDone()) {
      scheduler.cancel(call); // given up on as it was queued: out again, its place freed
    }
  }

  /**
   * Closes the engine: a call made from now on fails at once with {@link HostpaceClosedException},
   * and so do the calls that wait (in a queue, out a retry delay or a {@code Retry-After}, or for a
   * probe), as if their callers had given up on them: their places and the fleet's are let go.
   * Attempts in flight go on, and their answers end their calls: a refusal is not retried but
   * returned, as when retries run out (SPEC T3). The engine stops hearing its fleet; the fleet,
   * the store and the timer are the caller's, and are not closed. Returns without waiting for the
   * attempts in flight; closing again does nothing.
   */
  @Override
  public void close() {
    if (scheduler.closing()) {
      return;
    }
    scheduler.beginClose();
    for (Call<?> call : scheduler.close()) {
      call.result.completeExceptionally(call.closed());
    }
    ProbeSender probing = probes;
    if (probing != null) {
      probing.close(); // the calls that waited for a probe come to the closed queues, which fail them
    }
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return scheduler.closing();
  }

  // ---------------------------------------------------------------- probes

  /** Runs a probe's call through its host's queue, with the probe's budget (SPEC D6): what the {@link ProbeSender} sends. */
  private <R> CompletableFuture<R> callProbe(Exchange<R> exchange, CallContext context, Budget budget) {
    String hostKey = HostKey.of(exchange.uri());
    Call<R> call = new Call<>(rules, scheduler, exchange, hostKey, context, Trampoline.INSTANCE, budget);
    queue(call, hostKey, context);
    return call.result;
  }

  private static IOException rethrow(@Nullable Throwable cause) {
    if (cause instanceof IOException io) {
      return io;
    }
    if (cause instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IOException(cause);
  }

  // ---------------------------------------------------------------- limits

  /**
   * The limits a call with {@code context} gets for the host of {@code uri}, after falling
   * through context, engine and built-in defaults: what its queue enforces.
   */
  public Limits effectiveLimits(URI uri, CallContext context) {
    return limits.queueKey(HostKey.of(uri), context).host();
  }

  // ---------------------------------------------------------------- what it knows

  /**
   * {@code key} when it is a key as the engine writes it: a host's ({@code example.org},
   * {@code example.org:8080}, {@code 127.0.0.1}, {@code [::1]}) or a group's
   * ({@code *.example.org}), normalised as a URL's host and a configured limit's key are (SPEC P4).
   * The keys the engine hands a {@link Fleet}, a {@link HostStateStore} and its listeners are such
   * keys; a fleet or a store that is handed keys from elsewhere (another process, a server, a
   * caller of its own methods) checks them here, by the engine's own rules, and refuses what no
   * engine would write.
   *
   * @return {@code key}
   * @throws IllegalArgumentException naming the key, on one line ({@link Redaction#printable}), and
   *     what is wrong with it: it names no host or group ({@code " "}, {@code "a\nb"},
   *     {@code "*.org"}), or names one written otherwise than the engine writes it
   *     ({@code "Example.org"}, {@code "example.org:443"}), which the message gives
   */
  public static String checkKey(String key) {
    String normalised = normaliseKey(key);
    if (!normalised.equals(key)) {
      throw new IllegalArgumentException(Redaction.printable(
          "key '" + key + "' is not written as the engine writes its keys: expected '" + normalised + "'"));
    }
    return key;
  }

  /**
   * {@code key} as the engine writes it: a host's or a group's key written any way a configured
   * limit's key may be ({@code Example.ORG:443} reads as {@code example.org}, SPEC P4). Two keys
   * name one host or group when this gives both the same; {@link #checkKey} is the strict form,
   * for keys that must already be written so.
   *
   * @throws IllegalArgumentException naming the key, on one line, when it names no host or group
   */
  public static String normaliseKey(String key) {
    Objects.requireNonNull(key, "key");
    try {
      return HostKey.normaliseLimitKey(key);
    } catch (IllegalArgumentException e) { // already on one line, and naming the key
      throw new IllegalArgumentException("expected a host's key or a group's: " + e.getMessage(), e);
    }
  }

  /**
   * Whether the host's key {@code hostKey} ({@code a.example.org:8080}) is under the group's key
   * {@code groupKey} ({@code *.example.org}), as the engine decides which groups' limits a host's
   * requests count against (SPEC P5): its host name ends with {@code .} and the group's domain, at
   * any depth; the port does not matter; neither the domain itself ({@code example.org}) nor an IP
   * address is in any group. Both keys are as the engine writes them ({@link #checkKey}), such as
   * those of its events and its {@link #snapshot()}.
   *
   * @throws IllegalArgumentException if {@code groupKey} is not a group's key ({@code *.domain})
   */
  public static boolean inGroup(String hostKey, String groupKey) {
    return HostKey.inGroup(hostKey, groupKey);
  }

  /** Clears what a host or a group ({@code *.domain}) taught: its pause and learned interval (SPEC R7). */
  public void forget(String key) {
    scheduler.forget(HostKey.normaliseLimitKey(key));
  }

  /** Clears what the host of {@code uri} taught (SPEC R7). */
  public void forget(URI uri) {
    scheduler.forget(HostKey.of(uri));
  }

  /** Clears what every host and group taught (SPEC R7). */
  public void forgetAll() {
    scheduler.forgetAll();
  }

  /** What the engine knows now of every host and group it holds, sorted by key. */
  public List<HostSnapshot> snapshot() {
    return scheduler.snapshot();
  }

  /** How many times the engine has looked at whether a waiting request can start: its cost, for tests. */
  long readinessChecks() {
    return scheduler.readinessChecks();
  }

  /** How many times the engine's lock was taken: for tests of what a way of a call costs. */
  long lockTurns() {
    return scheduler.lockTurns();
  }

  /** How many calls started on the local path, without the engine's lock: for tests. */
  long localStarts() {
    return scheduler.localStarts();
  }

  /** The User-Agent adapters send on a request that names none (SPEC U1). */
  public String userAgent() {
    return userAgent;
  }

  /** The retry count of a call whose context sets none. */
  public int retries() {
    return rules.retries();
  }

  /** The longest pause a {@code Retry-After} may impose (SPEC R3). */
  public Duration retryDelayLimit() {
    return rules.retryDelayLimit();
  }

  /** The engine's clock. */
  public Clock clock() {
    return rules.clock();
  }

  /** The policy that budgets each attempt's time, or {@code null} when the clients' own timeouts hold. */
  public @Nullable TimeoutPolicy timeoutPolicy() {
    return rules.timeoutPolicy();
  }

  /** The rule by which hosts that refuse without {@code Retry-After} are slowed. */
  public LearningRule learningRule() {
    return learningRule;
  }

  /** The statuses this engine takes for refusals (SPEC R1). */
  public RefusalStatuses refusalStatuses() {
    return rules.refusalStatuses();
  }

  Scheduler scheduler() {
    return scheduler;
  }

  @Override
  public String toString() {
    LimitTable engineLimits = limits.engine();
    return "Hostpace{limits=" + engineLimits.everyHost() + ", byKey=" + engineLimits.byKey() + ", retries="
        + rules.retries() + ", retryDelayLimit=" + rules.retryDelayLimit() + ", rule=" + learningRule + "}";
  }

  // ---------------------------------------------------------------- builder

  /** Builds a {@link Hostpace}; {@link #build()} copies, so a builder can be reused. */
  public static final class Builder {
    private Clock clock = Clock.system();
    private Timer timer = Timer.system();
    /** The limits and retries of a call whose context sets none. */
    private final LimitsAndRetries defaults = new LimitsAndRetries();
    private Duration retryDelayLimit = Duration.ofSeconds(60);
    private Duration forgetIdleAfter = Duration.ofHours(1);
    private RefusalStatuses refusalStatuses = RefusalStatuses.DEFAULT;
    private String userAgent = DEFAULT_USER_AGENT;
    private LearningRule learningRule = LearningRule.hostpace();
    private HostStateStore store = HostStateStore.inMemory();
    private final List<HostpaceListener> listeners = new ArrayList<>();
    private System.Logger logger = EventLog.systemLogger();
    private @Nullable TimeoutPolicy timeoutPolicy;
    private @Nullable Probe probe;
    private @Nullable Fleet fleet;
    private boolean widenFirstContact = true;

    private Builder() {}

    /**
     * Sets the clock, replacing the one set before; {@link Clock#system()} unless set. A
     * {@link VirtualTime} makes tests run in virtual time.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Sets the timer that starts waiting requests, replacing the one set before; {@link Timer#system()} unless set. */
    public Builder timer(Timer timer) {
      this.timer = Objects.requireNonNull(timer, "timer");
      return this;
    }

    /** Sets virtual time as both clock and timer, replacing those set before. */
    public Builder time(VirtualTime time) {
      Objects.requireNonNull(time, "time");
      return clock(time).timer(time);
    }

    /**
     * Sets the limits for every host, under any context's (SPEC P3), replacing those set before;
     * {@link Limits#NONE} unless set, so the built-in ones hold.
     */
    public Builder limitsForEveryHost(Limits everyHost) {
      defaults.everyHost(everyHost);
      return this;
    }

    /**
     * Adds the limits for one key to those of other keys: a host on every port
     * ({@code example.org}), a host on one port ({@code example.org:8080}; 80 and 443 are one
     * port, the default, as in a URL) or a group of every host under a domain
     * ({@code *.example.org}). A key is normalised as a URL's host is (case, a trailing dot, IDN,
     * IP address forms), so its spellings are one key.
     *
     * @throws IllegalArgumentException naming the key when it can never match a request (a scheme
     *     or path in it, a bad port, an empty label, a malformed IPv6 address), or when the same
     *     key, in any spelling, was given other limits already
     */
    public Builder addLimit(String key, Limits limits) {
      defaults.add(key, limits);
      return this;
    }

    /**
     * Adds the limits for one key, written as {@link Limits#parse(String)} reads them:
     * {@code addLimit("qlever.dev", "inFlight:1,perSecond:1")}; as {@link #addLimit(String, Limits)}.
     *
     * @throws IllegalArgumentException naming the key, the field and the value that is wrong
     */
    public Builder addLimit(String key, String limits) {
      defaults.add(key, limits);
      return this;
    }

    /**
     * Sets the retries of a refused request when its context sets none, replacing the count set
     * before; 5 unless set (SPEC T1). A count set here caps a call's attempts on a host that
     * accepted nothing lately; unset, the retries that the rule's slowing pace delayed there count
     * for none while the host is learned (SPEC R10).
     *
     * @throws IllegalArgumentException when {@code retries} is negative
     */
    public Builder retries(int retries) {
      defaults.retries(retries);
      return this;
    }

    /**
     * Sets the longest pause a {@code Retry-After} may impose, replacing the one set before; 60 s
     * unless set (SPEC R3). A pause a store kept from an earlier run lasts no longer either (SPEC S1).
     *
     * @throws IllegalArgumentException when {@code retryDelayLimit} is negative or over a year
     */
    public Builder retryDelayLimit(Duration retryDelayLimit) {
      Objects.requireNonNull(retryDelayLimit, "retryDelayLimit");
      this.retryDelayLimit = Durations.zeroToAYear(retryDelayLimit, "retry delay limit");
      return this;
    }

    /**
     * Sets the statuses that are refusals, replacing those set before: {@code always} with or
     * without {@code Retry-After} (429 and 503 unless set), {@code withRetryAfter} only when it
     * carries one (405 unless set, as DBpedia sends). SPEC R1.
     *
     * @throws IllegalArgumentException naming a status that is not 400 to 599: only an error may
     *     be a refusal
     */
    public Builder refusalStatuses(Set<Integer> always, Set<Integer> withRetryAfter) {
      return refusalStatuses(RefusalStatuses.of(always, withRetryAfter));
    }

    /** Sets the statuses that are refusals (SPEC R1), replacing those set before; {@link RefusalStatuses#DEFAULT} unless set. */
    public Builder refusalStatuses(RefusalStatuses statuses) {
      this.refusalStatuses = Objects.requireNonNull(statuses, "statuses");
      return this;
    }

    /**
     * Sets how long a host (or group) that nothing uses keeps what it taught (a learned interval,
     * in-flight limit or quota, what its first contact was widened to), counted from its last
     * start; an hour unless set. Then the engine
     * forgets it and lets the host go, so that memory follows the hosts in use (SPEC P10) even for
     * a crawler refused by a million hosts once each; a host asked again after that is learned
     * anew. A pause still ahead is kept whatever this says. Replaces the duration set before.
     *
     * @throws IllegalArgumentException when {@code idle} is negative or over a year
     */
    public Builder forgetIdleAfter(Duration idle) {
      Objects.requireNonNull(idle, "idle");
      this.forgetIdleAfter = Durations.zeroToAYear(idle, "forget idle after");
      return this;
    }

    /**
     * Sets the User-Agent adapters send on requests that name none (SPEC U1), replacing the one
     * set before; {@link Hostpace#DEFAULT_USER_AGENT} unless set.
     *
     * @throws IllegalArgumentException when {@code userAgent} is blank, or has a character a
     *     header's value cannot carry on every client: a control character (a line break, which
     *     would end the header) or one outside printable ASCII
     */
    public Builder userAgent(String userAgent) {
      Objects.requireNonNull(userAgent, "userAgent");
      if (userAgent.isBlank()) {
        throw new IllegalArgumentException("user agent must not be blank");
      }
      for (int i = 0; i < userAgent.length(); i++) {
        char c = userAgent.charAt(i);
        if (c < 0x20 && c != '\t' || c > 0x7e) {
          throw new IllegalArgumentException(String.format(Locale.ROOT,
              "user agent must be printable ASCII, as every client sends a header's value: character %d is U+%04X",
              i + 1, (int) c));
        }
      }
      this.userAgent = userAgent;
      return this;
    }

    /**
     * Sets how hosts that refuse without {@code Retry-After} are slowed, replacing the rule set
     * before; {@link LearningRule#hostpace()} unless set ({@link LearningRule#seed()} is SPEC R4).
     */
    public Builder learningRule(LearningRule rule) {
      this.learningRule = Objects.requireNonNull(rule, "rule");
      return this;
    }

    /**
     * Sets whether a host that nothing is known of opens gently, as its learning rule says (SPEC P12):
     * the default rule starts one request, then one more alone at its answer, and each later accepted
     * answer lets two more start up to four in flight, then one more a round trip, up to the
     * in-flight limit. A refusal ends the widening: one that asks for a pause leaves what was
     * accepted at once as the host's learned in-flight limit; a bare one leaves the host to the
     * interval the rule set, its starts spaced from then on. True unless set; false sends the
     * whole burst the limits allow at once (SPEC P3), as the seed's rule always does. A host is
     * known when it was told limits by its key (in the context, the engine or the built-in
     * defaults) or through one of its groups, or when the store opened its state knowing
     * something (a pause, an interval, an in-flight limit or quota, the rule's memory: kept by a
     * {@link HostStateFile}, say). A host whose accepted answers widened its opening is known
     * too: it keeps the width while it is idle, until {@link #forgetIdleAfter} forgets what it
     * taught, and is then opened at one again.
     */
    public Builder widenFirstContact(boolean widen) {
      this.widenFirstContact = widen;
      return this;
    }

    /**
     * Sets where what hosts taught is kept, replacing the store set before; in memory
     * ({@link HostStateStore#inMemory()}) unless set. What the store opens is held to this
     * engine's limits before the host's first start (SPEC S1): a pause to the retry delay limit,
     * an interval and a quota's window clamped as learned ones are.
     */
    public Builder hostStateStore(HostStateStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Sets the fleet this engine shares what hosts teach with, replacing the one set before: the
     * other processes of {@code fleet} (SPEC S2, S3), so that together they are as polite to a host
     * as one. None unless set (null is refused: leave it unset for none); the engine does not close
     * it, and each engine needs a fleet object of its own ({@link Fleet}).
     *
     * <ul>
     *   <li>Every answer and refusal is told to the fleet, and the learning rule learns from the
     *       other processes' answers as from its own; a {@code Retry-After} one process gets
     *       pauses the host in all. Of a lesson about a host this engine holds nothing for, only a
     *       {@code Retry-After} is kept.
     *   <li>While a host is paced (a learned interval, a configured rate, a group's learned quota),
     *       each start first claims it from the fleet, so the fleet's starts are spaced by the
     *       host's pace, not each process's.
     *   <li>While a host has an in-flight limit, learned or given it (or one of its groups) by key,
     *       each start holds one of the fleet's places of it until its answer. The limit for every
     *       host ({@link #limits}, or built in) stays each process's own: it bounds what one
     *       process holds open.
     *   <li>While it has a learned quota, each start holds one of the quota's places for a window,
     *       so the fleet starts no more in a window than the host counts.
     *   <li>With a fleet that {@linkplain Fleet#keeps keeps} what hosts taught (SPEC S3), a host or
     *       group this engine meets is read from the fleet before its first start, so that a
     *       process that joins late starts at the fleet's pace; what this engine's answers teach is
     *       kept there; and the starts a host announced (SPEC R8) are spent from the fleet's count
     *       once few are left.
     * </ul>
     *
     * <p>Not shared: the in-flight limit for every host.
     */
    public Builder fleet(Fleet fleet) {
      this.fleet = Objects.requireNonNull(fleet, "fleet");
      return this;
    }

    /**
     * Sets the timeout policy, replacing the one set before: it budgets each attempt's time
     * (SPEC D1 to D4): the engine ends an attempt
     * that gets no answer within its budget with an {@link AttemptTimeoutException}, fails a call
     * at once with an {@link EndpointDownException} while the policy says its endpoint is down,
     * and tells the policy how every attempt ended. The endpoint is the host key; the kind is
     * the context's {@link CallContext#kind()}. None unless set: then the clients' own timeouts
     * hold (null is refused: leave it unset for none). A policy that
     * {@linkplain TimeoutPolicy#probes() probes} needs a {@link #probe}.
     *
     * <p>The budget is enforced on attempts sent through {@link #execute}; an attempt of
     * {@link #send} runs on the calling thread inside {@link Exchange#send()}, which the engine
     * cannot cut short, so blocking clients (OkHttp's {@code execute}, HttpClient 5 classic,
     * {@code RestClient}) keep their own timeouts, while their outcomes still teach the policy
     * and a down endpoint still fails fast.
     */
    public Builder timeoutPolicy(TimeoutPolicy policy) {
      this.timeoutPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Sets the probe, replacing the one set before: the cheap request the engine sends by itself
     * to an endpoint its timeout policy holds down
     * or degraded (SPEC D6), as an adapter names it: {@code SparqlProbe.ask(client)} of
     * hostpace-jena, {@code HttpProbe.head(client)} of hostpace-jdk. The policy says when
     * ({@link io.hostpace.timeout.AdaptiveTimeouts.Builder#probe}); the probe goes through the
     * host's queue like any request, with the context of the host's latest request and no
     * retries. A request that comes for a held endpoint waits for a probe before it is queued,
     * and then goes with the full budget if the probe succeeded. None unless set (null is
     * refused: leave it unset for none).
     */
    public Builder probe(Probe probe) {
      this.probe = Objects.requireNonNull(probe, "probe");
      return this;
    }

    /**
     * Adds a listener that hears every decision, to those added before: it replaces none. With
     * none, no event is built. Several hear each event in the order they were added, and one that
     * throws keeps no other from hearing it.
     */
    public Builder addListener(HostpaceListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /** Sets the engine's log, replacing the one set before; {@code io.hostpace.Hostpace} unless a test gives its own. */
    Builder logger(System.Logger logger) {
      this.logger = Objects.requireNonNull(logger, "logger");
      return this;
    }

    /**
     * The engine. Throws {@link IllegalArgumentException} naming a key that is neither a host
     * nor {@code *.} followed by a domain, or when a probe is given without a timeout policy
     * that probes, or such a policy without a probe; and {@link IllegalStateException} naming the
     * fleet when its {@link Fleet#listen} throws (the exception its cause).
     */
    public Hostpace build() {
      if (timeoutPolicy != null && timeoutPolicy.probes() && probe == null) {
        throw new IllegalArgumentException("timeout policy " + timeoutPolicy + " probes held endpoints, but the engine"
            + " has no probe to send: give one with probe(...), or a policy without a probe budget");
      }
      if (probe != null && (timeoutPolicy == null || !timeoutPolicy.probes())) {
        throw new IllegalArgumentException("probe " + probe + " is never sent: expected a timeout policy with a"
            + " probe budget (AdaptiveTimeouts.Builder.probe), got " + timeoutPolicy);
      }
      return new Hostpace(this);
    }
  }
}

package io.hostpace;

import io.hostpace.internal.AnnouncedQuota;
import io.hostpace.internal.Failures;
import io.hostpace.internal.RetryAfter;
import io.hostpace.spi.Exchange;
import io.hostpace.timeout.Budget;
import io.hostpace.timeout.Outcome;
import io.hostpace.timeout.TimeoutPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * One call through the engine: the retry loop, written once for every client, so that adapters
 * translate and never decide. Each attempt waits in its host's queue, is sent by the {@link Exchange}, and its answer is
 * judged here as a list of guard clauses; the {@link Scheduler} learns from it and moves the
 * call on. A call is handed what it needs and never reaches back into the engine that made it:
 * its {@link CallRules}, and the {@link Settlement} it reports each attempt's end through.
 *
 * <pre>
 * NEW → WAITING → IN_FLIGHT → DONE                       (an answer, a failure, or a last refusal)
 *                    ↓ refused, retries left           ↑
 *                 WAITING (its first place in line) ...
 *                    ↓ 504 or a retry status (T2)
 *                 PARKED (fallback delay) → WAITING ...
 *                    ↓ its connection died before any answer, once (T6)
 *                 WAITING (its first place in line) ...
 * any state before DONE → CANCELLED                       (the caller cancelled, SPEC T5)
 * </pre>
 *
 * <p>The fields the scheduler reads and writes ({@code state}, {@code queue}, {@code seq},
 * {@code attempt}, the times, {@code place}, {@code parked}) are guarded by what guards its host's
 * node: the engine's lock, or the node's monitor on the {@link LocalPath}; the rest belong to the
 * thread that sends the attempt.
 */
final class Call<R> implements Runnable {

  enum State { NEW, WAITING, IN_FLIGHT, PARKED, DONE, CANCELLED }

  /**
   * Whether the call ended, answered, failed or cancelled: it then holds nothing. Read without the
   * lock or its node's monitor, by a caller that gave up or found its future done: an ended state is
   * never left, so a read that finds one is right whenever it was written; one that finds another
   * takes the lock to look again.
   */
  boolean ended() {
    State now = state;
    return now == State.DONE || now == State.CANCELLED;
  }

  /** Arrival order: by {@code seq}, then, between calls of the local path that share it, by {@code arrival}. */
  static final Comparator<Call<?>> BY_ARRIVAL = (a, b) -> a.seq != b.seq ? Long.compare(a.seq, b.seq) : Long.compare(a.arrival, b.arrival);

  private final CallRules rules;
  private final Settlement settlement;
  private final Exchange<R> exchange;
  private final CallContext context;
  private final Executor executor;
  /**
   * The thread that made the call, whose own work its attempts are when they run on the
   * {@link Trampoline}: another thread's delivery sends them only as part of its bounded share
   * ({@link Outbox#take}). Null when the executor hands each attempt to a thread of the call's
   * own (a blocking caller's {@link Mailbox}): then any thread delivers it, as handing over is
   * no work.
   */
  final @Nullable Thread owner;
  private final int retries;
  /** The caller's future, which ends the call when the caller ends it: cancel, orTimeout, completeExceptionally. */
  final CallFuture<R> result = new CallFuture<>(this);

  State state = State.NEW;
  /**
   * Set once, on submit, before the scheduler or anything else reads it; volatile for a caller's
   * cancellation, which finds by it what guards the call's other fields (its host's node).
   */
  @SuppressWarnings("NullAway.Init") // the queue is the scheduler's to find, under its lock
  volatile HostQueue queue;
  /**
   * When the call arrived at the engine, for arrival order: odd and its own for a call the lock
   * queued; for a call of the {@link LocalPath}, even and shared with the others that came before
   * the lock's next, which {@link #arrival} then orders.
   */
  long seq;
  /** Of a call of the local path, its thread's count of such calls as it came: orders calls of one {@code seq}; 0 else. */
  long arrival;
  /** Its host's count of calls as it came ({@link Node#arrivals}): what R10 compares with {@link Node#acceptedSeq}. */
  long hostArrival;
  /** When the host first refused this call, once {@link #refused}: R10 spares its refusals for so long from then. */
  private long refusedSince;
  private boolean refused;
  /**
   * Its host's learned pace as this attempt started (the interval, or a learned quota's window
   * while one spaces the starts), and whether that was slower than as the attempt before it
   * started: such a retry waited for what the refusals before it taught. Written by the start's
   * bookkeeping, before the attempt is sent; read as it is judged.
   */
  long paceAtStart;
  boolean startedSlower;
  /** How many of its retries started slower than the attempt before them (SPEC R10). */
  private int slowed;
  /** Whether an attempt was already sent again after its connection died before any answer (SPEC T6). */
  private boolean resent;
  int attempt = 1;
  long queuedAt;
  long startedAt;
  /** How many requests its host had started, this attempt included, when it started (for SPEC R8). */
  long startSeq;
  /** How many of its host's requests were in flight when this attempt started, itself included. */
  int inFlightAtStart;
  /** The fleet's place this attempt claimed of its host (SPEC S2), or null. */
  @Nullable FleetPlace place;
  Timer.@Nullable Cancellable parked;

  private volatile @Nullable CompletableFuture<R> attemptInFlight;
  /** The number of the attempt that its budget ended, 0 for none. */
  private volatile int timedOut;
  private final String hostKey;
  /** For the engine's probe of a held endpoint (SPEC D6), its budget: the policy is neither asked nor told. */
  private final @Nullable Budget probe;

  Call(CallRules rules, Settlement settlement, Exchange<R> exchange, String hostKey, CallContext context,
      Executor executor, @Nullable Budget probe) {
    this.rules = rules;
    this.settlement = settlement;
    this.probe = probe;
    this.hostKey = hostKey;
    this.exchange = exchange;
    this.context = context;
    this.executor = executor;
    this.owner = executor == Trampoline.INSTANCE ? Thread.currentThread() : null;
    Integer contextRetries = context.retries();
    this.retries = contextRetries != null ? contextRetries : rules.retries();
  }

  URI uri() {
    return exchange.uri();
  }

  /**
   * The failure of this call ended by a closed engine (SPEC T8), saying whether an attempt of it
   * was sent: each attempt after the first counts one more. Read under what guards {@code attempt},
   * or once the scheduler let the call go.
   */
  HostpaceClosedException closed() {
    return new HostpaceClosedException(exchange.uri(), attempt > 1);
  }

  /**
   * The scheduler started this call's attempt: hand the sending to the call's executor. On the
   * {@link Trampoline}, that is the thread delivering it: its owner, another thread as its share,
   * or the timer for an owner that did not come back (SPEC P13).
   */
  void dispatch() {
    int number = attempt;
    if (listened()) {
      listen(() -> context.attemptListener().sent(exchange.uri(), number));
    }
    executor.execute(this);
  }

  /**
   * Sends the attempt {@link #dispatch} handed over: the call is its own task, so none is made per
   * attempt. Its number is {@link #attempt}, read again here rather than kept: the scheduler counts
   * an attempt more only once the one before it ended (which its sending, begun here, reports), and
   * the next one is dispatched only after that, so {@code attempt} holds the dispatched number until
   * this runs; the executor's hand-over publishes it.
   */
  @Override
  public void run() {
    send(attempt);
  }

  private void send(int number) {
    if (result.isCancelled()) {
      return; // cancelled between its start and its turn on the executor: its place is already free
    }
    TimeoutPolicy policy = rules.timeoutPolicy();
    Budget budget = probe;
    if (policy != null && budget == null) {
      budget = budgetOf(policy);
      // A dead endpoint fails in seconds, without sending (SPEC D3).
      if (budget != null && budget.isFailFast()) {
        failed(number, new EndpointDownException(hostKey, budget.timeout()));
        return;
      }
    }
    long sentAt = rules.clock().nanoTime();
    // Armed before send(), so that it also ends an attempt that a blocking client sends there.
    Deadline deadline = budget == null ? null : new Deadline(number, budget.timeout());
    CompletableFuture<R> future;
    try {
      future = exchange.send();
      if (future == null) { // an adapter's fault: the attempt fails, and its place is let go
        future = CompletableFuture.failedFuture(new NullPointerException("the exchange's send() returned no future"));
      }
    } catch (Throwable e) {
      // An Error too (an assertion in a test's exchange): on the executor it would be lost, the
      // call unended and its place held; as a failed attempt, it reaches the caller.
      future = CompletableFuture.failedFuture(e);
    }
    if (deadline != null && deadline.returned(future)) {
      // The budget ran out while send() blocked, and the exchange aborted it: whatever came back
      // came too late, and counts as the timeout it is.
      CompletableFuture<R> late = future;
      late.whenComplete((response, failure) -> {
        if (response != null) {
          discard(response);
        }
      });
      late.cancel(true);
      future = CompletableFuture.failedFuture(new CancellationException("aborted at its budget"));
    } else if (deadline != null && deadline.ranOutBeforeSendReturned() && !future.isDone()) {
      // The budget ran out before send() returned, and the exchange could not abort: the attempt
      // it returned is let go now, as the deadline would have.
      timedOut = number;
      future.cancel(true);
    }
    attemptInFlight = future;
    if (result.isCancelled()) {
      future.cancel(true);
    }
    if (future.getClass() == CompletableFuture.class && future.isDone()) {
      // Answered already (a cache, a test's server): its end is taken here, as a stage would take
      // it on this thread, without making one. A plain future only, whose join reads what it
      // holds; join wraps a failure that the stage would get as it is, which the unwrapping of
      // every use of it takes off again.
      R response = null;
      Throwable failure = null;
      try {
        response = future.join();
      } catch (CompletionException | CancellationException e) {
        failure = e;
      }
      endedLogged(number, deadline, sentAt, response, failure);
      return;
    }
    future.whenComplete((response, failure) -> endedLogged(number, deadline, sentAt, response, failure));
  }

  /**
   * {@link #ended}, whatever it throws logged (SPEC L2): on a client's thread, or in a stage's
   * future that nobody reads, it would go unseen.
   */
  private void endedLogged(int number, @Nullable Deadline deadline, long sentAt, @Nullable R response,
      @Nullable Throwable failure) {
    try {
      ended(number, deadline, sentAt, response, failure);
    } catch (Throwable e) {
      exchangeThrew(" as its attempt ended", e, "its call was left as it was");
    }
  }

  /** The attempt {@code number} sent at {@code sentAt} ended with {@code response} or {@code failure}. */
  private void ended(int number, @Nullable Deadline deadline, long sentAt, @Nullable R response,
      @Nullable Throwable failure) {
    if (deadline != null) {
      deadline.cancel();
    }
    long took = rules.clock().nanoTime() - sentAt;
    if (failure != null) {
      Throwable cause = timedOut == number
          ? new AttemptTimeoutException(hostKey, Duration.ofNanos(took))
          : Failures.unwrap(failure);
      if (timedOut != number && mayResend(cause)) {
        resend(number, cause);
        return;
      }
      report(outcomeOf(cause), took);
      failed(number, cause);
    } else if (response == null) {
      failed(number, new NullPointerException("the exchange answered with no response"));
    } else {
      answered(number, response, took);
    }
  }

  /**
   * Ends an attempt at its budget (SPEC D1): one whose {@code send()} returned is cancelled (the
   * client lets it go), one that a blocking client is still sending is aborted by the exchange
   * ({@link Exchange#abort()}); either fails as a timeout. An exchange that cannot abort goes on
   * until its answer, which then counts as it came.
   */
  private final class Deadline implements Runnable {
    private final int number;
    private final Timer.Cancellable timer;
    // Guarded by this: the attempt's future once send() returned, and whether the deadline came first.
    private @Nullable CompletableFuture<R> future;
    private boolean inSend = true;
    private boolean aborted;
    private boolean ranOut;

    Deadline(int number, Duration budget) {
      this.number = number;
      this.timer = rules.timer().schedule(this, budget.toNanos());
    }

    @Override
    public void run() {
      CompletableFuture<R> sent;
      synchronized (this) {
        if (inSend) {
          // Under the lock, so that send() returning waits for the abort to be asked and answered.
          inSend = false;
          if (abort()) {
            aborted = true;
            timedOut = number;
          }
          return;
        }
        sent = future;
      }
      if (sent != null && !sent.isDone()) {
        timedOut = number;
        sent.cancel(true);
      }
    }

    private boolean abort() {
      try {
        return exchange.abort();
      } catch (Throwable e) {
        // An adapter's failure to abort is an attempt that goes on. On the timer's thread what it
        // threw would be lost, and an Error would end the timer's other tasks with it.
        exchangeThrew(" from abort", e, "its attempt went on until its answer");
        return false;
      }
    }

    /** send() returned {@code sent}; true when the deadline came first and the exchange aborted it. */
    synchronized boolean returned(CompletableFuture<R> sent) {
      ranOut = !inSend;
      inSend = false;
      future = sent;
      return ranOut && aborted;
    }

    /** Whether the deadline came before send() returned; meaningful once {@link #returned} was called. */
    synchronized boolean ranOutBeforeSendReturned() {
      return ranOut;
    }

    void cancel() {
      timer.cancel();
    }
  }

  /**
   * The budget {@code policy} gives this attempt; null, the attempt sent without a deadline as
   * without a policy, when the policy throws (logged, SPEC L2): a policy that throws cannot hold
   * the call.
   */
  private @Nullable Budget budgetOf(TimeoutPolicy policy) {
    try {
      return policy.budget(rules.clock().nanoTime(), hostKey, context.kind());
    } catch (RuntimeException | Error e) {
      rules.log().policyThrew(policy, e, "the attempt was sent without a deadline");
      return null;
    }
  }

  /** Tells the timeout policy how an attempt ended, if there is a policy and the outcome says anything. */
  private void report(@Nullable Outcome outcome, long took) {
    TimeoutPolicy policy = rules.timeoutPolicy();
    if (policy != null && outcome != null && probe == null) {
      try {
        policy.onOutcome(rules.clock().nanoTime(), hostKey, context.kind(), outcome, took);
        rules.afterOutcome().told(hostKey, exchange.uri(), context);
      } catch (RuntimeException | Error e) {
        // A policy that throws cannot break the call.
        rules.log().policyThrew(policy, e, "the attempt's outcome went untold");
      }
    }
  }

  /** An answer with {@code status}, whatever a server sent: a status out of range tells the policy nothing. */
  private void reportAnswer(int status, long took) {
    if (rules.timeoutPolicy() != null && status >= 100 && status <= 599) {
      report(Outcome.ofStatus(status), took);
    }
  }

  private void answered(int number, R response, long took) {
    Verdict judged;
    try {
      int status = exchange.status(response);
      // The policy learns from the answer before it is judged: whether a 504 reached the server's
      // own limit is the policy's to say (SPEC D8).
      reportAnswer(status, took);
      judged = judge(response, status, number, took)
          .withQuota(AnnouncedQuota.read(exchange, response, Exchange::header, rules.clock()));
    } catch (Throwable e) {
      // Nothing a server sends may throw out of the engine or leave a place held: an Error the
      // exchange throws reading the answer (an assertion in a test's exchange) fails the call too.
      discard(response);
      failed(number, e);
      return;
    }
    Verdict verdict = settlement.closing() ? judged.closing() : judged;
    if (listened()) {
      listen(() -> context.attemptListener().settled(exchange.uri(), number, verdict.status(), null));
    }
    if (verdict.retries()) {
      discard(response);
      if (listened()) {
        listen(() -> context.attemptListener().retrying(exchange.uri(), number));
      }
    }
    boolean live = settlement.settle(this, verdict);
    if (verdict.retries()) {
      if (settlement.closing()) {
        // closed while it was judged: ended by the engine, or queued again as the engine ended what waited (SPEC T8)
        result.completeExceptionally(new HostpaceClosedException(exchange.uri(), true));
      }
      return;
    }
    if (!live || !result.complete(response)) {
      discard(response);
    }
  }

  /**
   * Whether the {@code number}-th attempt's refusal, past the retry count, is the pacing's cost
   * rather than the request's (SPEC R10), as the rule says: the host is not refusing everybody,
   * so it was probed, or its window had to be found or waited for. So when the host accepted
   * others since this call came, for a retry count of attempts more; and, at the engine's own retry
   * count (a count the user gave the builder or the context is kept to), when it accepted a
   * request within the retry delay limit, for as long as (retries + 1) limits from the call's first
   * refusal (not its coming: a backlog's wait is not the host refusing it).
   */
  private boolean spared(int number, long now) {
    if (!rules.sparesRetries()) {
      return false;
    }
    Node node = queue.node;
    long acceptedSeq = node.acceptedSeq;
    if (acceptedSeq > hostArrival && number <= 2L * retries) {
      return true;
    }
    if (context.retries() != null || rules.retriesGiven()) {
      return false; // a retry count the user gave is kept to, but for the above
    }
    return acceptedLately(now) && now - refusedSince <= sparedFor(rules.retryDelayLimit().toNanos());
  }

  /** Whether the call's host accepted a request, here or in the fleet, within the retry delay limit of {@code now}. */
  private boolean acceptedLately(long now) {
    Node node = queue.node;
    return node.accepted && now - node.acceptedAt <= rules.retryDelayLimit().toNanos();
  }

  /**
   * Whether the {@code number}-th attempt is a retry that its host's pace, slowed by the refusals
   * before it, made wait longer than the attempt before it (SPEC R10): the host is being learned,
   * and the refusal before it was the learning's cost. Counted as {@link #spared} spares: with a
   * rule that spares retries, at the engine's retry count, for (retries + 1) retry delay limits from
   * the call's first refusal, and only when the retry count is the engine's own (neither its
   * builder nor the context was given one: a count the user gave caps the attempts). A host that
   * refuses everything slows the pace only so far (the default rule's slowest is one a minute);
   * then each refusal spends a retry.
   */
  private boolean slowedByLearning(int number, long now) {
    if (!rules.sparesRetries() || rules.retriesGiven() || number < 2 || context.retries() != null || !startedSlower) {
      return false;
    }
    return now - refusedSince <= sparedFor(rules.retryDelayLimit().toNanos());
  }

  /**
   * How many of the call's attempts count for none of its retries (SPEC R10): where its host
   * accepted nothing within the retry delay limit, so that this process cannot tell a host that
   * others crowd it out of from one that refuses everybody, the retries that its slowing pace made
   * wait longer than the attempt before them; else none ({@link #spared} says what is spared then).
   */
  private int uncounted(long now) {
    return acceptedLately(now) ? 0 : slowed;
  }

  /** (retries + 1) retry delay limits, in nanoseconds, or the longest time for a product past it. */
  private long sparedFor(long limit) {
    long times = retries + 1L;
    return limit > Long.MAX_VALUE / times ? Long.MAX_VALUE : times * limit;
  }

  /** What the answer means: a chain of guard clauses, each with its reason. */
  private Verdict judge(R response, int status, int number, long took) {
    long retryAfter = retryAfterNanos(response);
    boolean refusal = rules.isRefusal(status, retryAfter >= 0);
    long now = refusal ? rules.clock().nanoTime() : 0;
    if (refusal && !refused) {
      refused = true;
      refusedSince = now;
    }
    if (refusal) {
      if (slowedByLearning(number, now)) {
        slowed++;
      }
      // The server named a time past our limit: waiting that long is not ours to do (SPEC R3).
      if (retryAfter > rules.retryDelayLimit().toNanos()) {
        return Verdict.giveUp(status, retryAfter,
            "Retry-After of " + Duration.ofNanos(retryAfter) + " exceeds the retry delay limit of "
                + rules.retryDelayLimit());
      }
      // The caller's budget of retries is spent (SPEC T3: it gets the refusal itself) ...
      if (number - uncounted(now) > retries && !spared(number, now)) {
        return Verdict.giveUp(status, retryAfter, "retries exhausted after " + number + " attempts");
      }
      // A stream cannot be sent again (SPEC T4).
      if (!exchange.canResend()) {
        return Verdict.giveUp(status, retryAfter, "the request body cannot be sent again");
      }
      return Verdict.retry(status, retryAfter);
    }
    // Only a context that sets a retry count retries other statuses (SPEC T2) ...
    if (context.retries() == null || number > retries) {
      return Verdict.done(status, false, retryAfter);
    }
    // ... a 504 only for a method that may be repeated (SPEC T6), a listed status for any ...
    boolean listed = context.retryStatuses().contains(status)
        || (status == 504 && isIdempotent(exchange.method()));
    if (!listed || !exchange.canResend()) {
      return Verdict.done(status, false, retryAfter);
    }
    // ... but not a query that reached the server's own limit: it would cost the limit again (SPEC D8).
    if (status == 504 && reachedServerLimit(took)) {
      return Verdict.done(status, false, retryAfter);
    }
    return Verdict.retryLater(status, context.retryFallbackDelay().toNanos());
  }

  private boolean reachedServerLimit(long took) {
    TimeoutPolicy policy = rules.timeoutPolicy();
    if (policy == null || probe != null) {
      return false;
    }
    try {
      return policy.reachedServerLimit(hostKey, Outcome.SERVER_TIMEOUT, took);
    } catch (RuntimeException | Error e) {
      rules.log().policyThrew(policy, e, "the answer was taken as not the server's own limit");
      return false; // a policy that throws cannot break the call
    }
  }

  private long retryAfterNanos(R response) {
    String value = exchange.header(response, "Retry-After");
    if (value == null) {
      return -1;
    }
    Optional<Duration> delay = RetryAfter.delay(value, rules.clock().instant());
    if (delay.isEmpty()) {
      return -1;
    }
    Duration duration = delay.get();
    // Anything beyond a year is as good as forever, and must not overflow the clock.
    return duration.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : duration.toNanos();
  }

  private static boolean isIdempotent(String method) {
    return switch (method) {
      case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
      default -> false;
    };
  }

  /**
   * Whether a failed attempt is sent once more (SPEC T6): only once per call, only for a request
   * that can be sent again (SPEC T4), and only when the exchange says its connection died before
   * any answer, so the server never handled it. It tells the timeout policy nothing: a pooled
   * connection that the server closed while idle says nothing of how the endpoint answers.
   */
  private boolean mayResend(Throwable failure) {
    if (resent) {
      return false;
    }
    String asked = " from canResend";
    try {
      if (!exchange.canResend()) {
        return false;
      }
      asked = " from diedBeforeAnswer";
      return exchange.diedBeforeAnswer(failure);
    } catch (Throwable e) {
      // An exchange that cannot judge its failure has it reach the caller.
      exchangeThrew(asked, e, "its attempt's failure reached its caller");
      return false;
    }
  }

  /**
   * Sends the request again through its host's queue, counted as an attempt, after its
   * connection died before any answer; when the engine was closed meanwhile, the failure ends the
   * call as any failure does.
   */
  private void resend(int number, Throwable failure) {
    resent = true;
    if (listened()) {
      listen(() -> context.attemptListener().settled(exchange.uri(), number, -1, failure));
      listen(() -> context.attemptListener().retrying(exchange.uri(), number));
    }
    if (!settlement.resend(this)) {
      result.completeExceptionally(failure); // does nothing when the caller had cancelled it
    }
  }

  private void failed(int number, Throwable failure) {
    if (listened()) {
      listen(() -> context.attemptListener().settled(exchange.uri(), number, -1, failure));
    }
    if (settlement.fail(this)) {
      result.completeExceptionally(failure);
    }
  }

  /**
   * The call's future ended exceptionally: the caller cancelled it or timed it out, or the call
   * failed (then this finds it done and does nothing). An attempt in flight is cancelled first, so that its place is freed
   * only once the client has let the request go; its failure frees the place as any failure does.
   * Told by its {@link CallFuture}.
   *
   * <p>The call is cancelled with the engine whatever the attempt's {@code cancel} throws (its
   * future logs it): a call left in flight would have a refusal of that attempt queued again,
   * and that retry's turn, finding the call cancelled, would hold its host's place for good.
   */
  void cancelled() {
    CompletableFuture<R> future = attemptInFlight;
    try {
      if (future != null) {
        future.cancel(true);
      }
    } finally {
      settlement.cancel(this);
    }
  }

  /** {@link #cancelled} threw {@code failure}, which its future caught: logged (SPEC L2). */
  void cancelThrew(Throwable failure) {
    exchangeThrew(" as its caller ended its call", failure,
        "the caller's end stands, and its place is freed");
  }

  private void discard(R response) {
    rules.log().discard(exchange, response, "its call went on as if the response was let go");
  }

  /**
   * The call threw {@code failure} {@code where}, and went on as {@code wentOn} says: logged (SPEC
   * L2), so that it is not lost, as an assertion in a test's exchange would be where an exception
   * is taken in silence.
   */
  private void exchangeThrew(String where, Throwable failure, String wentOn) {
    rules.log().exchangeThrew(exchange, where, failure, wentOn);
  }

  /**
   * Whether the call's context carries a listener: the notifications for {@link AttemptListener#NONE},
   * which hears nothing, are not made at all.
   */
  private boolean listened() {
    return context.attemptListener() != AttemptListener.NONE;
  }

  /**
   * Tells the attempt listener; what it throws is logged (SPEC L2), whatever it is: an {@code Error}
   * (an assertion in a test's listener) let through would skip the call's end, its place held.
   */
  private void listen(Runnable notification) {
    try {
      notification.run();
    } catch (Throwable e) { // a listener that throws cannot break the call
      rules.log().listenerThrew(context.attemptListener(), e);
    }
  }

  /** What the failure tells the timeout policy, as the exchange judges it; an exchange that throws tells nothing. */
  private @Nullable Outcome outcomeOf(Throwable failure) {
    try {
      return Outcomes.ofFailure(exchange, failure);
    } catch (Throwable e) {
      exchangeThrew(" from outcomeOf", e, "its attempt's failure told the timeout policy nothing");
      return null;
    }
  }

  @Override
  public String toString() {
    return exchange.method() + " " + exchange.uri() + " (attempt " + attempt + ", " + state + ")";
  }
}

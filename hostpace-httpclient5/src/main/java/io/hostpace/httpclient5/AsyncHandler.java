package io.hostpace.httpclient5;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Timer;
import io.hostpace.internal.AnswerDeadline;
import io.hostpace.internal.Failures;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.async.AsyncExecRuntime;
import org.apache.hc.client5.http.impl.classic.RequestFailedException;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.http.support.BasicRequestBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The async client's handler: each call goes through the engine without blocking, and each
 * attempt is {@code chain.proceed} with a callback of its own, an {@link Answer}. An attempt's
 * response, for the engine, is that answer: what arrived with the headers. Its body goes to the
 * caller's consumer if the call ends with it, and is read and dropped if the engine retries.
 *
 * <pre>
 * engine: send() ─→ chain.proceed(copy of request, producer, scope, answer)
 * client: headers ─→ answer.handleResponse(response, entity)
 *           ├─ answer.answered.complete(answer)    the engine judges it here, and frees the place:
 *           │     a refusal to retry → discard: the body is dropped, up to a limit
 *           │     the last answer → the call's future → keep: upstream.handleResponse(...)
 *           └─ returns the answer's {@link DeferredConsumer}, which hands the body to whichever was chosen
 * client: body, streamEnd, completed ─→ the chosen target: the caller's consumer and callback, or nothing
 * engine: the next attempt proceeds only once the last one is over, as the client's own redirects do;
 *         a refused body not all come a second later has its connection closed, which ends it
 * </pre>
 */
record AsyncHandler(Hostpace engine, CallContext context, Duration refusedBodyGrace) implements AsyncExecChainHandler {

  /**
   * How long after the next attempt is due a refused body still coming is waited for, before its
   * connection is closed: long enough for a body already on its way, short beside a retry's delay.
   */
  static final Duration REFUSED_BODY_GRACE = Duration.ofSeconds(1);

  AsyncHandler(Hostpace engine, CallContext context) {
    this(engine, context, REFUSED_BODY_GRACE);
  }

  @Override
  public void execute(HttpRequest request, @Nullable AsyncEntityProducer entityProducer, AsyncExecChain.Scope scope,
      AsyncExecChain chain, AsyncExecCallback callback) throws HttpException, IOException {
    Attempts attempts = new Attempts(request, entityProducer, scope, chain, callback, engine, refusedBodyGrace);
    // The caller's cancel comes here, whenever it comes: waiting or in flight, the engine cancels the
    // call, and with it the attempt in flight, whose own dependencies then abort the exchange (see
    // Answer); once the call is done, the last attempt's dependencies abort the reading of its body.
    CompletableFuture<Void> cancelRequested = new CompletableFuture<>();
    scope.cancellableDependency.setDependency(() -> {  // run at once if already cancelled
      cancelRequested.complete(null);
      attempts.abortLatest();
      return true;
    });
    CompletableFuture<Answer> call = engine.execute(attempts, HostpaceHttpClient5.callContext(scope.clientContext, context));
    cancelRequested.thenRun(() -> call.cancel(true));
    call.whenComplete((answer, failure) -> {
      if (failure == null) {
        answer.keep();
      } else {
        callback.failed(asException(failure));
      }
    });
  }

  private static Exception asException(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    if (cause instanceof CancellationException) {
      return new RequestFailedException("Request aborted", cause);
    }
    return cause instanceof Exception exception ? exception : new ExecutionException(cause);
  }

  @Override
  public String toString() {
    return "Hostpace async exec handler";
  }

  /** One call: the engine's exchange. */
  private static final class Attempts extends PacedAttempts<HttpRequest, Answer> {
    private final @Nullable AsyncEntityProducer entityProducer;
    private final AsyncExecChain.Scope scope;
    private final AsyncExecChain chain;
    private final AsyncExecCallback upstream;
    private final Duration refusedBodyGrace;
    /** The last attempt's answer: the next attempt goes once it has completed. */
    private volatile @Nullable Answer latest;

    Attempts(HttpRequest request, @Nullable AsyncEntityProducer entityProducer, AsyncExecChain.Scope scope,
        AsyncExecChain chain, AsyncExecCallback upstream, Hostpace engine, Duration refusedBodyGrace) throws HttpException {
      super(request, scope.route, scope.clientContext, engine, entityProducer == null || entityProducer.isRepeatable());
      this.entityProducer = entityProducer;
      this.scope = scope;
      this.chain = chain;
      this.upstream = upstream;
      this.refusedBodyGrace = refusedBodyGrace;
    }

    /** Aborts the last attempt's exchange, if there is one. */
    void abortLatest() {
      Answer answer = latest;
      if (answer != null) {
        answer.dependency.cancel();
      }
    }

    @Override
    HttpResponse answer(Answer answer) {
      return answer.response();
    }

    @Override
    public CompletableFuture<Answer> send() {
      Answer previous = latest;
      Answer answer = new Answer(upstream, scope.execRuntime, scope.clientContext);
      latest = answer;
      if (previous == null) {
        proceed(answer, chain);
        return answer.answered;
      }
      // As the client's own redirects do: once the refused exchange is over, on the thread that ended
      // it, so that the next attempt can take its connection again.
      previous.whenOver(() -> {
        if (previous.failedAfterAnswer) {
          scope.execRuntime.discardEndpoint(); // the refused exchange broke off: a connection afresh
        }
        if (entityProducer != null) {
          entityProducer.releaseResources(); // rewinds a repeatable body
        }
        proceed(answer, chain);
      });
      if (!previous.finished.isDone()) {
        // The refused body has not all come by the time the next attempt is due: it may stall, and no
        // timeout may be set, so it gets a grace, after which its connection is closed, which ends it.
        Timer.Cancellable cut = Timer.system().schedule(previous::cutOff, refusedBodyGrace.toNanos());
        previous.finished.whenComplete((done, failure) -> cut.cancel());
      }
      return answer.answered;
    }

    private void proceed(Answer answer, AsyncExecChain next) {
      if (answer.answered.isDone()) {
        return; // the call ended before this attempt's turn
      }
      scope.clientContext.removeAttribute(HostpaceHttpClient5.ANSWER_ARRIVED);
      try {
        // A copy per attempt, as the client's own retries make: the chain below adds headers to what it is given.
        HttpRequest attempt = BasicRequestBuilder.copy(request).build();
        answer.deadline = sending(attempt, scope.execRuntime::discardEndpoint);
        AsyncExecChain.Scope below = new AsyncExecChain.Scope(scope.exchangeId, scope.route, scope.originalRequest,
            answer.dependency, scope.clientContext, scope.execRuntime, scope.scheduler, scope.execCount);
        next.proceed(attempt, entityProducer, below, answer);
      } catch (HttpException | IOException | RuntimeException e) {
        answer.answered.completeExceptionally(e);
      }
    }

    @Override
    public void discard(Answer answer) {
      answer.letGo();
    }
  }

  /** One attempt's callback: its answer, and where its body goes. */
  static final class Answer implements AsyncExecCallback {
    /** Completes with this answer when the headers arrive, or with the attempt's failure. */
    final CompletableFuture<Answer> answered = new CompletableFuture<>();
    /** Completes when the client is done with the attempt: completed or failed. */
    final CompletableFuture<Void> finished = new CompletableFuture<>();
    /** What the chain below sets as cancellable for this attempt; cancelled with the attempt. */
    final EveryDependency dependency = new EveryDependency();
    private final AsyncExecCallback upstream;
    private final AsyncExecRuntime runtime;
    private final HttpContext context;
    private final DeferredConsumer body;
    /** Set once the next attempt may go: from then on, {@link #cutOff} leaves the connection alone. */
    @GuardedBy("this")
    private boolean handedOn;
    private volatile @Nullable HttpResponse response;
    private volatile @Nullable EntityDetails entity;
    volatile boolean failedAfterAnswer;
    /** The deadline of this attempt's whole answer, set when it proceeds. */
    volatile AnswerDeadline deadline = AnswerDeadline.none();

    Answer(AsyncExecCallback upstream, AsyncExecRuntime runtime, HttpContext context) {
      this.upstream = upstream;
      this.runtime = runtime;
      this.context = context;
      this.body = new DeferredConsumer(failure -> abort(failure));
      // The engine cancels the attempt when the call is cancelled (SPEC T5): the exchange is aborted.
      answered.whenComplete((answer, failure) -> {
        if (failure instanceof CancellationException) {
          dependency.cancel();
        }
      });
    }

    HttpResponse response() {
      HttpResponse current = response;
      if (current == null) {
        throw new IllegalStateException("the attempt has no answer yet");
      }
      return current;
    }

    @Override
    public @Nullable AsyncDataConsumer handleResponse(HttpResponse response, @Nullable EntityDetails entity) {
      // Before the engine hears it: an I/O failure from here on is not the client's to send again.
      context.setAttribute(HostpaceHttpClient5.ANSWER_ARRIVED, true);
      this.response = response;
      this.entity = entity;
      if (!answered.complete(this)) {
        letGo(); // the call ended meanwhile
      }
      return entity == null ? null : body;
    }

    @Override
    public void handleInformationResponse(HttpResponse response) throws HttpException, IOException {
      upstream.handleInformationResponse(response);
    }

    @Override
    public void completed() {
      deadline.over();
      finished.complete(null);
      body.signalQuietly(DeferredConsumer.Target::completed);
    }

    @Override
    public void failed(Exception failure) {
      // A connection dropped at the answer timeout fails as a timeout, not as the broken connection.
      Exception cause = deadline.expired() ? deadline.failure(failure) : failure;
      deadline.over();
      if (answered.isDone()) {
        failedAfterAnswer = true;
      }
      finished.complete(null);
      if (answered.completeExceptionally(cause)) {
        return; // failed before its headers: the engine hears it
      }
      body.signalQuietly(target -> target.failed(cause));
    }

    /**
     * Runs {@code next} once the exchange is over, and never while {@link #cutOff} closes its
     * connection: the next attempt may take that connection again.
     */
    void whenOver(Runnable next) {
      finished.whenComplete((done, failure) -> {
        synchronized (this) {
          handedOn = true;
        }
        next.run();
      });
    }

    /** Closes the connection of the exchange if it is not over yet, which ends it. */
    synchronized void cutOff() {
      if (!handedOn && !finished.isDone()) {
        runtime.discardEndpoint();
      }
    }

    /** The call ends with this answer: its body and completion are the caller's. */
    void keep() {
      AsyncDataConsumer consumer;
      try {
        consumer = upstream.handleResponse(response(), entity);
      } catch (HttpException | IOException | RuntimeException e) {
        body.choose(DeferredConsumer.discard());
        abort(e);
        return;
      }
      body.choose(new DeferredConsumer.Kept(consumer, upstream));
    }

    /** Another attempt follows, or the call ended otherwise: the body is read and dropped, up to a limit. */
    void letGo() {
      body.choose(DeferredConsumer.discard());
    }

    /** The caller's consumer failed on a body handed over late: the exchange is dropped, and the caller hears why. */
    private void abort(Exception failure) {
      runtime.discardEndpoint();
      upstream.failed(failure);
    }
  }
}

package io.hostpace.jdk;

import io.hostpace.CallContext;
import io.hostpace.internal.Failures;
import io.hostpace.Hostpace;
import io.hostpace.internal.UserAgent;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * A drop-in {@link HttpClient} whose requests wait in a {@link Hostpace} engine's host queues
 * (SPEC I1): it paces them per host, retries the ones a host refuses, honours
 * {@code Retry-After}, and gives back the host's last answer when retries run out.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder()
 *     .addLimit("query.wikidata.org", Limits.perSecond(5))
 *     .userAgent("my-pipeline/1.0 (+https://example.org; ops@example.org)")
 *     .build();
 * HttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
 *
 * HttpResponse<String> answer = client.send(
 *     HttpRequest.newBuilder(URI.create("https://query.wikidata.org/sparql?query=...")).build(),
 *     BodyHandlers.ofString());
 *
 * // a batch with its own limits: a view that shares the engine and the delegate
 * PacedHttpClient batch = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine)
 *     .withContext(CallContext.builder().limitsForEveryHost(Limits.inFlight(2)).retries(2).build());
 * }</pre>
 *
 * <p>What it does with each request:
 * <ul>
 * <li>{@link #send}, and both {@link #sendAsync} forms, hand it to the engine, which sends each
 *     attempt through the delegate's {@code sendAsync}; but see the threads, below. An attempt holds its host's place until
 *     its response headers arrive; its body is read after, outside the queue (SPEC P2). The body
 *     of a refusal that is retried is thrown away; the caller's body handler sees only the
 *     response the call ends with: an answer, or the last refusal with its status and body
 *     (SPEC T3), never an exception for it.
 * <li>A body the JDK can produce again ({@code ofString}, {@code ofByteArray},
 *     {@code ofByteArrays}, {@code ofFile}, {@code noBody}) is sent whole on every attempt; any
 *     other ({@code ofInputStream}, {@code fromPublisher}, {@code concat}, your own) is sent once,
 *     and its refusal returned, unless you say otherwise with {@link #replayable} (SPEC T4).
 * <li>A request without a {@code User-Agent} is sent with the engine's
 *     {@link Hostpace#userAgent()}; one that names its own keeps it (SPEC U1).
 * <li>The request's {@link HttpRequest#timeout() timeout} bounds each attempt's whole answer,
 *     body included (SPEC T7): the JDK ends an attempt whose headers do not come within it, and
 *     this client ends one whose body has not ended within it, counted from the attempt's sending,
 *     so a body that stalls or trickles cannot hold the caller. That holds for a body the caller
 *     streams ({@code ofInputStream}, {@code ofLines}) as for one read whole: give a request that
 *     streams for long a timeout that long. A request without a timeout waits as long as the
 *     server takes. A body cut there fails with a {@link BodyTimeoutException}, which says what
 *     had come. {@link #withBodyTimeoutPerRead} bounds each wait for more of the body instead, for
 *     a caller that relays a body as it comes. An {@link java.net.http.HttpTimeoutException} reaches the caller as it is and
 *     is never retried, nor is any other failure (SPEC T6).
 * <li>{@link #withMaxBodyBytes} caps the bodies of the responses (SPEC T7), for a caller that
 *     reads them whole.
 * <li>The JDK itself sends a {@code GET} or {@code HEAD} once more, at once, when the connection
 *     closes before any answer comes (it takes that for a kept-alive connection the server had let
 *     expire), and offers no setting per client to stop it. That resend stays within its attempt's
 *     place in flight; it is the one request the engine does not space, count or tell a listener
 *     of (SPEC I7), and as the JDK does not say when it happened, this client never has the
 *     engine send a request again after a failure (SPEC T6). The JDK repeats no refusal by itself.
 *     Cancelling the future of {@code sendAsync}, or any stage derived from it
 *     ({@code thenApply}, {@code whenComplete}, …) before it is done, or interrupting a thread
 *     blocked in {@code send}, takes the call out of its queue or frees its place, and aborts the
 *     exchange (SPEC T5); the JDK's own client promises the same of the stages derived from its
 *     futures. A stage that ends otherwise ({@code orTimeout}, {@code complete}) ends only itself.
 * <li>The context's {@link io.hostpace.AttemptListener} hears each attempt (SPEC A1).
 * <li>A {@link PushPromiseHandler} is handed to the delegate with every attempt, and so hears
 *     the pushes of a refused attempt too.
 * <li>Threads: where the delegate is the JDK's own client and its {@code sendAsync} would start a
 *     thread for every answer (it hands each to {@code CompletableFuture}'s default executor,
 *     which is a new thread per task, not the common pool, where that pool has one thread: one or
 *     two processors, before Java 25), each attempt is sent instead with the delegate's blocking
 *     {@code send} on a thread of a pool this client keeps: daemons, as many as attempts are under
 *     way, each let go after a minute idle, so the pool needs no closing and goes with the
 *     client. An attempt holds one until its body is read ({@code ofInputStream}: until its
 *     headers come). The caller sees no difference: failures come unwrapped as {@code sendAsync}
 *     gives them, cancelling aborts the exchange (SPEC T5), and a request with a
 *     {@link PushPromiseHandler} goes through the delegate's own {@code sendAsync}, as
 *     {@code send} takes none. Another delegate (a subclass, a test double) is always sent
 *     through with its {@code sendAsync}.
 * </ul>
 *
 * <p>Everything else is the delegate's: its configuration, its redirects and authentication
 * (which happen inside one attempt), and its {@linkplain #newWebSocketBuilder() WebSockets},
 * which are not paced. On Java 21 and later, {@link #shutdown()}, {@link #shutdownNow()},
 * {@link #awaitTermination(Duration)}, {@link #isTerminated()} and {@link #close()} are the
 * delegate's; a call still waiting in its queue when the delegate shuts down fails as the
 * delegate fails new requests. On Java 17 they do what {@code HttpClient} does by default on 21:
 * nothing.
 *
 * <p>Thread-safe and immutable; {@link #withContext} views share the engine, the delegate and the
 * pool that sends.
 */
public final class PacedHttpClient extends ForwardingHttpClient {

  private final Hostpace engine;
  private final CallContext context;
  /** The most bytes of body a response may bring; {@code Long.MAX_VALUE} for no cap. */
  private final long maxBodyBytes;
  /** True: the timeout bounds each wait for more of a body, not the whole answer ({@link #withBodyTimeoutPerRead}). */
  private final boolean bodyTimeoutPerRead;
  /** What sends each attempt: the delegate, or its {@link PooledSends} where its {@code sendAsync} would start a thread per answer. */
  private final HttpClient sender;

  private PacedHttpClient(HttpClient delegate, HttpClient sender, Hostpace engine, CallContext context, long maxBodyBytes,
      boolean bodyTimeoutPerRead) {
    super(delegate);
    this.sender = sender;
    this.engine = engine;
    this.context = context;
    this.maxBodyBytes = maxBodyBytes;
    this.bodyTimeoutPerRead = bodyTimeoutPerRead;
  }

  /** A client that sends through {@code delegate}, paced by {@code engine}, with the default context. */
  public static PacedHttpClient wrap(HttpClient delegate, Hostpace engine) {
    return wrap(delegate, engine, PooledSends.neededFor(Objects.requireNonNull(delegate, "delegate")));
  }

  /** As {@link #wrap(HttpClient, Hostpace)}, with each attempt sent on a pooled thread by the delegate's {@code send} or not, whatever this JVM needs. */
  static PacedHttpClient wrap(HttpClient delegate, Hostpace engine, boolean pooled) {
    Objects.requireNonNull(delegate, "delegate");
    return new PacedHttpClient(delegate, pooled ? PooledSends.withOwnThreads(delegate) : delegate,
        Objects.requireNonNull(engine, "engine"), CallContext.DEFAULT, Long.MAX_VALUE, false);
  }

  /**
   * A view of this client whose calls carry {@code context}: its limits, retry count and attempt
   * listener. It shares this client's engine, and so its queues, and its delegate.
   */
  public PacedHttpClient withContext(CallContext context) {
    return new PacedHttpClient(delegate(), sender, engine, Objects.requireNonNull(context, "context"), maxBodyBytes,
        bodyTimeoutPerRead);
  }

  /**
   * A view of this client whose responses may bring at most {@code maxBytes} bytes of body (SPEC
   * T7): a body over it fails, and its connection is closed, with an {@code IOException} that
   * names the request and the cap ({@link BodyTooLargeException}, which says what had come); at
   * once when its {@code Content-Length} says so, else when the byte over the cap comes. For a caller whose body handler reads the body whole (a string, a
   * byte array), so that an endless or huge body cannot exhaust its memory. The cap counts the
   * bytes as the delegate hands them on, after any decoding it does. It shares this client's
   * engine, context and delegate.
   *
   * @throws IllegalArgumentException when {@code maxBytes} is negative
   */
  public PacedHttpClient withMaxBodyBytes(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes is " + maxBytes + ": expected 0 or more bytes of body");
    }
    return new PacedHttpClient(delegate(), sender, engine, context, maxBytes, bodyTimeoutPerRead);
  }

  /**
   * A view of this client that holds each response body to the request's
   * {@link HttpRequest#timeout() timeout} per read rather than whole (SPEC T7): the JDK still ends
   * an attempt whose headers do not come within the timeout, and the body then fails, with a
   * {@link BodyTimeoutException} that says what had come, only when no byte of it came for the
   * timeout, from the headers or from the last byte. A body that keeps coming is never cut,
   * however long it takes. For a caller that relays a body as it comes, as a proxy does, whose
   * own client sees it arrive; not for one that waits for a whole answer, whose wait a body
   * trickling a byte now and then, which passes here, would hold without end. The body of a
   * refusal that is retried, which nothing relays, keeps the whole answer's bound. It shares this
   * client's engine, context, cap and delegate.
   */
  public PacedHttpClient withBodyTimeoutPerRead() {
    return new PacedHttpClient(delegate(), sender, engine, context, maxBodyBytes, true);
  }

  /** True when the request's timeout bounds each wait for more of a body, not the whole answer ({@link #withBodyTimeoutPerRead}). */
  public boolean bodyTimeoutPerRead() {
    return bodyTimeoutPerRead;
  }

  /** The most bytes of body a response may bring, or empty for no cap ({@link #withMaxBodyBytes}). */
  public OptionalLong maxBodyBytes() {
    return maxBodyBytes == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(maxBodyBytes);
  }

  /** The engine whose queues this client's requests wait in. */
  public Hostpace engine() {
    return engine;
  }

  /** The context this client's calls carry; {@link CallContext#DEFAULT} unless set with {@link #withContext}. */
  public CallContext context() {
    return context;
  }

  /** The client that sends each attempt: with its {@code sendAsync}, or its {@code send} on a pooled thread (see the class comment). */
  @Override
  public HttpClient delegate() {
    return super.delegate();
  }

  /**
   * {@code body}, marked as one that can be sent whole again on every attempt: a refused request
   * with it is retried (SPEC T4). For a publisher that produces its bytes anew for each
   * subscriber, such as {@code ofInputStream} with a supplier that opens a new stream each time.
   */
  public static BodyPublisher replayable(BodyPublisher body) {
    return Bodies.mark(Objects.requireNonNull(body, "body"), true);
  }

  /**
   * {@code body}, marked as one that can be sent only once: a refused request with it is not
   * retried, and the refusal is returned (SPEC T4). For an {@code ofByteArrays} whose
   * {@code Iterable} can be iterated only once, say.
   */
  public static BodyPublisher oneShot(BodyPublisher body) {
    return Bodies.mark(Objects.requireNonNull(body, "body"), false);
  }

  // ---------------------------------------------------------------- sending

  /**
   * Sends {@code request} through the engine and waits for the response the call ends with. It
   * throws what {@link HttpClient#send} throws: the delegate's {@code IOException} as it is (an
   * {@code HttpTimeoutException}, a {@code ConnectException}, a reset connection), an
   * {@code IllegalArgumentException} or {@code SecurityException} as it is, and any other failure
   * (a body handler that threw, say) as the cause of an {@code IOException}.
   *
   * @throws IOException when the exchange failed; never for a refusal, whose response is returned
   * @throws InterruptedException when the thread is interrupted; the call is cancelled (SPEC T5)
   */
  @Override
  public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> responseBodyHandler)
      throws IOException, InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(); // before it takes a place in a queue
    }
    CompletableFuture<HttpResponse<T>> call = sendAsync(request, responseBodyHandler);
    try {
      return call.get();
    } catch (InterruptedException e) {
      call.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      throw rethrow(e.getCause());
    }
  }

  /**
   * Sends {@code request} through the engine. The future ends with the response the call ends
   * with, or with what {@link HttpClient#sendAsync} fails with. Cancelling it, or any stage derived
   * from it, before it is done cancels the call (SPEC T5): it leaves its queue, frees its place,
   * and its exchange is aborted; as with the JDK's own client, a request already under way may
   * still have reached the server.
   */
  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> responseBodyHandler) {
    return call(request, responseBodyHandler, null);
  }

  /** As {@link #sendAsync(HttpRequest, BodyHandler)}, with the delegate's pushes handed to {@code pushPromiseHandler}. */
  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> responseBodyHandler, @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    return call(request, responseBodyHandler, pushPromiseHandler);
  }

  private <T> CompletableFuture<HttpResponse<T>> call(
      HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> pushPromiseHandler) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(handler, "responseBodyHandler");
    JdkExchange<T> exchange = new JdkExchange<>(sender, withUserAgent(request), handler, pushPromiseHandler, maxBodyBytes,
        bodyTimeoutPerRead);
    CompletableFuture<HttpResponse<T>> result = new CancelableCall<>();
    CompletableFuture<JdkExchange.Head<T>> call = engine.execute(exchange, context);
    call.whenComplete((head, failure) -> {
      if (failure != null) {
        exchange.abandon();
        result.completeExceptionally(Failures.unwrap(failure));
        return;
      }
      head.keep().whenComplete((response, bodyFailure) -> {
        if (bodyFailure != null) {
          result.completeExceptionally(Failures.unwrap(bodyFailure));
        } else {
          result.complete(response);
        }
      });
    });
    // The caller gave up (SPEC T5), by cancelling this future or a stage derived from it: out of
    // the queue, the place freed, the exchange aborted.
    result.whenComplete((response, failure) -> {
      if (failure instanceof CancellationException) {
        call.cancel(true);
        exchange.abandon();
      }
    });
    return result;
  }

  /** The request, with the engine's User-Agent if it names none (SPEC U1). */
  private HttpRequest withUserAgent(HttpRequest request) {
    String added = UserAgent.toAdd(engine, name -> request.headers().firstValue(name).isPresent());
    if (added == null) {
      return request;
    }
    return HttpRequest.newBuilder(request, (name, value) -> true)
        .setHeader(UserAgent.HEADER, added)
        .build();
  }

  /** What {@link HttpClient#send} throws for a failure of its future. */
  private static IOException rethrow(@Nullable Throwable cause) {
    if (cause instanceof IOException io) {
      return io;
    }
    if (cause instanceof IllegalArgumentException || cause instanceof SecurityException) {
      throw (RuntimeException) cause;
    }
    return new IOException(cause == null ? null : cause.getMessage(), cause);
  }

  // ---------------------------------------------------------------- the delegate's

  /**
   * The delegate's {@code close()} on Java 21 and later, which waits for its requests to
   * complete; nothing on 17. The engine is not closed: other clients share it. Views made with
   * {@link #withContext} share the delegate, so closing one closes them all.
   */
  @Override
  public void close() {
    super.close();
  }

  @Override
  public String toString() {
    return "PacedHttpClient{delegate=" + delegate() + ", context=" + context
        + (maxBodyBytes == Long.MAX_VALUE ? "" : ", maxBodyBytes=" + maxBodyBytes)
        + (bodyTimeoutPerRead ? ", bodyTimeoutPerRead" : "") + "}";
  }
}

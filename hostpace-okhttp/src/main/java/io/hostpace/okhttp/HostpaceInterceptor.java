package io.hostpace.okhttp;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.internal.UserAgent;
import io.hostpace.spi.Exchange;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.SocketException;
import java.net.URI;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
import okhttp3.EventListener;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * An OkHttp application interceptor that sends each request through a {@link Hostpace} engine
 * (SPEC I3): the request waits in its host's queue, holds its place until the response headers
 * arrive, and is sent again through the queue when the host refuses it.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder().addLimit("qlever.dev", "inFlight:1,perSecond:1").build();
 * OkHttpClient client = HostpaceInterceptor.pace(new OkHttpClient.Builder(), engine)
 *     .callTimeout(Duration.ofMinutes(2))                 // the whole call, body included (SPEC T7)
 *     .build();
 * Request request = new Request.Builder().url("https://qlever.dev/api/wikidata?query=...")
 *     .tag(CallContext.class, batch)                      // optional: this call's limits, retries, listener
 *     .build();
 * try (Response response = client.newCall(request).execute()) { ... }
 * }</pre>
 *
 * <p>What it does with each call:
 * <ul>
 * <li>Each attempt is {@code chain.proceed(request)}, on the thread that runs the interceptor,
 *     as OkHttp requires. OkHttp's {@code proceed} returns at the response headers, so the place is
 *     freed there and the body is read after, outside the queue (SPEC P2). A refused attempt's
 *     response is closed before the next {@code proceed}; OkHttp allows an application interceptor
 *     to proceed more than once.
 * <li>A body whose {@link RequestBody#isOneShot()} is true is sent once, and its refusal returned;
 *     any other body is sent whole on every attempt (SPEC T4). When retries run out, the last
 *     refusal is returned as it is, status and body (SPEC T3).
 * <li>The call's {@link CallContext} is the request's tag of type {@code CallContext}, or else the
 *     interceptor's default ({@link #of(Hostpace, CallContext)}).
 * <li>A request without a {@code User-Agent} is sent with the engine's (SPEC U1); OkHttp adds its
 *     own {@code okhttp/x} only when none is set, so it does not.
 * <li>{@link Call#cancel()} takes a waiting call out of its queue, or frees its place, and the
 *     call fails with {@code IOException("Canceled")}, as OkHttp's do (SPEC T5); an interrupted
 *     thread fails it with an {@link java.io.InterruptedIOException}. A failure of an attempt
 *     (a reset, a {@link java.net.SocketTimeoutException}) reaches the caller as OkHttp raised it,
 *     and is not retried (SPEC T6), but for one: a connection from OkHttp's pool that the server
 *     had closed (it ends or resets before any byte of the answer) is the engine's to send again,
 *     once, through the queue, as the server never handled the request; if that fails too, its
 *     failure reaches the caller.
 * </ul>
 *
 * <p><b>Where it goes.</b> {@link #pace(OkHttpClient.Builder, Hostpace)} puts it in place: it adds
 * the interceptor with {@code addInterceptor} (an application interceptor; a network interceptor
 * must proceed exactly once), and switches off the two ways OkHttp would send a request again by
 * itself inside one attempt, where the engine neither counts nor spaces it (SPEC I7):
 * <ul>
 * <li>OkHttp repeats a {@code 503} that says {@code Retry-After: 0} once, at once. {@code pace}
 *     adds a network interceptor that sets that header aside where OkHttp does not look, and this
 *     interceptor puts it back before the engine judges the response: the engine retries it,
 *     through the queue, and the caller sees the header as the server sent it.
 * <li>With {@code retryOnConnectionFailure}, OkHttp sends a request again on another connection
 *     or route when one fails (and repeats a {@code 408}). {@code pace} sets it to false: the
 *     engine sends a request again, paced and counted, when its pooled connection turns out to be
 *     dead before any answer (the server closed it while idle, say, during a long
 *     {@code Retry-After}), and any other failed attempt reaches the caller as OkHttp raised it
 *     (SPEC T6). Setting it back to true after {@code pace} lets OkHttp send again by itself,
 *     unpaced.
 * </ul>
 * Added alone with {@code addInterceptor(HostpaceInterceptor.of(engine))}, it paces every call
 * but leaves both of those on. Added twice for one engine ({@code pace} on a builder that has it
 * already, say), the second passes each attempt of the first on as it is: a call waiting for a
 * place its own attempt holds would wait for good. Interceptors added before it see the call once; those after it,
 * and network interceptors, see each attempt. Within one attempt OkHttp still follows redirects
 * (all paced as the first host).
 *
 * <p><b>The whole answer.</b> OkHttp's {@code callTimeout} bounds the whole call, from
 * {@code execute} or {@code enqueue} until the body is read or the response closed, the time it
 * waits in its host's queue included (SPEC T7): it is the deadline a caller sets so that a server
 * that stalls, trickles or never ends a body cannot hold it. OkHttp's {@code readTimeout} is per
 * read, which a trickling body never passes. No timeout is set by default: a call without a
 * {@code callTimeout} waits as long as the server takes. The interceptor reads no body whole: the
 * caller reads it, and caps it if it wants one ({@code body().source()} with a limit, say).
 *
 * <p><b>{@code enqueue} and the dispatcher.</b> The interceptor runs on the dispatcher's thread,
 * and a call that waits in its queue waits there, holding that thread and one of the
 * dispatcher's places ({@code maxRequests}, 64 by default, and {@code maxRequestsPerHost}, 5).
 * So the dispatcher caps what the engine allows: size {@code maxRequestsPerHost} to at least the
 * host's {@code inFlight} plus the calls you expect to wait for it; calls beyond wait in the
 * dispatcher's own queue, in order, without a thread. Mind {@code maxRequests}, shared by all
 * hosts: calls waiting out a long {@code Retry-After} of one host hold places that calls to other
 * hosts then wait for, so raise it (each place is a thread only while used), or give each busy
 * host a client of its own ({@code client.newBuilder().dispatcher(...)}). A waiting call costs a
 * blocked thread, not CPU. For many waiting calls, use {@code execute} on threads of your own
 * (virtual threads, say). Why not a non-blocking {@code enqueue}: an interceptor must return a
 * response, so only a {@code Call.Factory} that waits in the engine before it hands the call to
 * OkHttp could avoid the thread; that wraps all of {@code Call} (timeouts, events, tags), and is
 * left for later.
 *
 * <p><b>Timeout budgets.</b> An engine's budget (SPEC D1) ends an attempt that gets no answer in
 * time by cancelling the call (OkHttp has no other way to end an exchange from another thread):
 * the call fails with the engine's {@code AttemptTimeoutException}, and, as any timeout, is not
 * retried.
 *
 * <p>Thread-safe and stateless; share one per engine.
 */
public final class HostpaceInterceptor implements Interceptor {

  private final Hostpace engine;
  private final CallContext context;

  private HostpaceInterceptor(Hostpace engine, CallContext context) {
    this.engine = engine;
    this.context = context;
  }

  /**
   * {@code builder}, paced by {@code engine}: the interceptor added, and OkHttp's own resends
   * switched off (see the class comment). A request without a {@code CallContext} tag gets the
   * default context.
   */
  public static OkHttpClient.Builder pace(OkHttpClient.Builder builder, Hostpace engine) {
    return pace(builder, engine, CallContext.DEFAULT);
  }

  /** {@link #pace(OkHttpClient.Builder, Hostpace)}; a request without a {@code CallContext} tag gets {@code context}. */
  public static OkHttpClient.Builder pace(OkHttpClient.Builder builder, Hostpace engine, CallContext context) {
    Objects.requireNonNull(builder, "builder");
    return builder.addInterceptor(of(engine, context))
        .addNetworkInterceptor(RetryAfterZeroGuard.INSTANCE)
        .retryOnConnectionFailure(false);
  }

  /** An interceptor for {@code engine}; a request without a {@code CallContext} tag gets the default context. */
  public static HostpaceInterceptor of(Hostpace engine) {
    return of(engine, CallContext.DEFAULT);
  }

  /** An interceptor for {@code engine}; a request without a {@code CallContext} tag gets {@code context}. */
  public static HostpaceInterceptor of(Hostpace engine, CallContext context) {
    return new HostpaceInterceptor(Objects.requireNonNull(engine, "engine"), Objects.requireNonNull(context, "context"));
  }

  /** The engine whose queues the calls wait in. */
  public Hostpace engine() {
    return engine;
  }

  /** The context of a request that carries none. */
  public CallContext context() {
    return context;
  }

  /**
   * Sends the call with {@link Hostpace#send(Exchange, CallContext, java.util.function.Consumer)}:
   * each attempt on this thread, and OkHttp's {@code Call.cancel()}, which interrupts no thread,
   * handed the engine's cancel action.
   */
  @Override
  public Response intercept(Chain chain) throws IOException {
    PacedBy paced = chain.request().tag(PacedBy.class);
    if (paced != null && paced.engine() == engine) {
      return chain.proceed(chain.request()); // an attempt of this engine's call, already paced
    }
    Request request = withUserAgent(chain.request()).newBuilder().tag(PacedBy.class, new PacedBy(engine)).build();
    CallContext tagged = request.tag(CallContext.class);
    Call call = chain.call();
    Attempts attempts = new Attempts(chain, request);
    call.addEventListener(attempts.connection);
    try {
      return engine.send(attempts, tagged != null ? tagged : context, cancel -> {
        call.addEventListener(new EventListener() {
          @Override
          public void canceled(Call canceled) {
            if (!attempts.aborted) {
              cancel.run(); // the caller's cancel, not the engine's abort at a budget
            }
          }
        });
        if (call.isCanceled()) {
          cancel.run(); // cancelled before the listener was there
        }
      });
    } catch (InterruptedIOException e) {
      if (e.getCause() instanceof CancellationException) {
        throw new IOException("Canceled"); // the engine's cancel: as OkHttp's own cancelled calls fail
      }
      throw e; // the attempt's own, a SocketTimeoutException say
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException("interrupted");
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  /** The tag of a request this engine paces, which a second interceptor for it passes on. */
  private record PacedBy(Hostpace engine) {}

  /** The request, with the engine's User-Agent if it names none (SPEC U1). */
  private Request withUserAgent(Request request) {
    String added = UserAgent.toAdd(engine, name -> request.header(name) != null);
    return added == null ? request : request.newBuilder().header(UserAgent.HEADER, added).build();
  }

  @Override
  public String toString() {
    return "HostpaceInterceptor{context=" + context + "}";
  }

  /**
   * The call's attempts: each one is {@code chain.proceed}, on the interceptor's thread, its outcome a completed future.
   * OkHttp fails an attempt with the JDK's own types ({@code SocketTimeoutException}, an {@code InterruptedIOException}
   * for its call timeout, {@code ConnectException}, {@code UnknownHostException}), which the default
   * {@link Exchange#outcomeOf} classifies for the timeout policy.
   */
  private static final class Attempts implements Exchange<Response> {
    private final Chain chain;
    private final Request request;
    private final URI uri;
    private final boolean canResend;
    /** Whether the engine aborted an attempt at its timeout budget (by cancelling the call). */
    volatile boolean aborted;
    /** What OkHttp's events say of the current attempt's connection. */
    final ConnectionWatch connection = new ConnectionWatch();

    Attempts(Chain chain, Request request) {
      this.chain = chain;
      this.request = request;
      this.uri = request.url().uri();
      RequestBody body = request.body();
      this.canResend = body == null || !body.isOneShot();
    }

    @Override
    public URI uri() {
      return uri;
    }

    @Override
    public String method() {
      return request.method();
    }

    @Override
    public boolean canResend() {
      return canResend;
    }

    @Override
    public CompletableFuture<Response> send() {
      connection.reset();
      try {
        return CompletableFuture.completedFuture(RetryAfterZeroGuard.restore(chain.proceed(request)));
      } catch (IOException | RuntimeException | Error e) {
        return CompletableFuture.failedFuture(e); // the engine hands it to the caller as it is
      }
    }

    /**
     * Cancels the call, which ends the exchange in progress: OkHttp has no other way to end one
     * from another thread. A timed-out call has no other attempt, so nothing else is lost.
     */
    @Override
    public boolean abort() {
      aborted = true;
      chain.call().cancel();
      return true;
    }

    /**
     * True when the attempt went out on a connection OkHttp reused (from its pool, or the call's own
     * from its previous attempt: none was opened for it), and the connection ended or was reset before the response's head was read and with nothing
     * of it read: OkHttp then fails with {@code "unexpected end of stream"} over an
     * {@link EOFException} that found nothing buffered, or with a reset. A timeout, a cancel, or
     * any failure on a connection opened for the attempt is not such a failure (SPEC T6).
     */
    @Override
    public boolean diedBeforeAnswer(Throwable failure) {
      return connection.reused() && endedUnread(failure);
    }

    /** Whether {@code failure} is an end of the stream with nothing read, or a reset, and no timeout. */
    private static boolean endedUnread(Throwable failure) {
      boolean ended = false;
      for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
        if (t instanceof InterruptedIOException) {
          return false; // a timeout or a cancel
        }
        String message = String.valueOf(t.getMessage());
        if (t instanceof EOFException && message.startsWith(NOTHING_READ) && !readingHeaderLines(t)) {
          ended = true;
        }
        if (t instanceof SocketException
            && (message.contains("reset") || message.contains("Broken pipe"))) {
          ended = true;
        }
      }
      return ended;
    }

    /**
     * Whether the end of stream came while OkHttp read the header lines after a status line: its
     * buffer is then empty too, but the status line was an answer's first bytes.
     */
    private static boolean readingHeaderLines(Throwable endOfStream) {
      for (StackTraceElement frame : endOfStream.getStackTrace()) {
        if (frame.getMethodName().equals("readHeaders")) {
          return true;
        }
      }
      return false;
    }

    @Override
    public int status(Response response) {
      return response.code();
    }

    @Override
    public @Nullable String header(Response response, String name) {
      return response.header(name);
    }

    @Override
    public void discard(Response response) {
      response.close();
    }

    @Override
    public String toString() {
      return request.method() + " " + uri;
    }
  }

  /**
   * How OkHttp's line-reading reports an end of stream where nothing of the line had come (okio's
   * {@code EOFException} names how much it had buffered).
   */
  private static final String NOTHING_READ = "\\n not found: limit=0 ";

  /**
   * The events of one attempt, reset as each attempt starts: whether OkHttp opened a connection
   * for it, began to write the request on one, and read the response's head. A connection the
   * attempt wrote on without opening it was reused: the call's own from its previous attempt, or
   * one from the pool (OkHttp tells only the latter as {@code connectionAcquired}). An attempt runs
   * on the interceptor's thread; the fields are volatile for a listener OkHttp calls elsewhere.
   */
  static final class ConnectionWatch extends EventListener {
    private volatile boolean opened;
    private volatile boolean writing;
    private volatile boolean headersRead;

    void reset() {
      opened = false;
      writing = false;
      headersRead = false;
    }

    /** Whether the attempt went out on a connection it did not open, and no answer's head came on it. */
    boolean reused() {
      return writing && !opened && !headersRead;
    }

    @Override
    public void connectStart(Call call, InetSocketAddress address, Proxy proxy) {
      opened = true;
    }

    @Override
    public void requestHeadersStart(Call call) {
      writing = true;
    }

    @Override
    public void responseHeadersStart(Call call) {
      headersRead = true;
    }
  }
}

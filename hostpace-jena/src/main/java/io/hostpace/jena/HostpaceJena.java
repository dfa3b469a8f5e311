package io.hostpace.jena;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.jdk.PacedHttpClient;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.jena.http.HttpEnv;
import org.apache.jena.http.RegistryHttpClient;
import org.apache.jena.http.sys.HttpRequestModifier;
import org.apache.jena.http.sys.RegistryRequestModifier;
import org.apache.jena.query.ARQ;
import org.apache.jena.sparql.service.ServiceExecutorRegistry;
import org.apache.jena.sparql.util.Context;
import org.apache.jena.sys.JenaSystem;
import org.jspecify.annotations.Nullable;

/**
 * Hostpace for Apache Jena (SPEC I2): one call, and everything Jena sends over HTTP waits in the
 * engine's host queues, is retried when a host refuses it, and honours {@code Retry-After}:
 * SPARQL queries ({@code QueryExecHTTP}, {@code QueryExecutionHTTP}, {@code RDFConnection}),
 * updates ({@code UpdateExecHTTP}), and the {@code SERVICE} clauses of local queries.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder().retries(10).build();
 * try (HostpaceJena.Installation installation = HostpaceJena.install(engine)) {
 *   // a direct query, with limits of its own for this batch
 *   CallContext batch = CallContext.builder().limitsForEveryHost(Limits.inFlight(2)).build();
 *   try (QueryExecution query = QueryExecutionHTTP.service("https://qlever.dev/api/wikidata")
 *       .query("SELECT * { ?s ?p ?o } LIMIT 1")
 *       .context(HostpaceJena.contextOf(batch))
 *       .build()) {
 *     ResultSetFormatter.out(query.execSelect());
 *   }
 *   // a local query whose SERVICE clauses go through the same engine
 *   try (QueryExecution local = QueryExecution.create()
 *       .query("SELECT * { SERVICE <https://qlever.dev/api/wikidata> { ?s ?p ?o } }")
 *       .dataset(DatasetFactory.create())
 *       .context(HostpaceJena.contextOf(batch))
 *       .build()) {
 *     ResultSetFormatter.out(local.execSelect());
 *   }
 * }   // Jena's HTTP set-up is as it was
 * }</pre>
 *
 * <h2>Where Jena chooses its client, and what the installation does there</h2>
 *
 * Jena 5 chooses an {@code HttpClient} on two paths, and the installation covers both:
 * <ul>
 * <li><b>Direct queries and updates</b> ({@code ExecHTTPBuilder.build()},
 *     {@code ExecUpdateHTTPBuilder.build()}, through {@code HttpEnv.getHttpClient(url, given)}):
 *     the client given to the builder, else the {@link RegistryHttpClient} entry for the
 *     endpoint's URL (exact, or the longest registered prefix), else
 *     {@link HttpEnv#getDftHttpClient()}. {@code RDFConnection} takes the given client, else the
 *     default, when the connection is built.
 * <li><b>{@code SERVICE} clauses</b> ({@code Service.exec}): the {@code RegistryHttpClient}
 *     entry, else the query context's {@link ARQ#httpQueryClient}, else the default. A client
 *     registered by URL prefix therefore wins over the one in the query's context.
 * </ul>
 * {@link #install} replaces Jena's default client with a paced one that sends through it;
 * replaces each client in {@code RegistryHttpClient} with a paced one that sends through that
 * client, under the same key; and puts a link in front of Jena's {@code SERVICE} executors which,
 * before each clause, paces a client registered since and a plain client in the query's context,
 * so that whichever client {@code Service.exec} then chooses is paced. A client given
 * explicitly to a builder ({@code .httpClient(c)}) is used as given, and so is one registered
 * after the installation, for direct queries: give them {@link Installation#pace(HttpClient)}.
 * {@link Installation#close()} restores what the installation replaced.
 *
 * <h2>Per-query limits: how a query's context reaches its requests</h2>
 *
 * A query gets a {@link CallContext} (limits that override the engine's, a retry count, an
 * attempt listener) through its Jena context: {@link #contextOf(CallContext)} for a builder's
 * {@code .context(...)}, or {@link #set(Context, CallContext)} on a context you have, such as a
 * built execution's {@code getContext()}. Queries with different contexts each keep their limits
 * for a host, in a queue of their own, while sharing what the host taught (SPEC P8).
 *
 * <p>The context cannot travel on the client, because Jena chooses the client when the execution
 * is built and, for direct queries, never consults the query's context to choose it; a client per
 * query would have to be given to every builder, and for {@code SERVICE} a registered client wins
 * over it. Nor can it travel in a thread-local around the query: a direct query runs none of the
 * caller's code around its request. What Jena does offer is {@code HttpLib.modifyByService}:
 * just before building each request, for direct queries, updates and {@code SERVICE} alike, it
 * asks the query's context for a request modifier for the service URL
 * ({@link ARQ#httpRequestModifer}, else the registry in {@link ARQ#httpRegistryRequestModifer},
 * else the global {@link RegistryRequestModifier}). The context {@code set} makes holds, in the
 * registry's place, a marker that applies whatever the registry underneath has for the URL and
 * then leaves the context on the thread, which Jena sends the request on next; the installed
 * client that sends it takes the context from there. Nothing is added to the request: a client
 * given to a builder explicitly, which is not paced, sends it as Jena built it, and nothing of
 * Hostpace's reaches a server. Jena's resend of a request after a 401 goes with the default
 * context (see {@code CallContextMarker}).
 * (Hostpace keeps no Jena symbol of its own for the call context: a value Jena does not read
 * would do nothing on the direct path, and a caller who set it would not know.)
 *
 * <h2>The whole answer</h2>
 *
 * A query's own timeout ({@code QueryExecutionHTTP.service(url).timeout(30, SECONDS)}) becomes its
 * requests' timeout, which the installed clients hold each attempt's whole answer to, body
 * included, as {@link PacedHttpClient} does (SPEC T7): a server that stalls or trickles a result
 * fails the query with Jena's own exception, an {@code HttpTimeoutException} inside, at that
 * timeout. Without one, a query waits as long as the server takes. {@link #install(Hostpace, long)}
 * also caps the bodies Jena reads.
 *
 * <h2>Cancelling</h2>
 *
 * A direct query's {@code abort()} cancels its request (SPEC T5): a request waiting in its host's
 * queue, for a {@code Retry-After} say, leaves it and is never sent, and one under way frees its
 * place and has its exchange aborted. Jena cancels a stage it derived from the paced client's
 * future, which cancels the call as the JDK's own client does ({@link PacedHttpClient#sendAsync}).
 * The query then throws a {@code CancellationException}, as it does without Hostpace. Two things
 * do not cancel a request, because Jena does not pass them on to it: interrupting the thread of a
 * query (Jena waits for the answer with {@code join()}, which an interrupt does not end), and a
 * local query's own timeout or {@code abort()}, which leave a {@code SERVICE} request waiting in
 * its queue; the query ends when that request does, answered or refused for the last time. Give
 * the {@code SERVICE} requests a retry count ({@code CallContext.retries}) that bounds how long
 * they can wait.
 *
 * <h2>Identity and failures</h2>
 *
 * Jena sends no {@code User-Agent} on direct queries; with Hostpace installed they carry the
 * engine's ({@link Hostpace#userAgent()}) unless the caller set one ({@code .httpHeader("User-Agent",
 * ...)}), which is kept (SPEC U1). {@code SERVICE} requests carry Jena's own, which is kept too.
 * A refusal that outlasts its retries is returned to Jena as the server's last answer (SPEC T3),
 * so the caller gets Jena's usual {@code QueryExceptionHTTP} (an {@code HttpException} for an
 * update) with the real status code and the server's message in {@code getResponse()}.
 *
 * <p>One installation at a time: Jena's HTTP set-up is global. Install before queries run, and
 * close after they have finished; the link in front of the {@code SERVICE} executors is added to,
 * and removed from, Jena's global executor list. A query whose context carries an executor
 * registry of its own, copied before the installation, has no link; its {@code SERVICE} clauses
 * are still paced through the default and the registry.
 */
public final class HostpaceJena {

  /** The active installation, if any: set under the class lock, cleared by its {@code close()}. */
  private static final AtomicReference<@Nullable Installation> ACTIVE = new AtomicReference<>();

  private HostpaceJena() {}

  /**
   * Sends everything Jena sends over HTTP through {@code engine}, until the returned installation
   * is closed.
   *
   * @throws IllegalStateException when Hostpace is already installed: close that installation
   *     first; or when this version of Jena keeps its {@code RegistryHttpClient} in a way this
   *     library cannot read, so that it could not pace the clients registered there
   */
  public static Installation install(Hostpace engine) {
    return install(engine, Long.MAX_VALUE);
  }

  /**
   * {@link #install(Hostpace)}, with every response body Jena reads through the installed clients
   * capped at {@code maxBodyBytes} (SPEC T7): Jena reads a JSON result, a boolean, a graph whole,
   * so an endless or huge answer would exhaust the memory. A body over the cap fails at once when
   * its {@code Content-Length} says so, else when the byte over it comes; its connection is closed,
   * and Jena raises its own exception with an {@code IOException} inside that names the request
   * and the cap. A client given to {@link Installation#pace} that is a {@link PacedHttpClient}
   * keeps its own cap.
   *
   * @throws IllegalArgumentException when {@code maxBodyBytes} is negative
   * @throws IllegalStateException as {@link #install(Hostpace)} does
   */
  public static Installation install(Hostpace engine, long maxBodyBytes) {
    Objects.requireNonNull(engine, "engine");
    if (maxBodyBytes < 0) {
      throw new IllegalArgumentException("maxBodyBytes is " + maxBodyBytes + ": expected 0 or more bytes of body");
    }
    JenaSystem.init();
    ClientRegistry.check();
    synchronized (HostpaceJena.class) {
      Installation active = ACTIVE.get();
      if (active != null) {
        throw new IllegalStateException(
            "Hostpace is already installed for Jena (" + active + "): close that installation before installing another");
      }
      Installation installation = new Installation(engine, maxBodyBytes);
      installation.open();
      ACTIVE.set(installation);
      return installation;
    }
  }

  /** The active installation, or {@code null}. */
  static @Nullable Installation installation() {
    return ACTIVE.get();
  }

  /**
   * A copy of Jena's global context ({@link ARQ#getContext()}) that gives a query
   * {@code callContext}, for a builder's {@code .context(...)}, which replaces the global context
   * rather than adding to it: {@code QueryExecutionHTTP.service(url).query(q).context(contextOf(batch))}.
   */
  public static Context contextOf(CallContext callContext) {
    return set(ARQ.getContext().copy(), callContext);
  }

  /**
   * Gives the queries that run with {@code jenaContext} the limits, retry count and attempt
   * listener of {@code callContext}, replacing any it gave them before. Keeps the request
   * modifiers the context had: they still run, before the mark.
   *
   * @return {@code jenaContext}
   */
  public static Context set(Context jenaContext, CallContext callContext) {
    Objects.requireNonNull(jenaContext, "jenaContext");
    Objects.requireNonNull(callContext, "callContext");
    Object registry = jenaContext.get(ARQ.httpRegistryRequestModifer);
    @Nullable RegistryRequestModifier underneath = registry instanceof CallContextMarker marker
        ? marker.underneath()
        : registry instanceof RegistryRequestModifier given ? given : null;
    CallContextMarker marker = new CallContextMarker(callContext, underneath);
    jenaContext.set(ARQ.httpRegistryRequestModifer, marker);
    // A context's own request modifier makes Jena skip the registries: mark after it instead.
    Object own = jenaContext.get(ARQ.httpRequestModifer);
    if (own instanceof CallContextMarker.Marking marking) {
      own = marking.own();
    }
    if (own instanceof HttpRequestModifier modifier) {
      jenaContext.set(ARQ.httpRequestModifer, new CallContextMarker.Marking(modifier, marker));
    }
    return jenaContext;
  }

  /** The call context {@code jenaContext} gives its queries, or {@code null} when it gives none. */
  public static @Nullable CallContext callContext(Context jenaContext) {
    Object registry = jenaContext.get(ARQ.httpRegistryRequestModifer);
    return registry instanceof CallContextMarker marker ? marker.callContext() : null;
  }

  /**
   * Hostpace installed for Jena: what {@link #install} replaced, to put back on {@link #close()}.
   * Thread-safe.
   */
  public static final class Installation implements AutoCloseable {

    private final Hostpace engine;
    /** The cap on the bodies the clients it paces read, {@code Long.MAX_VALUE} for none. */
    private final long maxBodyBytes;
    private final HttpClient previousDefault;
    private final InstalledHttpClient client;
    private final PacingServiceLink link;
    private final ServiceExecutorRegistry serviceExecutors;
    @GuardedBy("this")
    private final List<Replaced> replaced = new ArrayList<>();
    @GuardedBy("this")
    private boolean closed;
    /** What Jena's global context held as its request modifier registry before, and the marker put there. */
    private @Nullable Object previousGlobalRegistry;
    private @Nullable Object unmarking;

    /** A registry entry this installation replaced with {@code paced}. */
    private record Replaced(ClientRegistry.Entry entry, HttpClient paced) {}

    private Installation(Hostpace engine, long maxBodyBytes) {
      this.engine = engine;
      this.maxBodyBytes = maxBodyBytes;
      this.previousDefault = HttpEnv.getDftHttpClient();
      this.client = (InstalledHttpClient) pace(previousDefault);
      this.link = new PacingServiceLink(this);
      this.serviceExecutors = ServiceExecutorRegistry.get();
    }

    private void open() {
      // Every query given no context passes this marker, which takes away a mark left on the thread.
      Context global = ARQ.getContext();
      Object registry = global.get(ARQ.httpRegistryRequestModifer);
      previousGlobalRegistry = registry;
      global.set(ARQ.httpRegistryRequestModifer,
          new CallContextMarker(null, registry instanceof RegistryRequestModifier given ? given : null));
      unmarking = global.get(ARQ.httpRegistryRequestModifer);
      HttpEnv.setDftHttpClient(client);
      paceRegistry();
      serviceExecutors.addSingleLink(link);
    }

    /** The engine whose queues Jena's requests wait in. */
    public Hostpace engine() {
      return engine;
    }

    /**
     * The client installed as Jena's default: paced by the engine, sending through the default
     * that was there before, with the context a request's Jena context gives it.
     */
    public HttpClient client() {
      return client;
    }

    /**
     * A paced client that sends through {@code given}, for a builder's {@code .httpClient(...)}
     * or for {@code RegistryHttpClient}: requests through it go through the engine, with their
     * Jena context's call context, or else the default context. A {@link PacedHttpClient} is
     * paced by its own engine, with its own context unless a request's Jena context gives one.
     */
    public HttpClient pace(HttpClient given) {
      Objects.requireNonNull(given, "given");
      if (given instanceof InstalledHttpClient installed) {
        return installed;
      }
      if (given instanceof PacedHttpClient paced) {
        return new InstalledHttpClient(paced);
      }
      PacedHttpClient paced = PacedHttpClient.wrap(given, engine);
      return new InstalledHttpClient(maxBodyBytes == Long.MAX_VALUE ? paced : paced.withMaxBodyBytes(maxBodyBytes));
    }

    /** Replaces each client in {@code RegistryHttpClient} that is not paced with one that is. */
    private synchronized void paceRegistry() {
      if (closed) {
        return;
      }
      RegistryHttpClient registry = RegistryHttpClient.get();
      for (ClientRegistry.Entry entry : ClientRegistry.entries(registry)) {
        if (entry.client() instanceof InstalledHttpClient) {
          continue;
        }
        HttpClient paced = pace(entry.client());
        ClientRegistry.put(registry, entry, paced);
        replaced.add(new Replaced(entry, paced));
      }
    }

    /**
     * Before a {@code SERVICE} clause to {@code serviceURL} runs with {@code context}: paces the
     * client {@code Service.exec} will choose if it is not yet, whether registered since the
     * installation or in the query's context.
     */
    void paceServiceClients(String serviceURL, @Nullable Context context) {
      HttpClient registered = RegistryHttpClient.get().find(serviceURL);
      if (registered != null && !(registered instanceof InstalledHttpClient)) {
        paceRegistry();
      }
      if (context != null && context.get(ARQ.httpQueryClient) instanceof HttpClient given
          && !(given instanceof InstalledHttpClient)) {
        synchronized (this) {
          if (!closed) {
            context.set(ARQ.httpQueryClient, pace(given));
          }
        }
      }
    }

    /**
     * Whether Jena's choice of client for {@code serviceURL}, as far as it depends on no builder
     * or context, is an installed one: the {@code RegistryHttpClient} entry, else the default.
     */
    boolean paces(String serviceURL) {
      HttpClient registered = RegistryHttpClient.get().find(serviceURL);
      HttpClient chosen = registered != null ? registered : HttpEnv.getDftHttpClient();
      return chosen instanceof InstalledHttpClient;
    }

    /**
     * Puts back what the installation replaced, where nobody has replaced it since: Jena's
     * default client, the clients in {@code RegistryHttpClient}, and the {@code SERVICE}
     * executors. Clients of this installation still held (by an {@code RDFConnection} built
     * meanwhile, say) keep sending through the engine. Idempotent.
     */
    @Override
    public void close() {
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
        serviceExecutors.removeSingleLink(link);
        Context global = ARQ.getContext();
        if (unmarking != null && global.get(ARQ.httpRegistryRequestModifer) == unmarking) {
          if (previousGlobalRegistry == null) {
            global.remove(ARQ.httpRegistryRequestModifer);
          } else {
            global.set(ARQ.httpRegistryRequestModifer, previousGlobalRegistry);
          }
        }
        if (HttpEnv.getDftHttpClient() == client) {
          HttpEnv.setDftHttpClient(previousDefault);
        }
        RegistryHttpClient registry = RegistryHttpClient.get();
        for (Replaced entry : replaced) {
          if (ClientRegistry.at(registry, entry.entry().key()) == entry.paced()) {
            ClientRegistry.put(registry, entry.entry(), entry.entry().client());
          }
        }
        replaced.clear();
      }
      ACTIVE.compareAndSet(this, null);
    }

    @Override
    public synchronized String toString() {
      return "HostpaceJena.Installation{" + (closed ? "closed" : "active") + ", engine=" + engine + "}";
    }
  }
}

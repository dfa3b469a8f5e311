package io.hostpace.proxy;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.jdk.PacedHttpClient;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;

/**
 * A local reverse proxy in which every request to a route is sent upstream through one
 * {@link Hostpace} engine (SPEC X1): programs in any language (a Python script, curl in a shell
 * loop, R, Node) are paced per host, retried after refusals, and held to {@code Retry-After} by
 * changing only the base URL they send to; several of them on one machine share the engine's
 * queues and what it learned.
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder().userAgent("my-lab/1.0 (ops@example.org)").build();
 * try (HostpaceProxy proxy = HostpaceProxy.builder(engine)
 *     .route("/wikidata", URI.create("https://query.wikidata.org"))
 *     .route("/qlever", URI.create("https://qlever.dev/api"))
 *     .start()) {
 *   // curl 'http://127.0.0.1:8181/wikidata/sparql?query=ASK%7B%7D'
 * }
 * }</pre>
 *
 * <p>What it does with each request (SPEC X2): a request whose path is a route's prefix, or under
 * it, goes to the route's target with the rest of its path and its query (what a URL cannot hold
 * there, as the raw {@code {}} of {@code ?query=ASK{}}, percent-encoded), through a
 * {@link PacedHttpClient}; a path with a dot segment ({@code /wikidata/../x}) is answered 400,
 * never sent outside the route's base (SPEC X3). Its method, body and end-to-end headers are passed on, the client's
 * own {@code User-Agent} kept and the engine's added where it has none (SPEC U1). The upstream's
 * status, headers and body come back unchanged but for the hop-by-hop headers, with no
 * {@code Date} or {@code Server} of the proxy's besides theirs (a {@code Date} where the upstream
 * sent none); the proxy's own answers carry a {@code Date} and no {@code Server}. A refusal whose
 * retries ran out is returned as the upstream sent it (SPEC T3); redirects are passed on, not
 * followed. The body of a request is read whole before it is queued, and held once (so that a
 * refused request is sent again whole), up to {@linkplain Builder#maxRequestBytes a cap}; the
 * answer's body is streamed, never held whole. A client that closes its connection before its answer comes cancels
 * its request: out of its queue while it waits, its exchange ended while it is upstream (SPEC T5). An upstream that cannot be reached is answered 502, one that timed out 504.
 * {@code /hostpace/hosts} answers each host's snapshot as JSON, and {@code /hostpace/metrics} the
 * engine's meters in Prometheus's format when {@linkplain Builder#metrics given}; neither is ever
 * forwarded, and any other path is answered 404 (SPEC X3: routes only, no open relay).
 *
 * <p>It forwards plain {@code http://} requests too, as a forward proxy ({@code http_proxy}), for
 * the hosts it is {@linkplain Builder#forward given}; a proxy that forwards none takes every
 * request as its own whatever its {@code Host}, and one that forwards some, a request that names
 * its port and a host not to forward (SPEC X5). It opens no tunnels ({@code CONNECT}, 501), as a tunnel's requests cannot be paced
 * without ending TLS.
 *
 * <p>It listens on 127.0.0.1 unless told otherwise, and an address other than a loopback one
 * needs {@link Builder#allowRemoteClients} (SPEC X4). Closing the proxy stops its server; the
 * engine and the client are the caller's.
 */
public final class HostpaceProxy implements AutoCloseable {

  /** The proxy's port unless set: 8181. */
  public static final int DEFAULT_PORT = 8181;

  private final Server server;
  private final ServerConnector connector;
  private final List<Route> routes;

  private HostpaceProxy(Server server, ServerConnector connector, List<Route> routes) {
    this.server = server;
    this.connector = connector;
    this.routes = routes;
  }

  /** A builder of a proxy whose requests go through {@code engine}. */
  public static Builder builder(Hostpace engine) {
    return new Builder(Objects.requireNonNull(engine, "engine"));
  }

  /** The port the proxy listens on: the one given, or the one the system chose for port 0. */
  public int port() {
    return connector.getLocalPort();
  }

  /** The proxy's base URL, as {@code http://127.0.0.1:8181}. */
  public URI uri() {
    String host = connector.getHost() == null ? "127.0.0.1" : connector.getHost();
    return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port());
  }

  /** The routes, as {@code /prefix=target}, longest prefix first. */
  public List<String> routes() {
    return routes.stream().map(Route::toString).toList();
  }

  /** Stops the server: requests under way are cut. The engine and the client are the caller's, and stay open. */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("the proxy's server did not stop: " + e, e);
    }
  }

  @Override
  public String toString() {
    return "HostpaceProxy" + uri() + routes();
  }

  /** Builds a {@link HostpaceProxy}: its routes, where it listens, and how it sends. */
  public static final class Builder {
    private final Hostpace engine;
    private final List<Route> routes = new ArrayList<>();
    private final List<String> forwarded = new ArrayList<>();
    private InetSocketAddress listen = new InetSocketAddress("127.0.0.1", DEFAULT_PORT);
    private boolean allowRemoteClients;
    private @Nullable HttpClient client;
    private CallContext context = CallContext.DEFAULT;
    private @Nullable Duration timeout;
    private long maxRequestBytes = 16L * 1024 * 1024;
    private @Nullable Supplier<String> metrics;
    private int maxThreads = 256;

    private Builder(Hostpace engine) {
      this.engine = engine;
    }

    /**
     * Forwards the requests whose path is {@code prefix} or starts with {@code prefix/} to
     * {@code target}, an http or https base URL: {@code /wikidata/sparql?query=…} with
     * {@code route("/wikidata", URI.create("https://query.wikidata.org"))} goes to
     * {@code https://query.wikidata.org/sparql?query=…}. Where two routes' prefixes both match, the
     * longer wins.
     *
     * @throws IllegalArgumentException for a prefix that is not a plain path, {@code /hostpace},
     *     one given before, or a target that is not an http(s) base URL, whose port is not 1 to
     *     65535, or whose host {@link URI} cannot read (a name with {@code _})
     */
    public Builder route(String prefix, URI target) {
      return route(new Route(prefix, target));
    }

    /** {@link #route(String, URI)} from {@code /prefix=URL}, as the command line's {@code --route} takes it. */
    public Builder route(String spec) {
      return route(Route.parse(Objects.requireNonNull(spec, "spec")));
    }

    private Builder route(Route route) {
      for (Route given : routes) {
        if (given.prefix().equals(route.prefix())) {
          throw new IllegalArgumentException("the prefix " + route.prefix() + " is routed twice: to " + given.target()
              + " and to " + route.target());
        }
      }
      routes.add(route);
      return this;
    }

    /**
     * Forwards plain {@code http://} requests for {@code key}'s host as a forward proxy does, for a
     * client that uses this proxy as its {@code http_proxy}: a host's key ({@code example.org},
     * {@code example.org:8080}) or a group's ({@code *.example.org}), written as the engine writes
     * keys. A request for any other host is answered 403: the proxy is no open relay. A tunnel
     * ({@code CONNECT}, what a client asks of a proxy for {@code https://}) is answered 501: its
     * requests cannot be paced without ending TLS here; route such a host instead.
     *
     * @throws IllegalArgumentException naming the key when it is not a host's or a group's key
     */
    public Builder forward(String key) {
      String checked = Forwarding.check(Objects.requireNonNull(key, "key"));
      if (!forwarded.contains(checked)) {
        forwarded.add(checked);
      }
      return this;
    }

    /** Listens on {@code address} (port 0: one the system chooses); 127.0.0.1:8181 unless set. */
    public Builder listen(InetSocketAddress address) {
      this.listen = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * Lets the proxy listen on an address other than a loopback one, where other machines may
     * reach it: every one of them then sends through this engine, as this machine's programs do.
     */
    public Builder allowRemoteClients(boolean allow) {
      this.allowRemoteClients = allow;
      return this;
    }

    /**
     * Sends upstream through {@code client} (paced by the engine here); a client that follows no
     * redirects, with the JDK's defaults otherwise, unless set.
     */
    public Builder client(HttpClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** Every forwarded request carries {@code context}: its limits, retry count and listener; the default context unless set. */
    public Builder context(CallContext context) {
      this.context = Objects.requireNonNull(context, "context");
      return this;
    }

    /**
     * How long each attempt waits for its answer's headers (504 beyond), and then each wait for
     * more of its body (SPEC T7, X1): a body of which no byte came for {@code timeout} is cut, one
     * that keeps coming is relayed whole however long it takes; none unless set.
     */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("a timeout is above zero, was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * The longest request body the proxy takes; 16 MiB unless set. A longer one is answered 413, never
     * sent, and its connection closed once the rest of the body (up to 16 MiB more) was read and dropped.
     */
    public Builder maxRequestBytes(long maxBytes) {
      if (maxBytes < 0) {
        throw new IllegalArgumentException("maxRequestBytes is at least 0, was " + maxBytes);
      }
      this.maxRequestBytes = maxBytes;
      return this;
    }

    /**
     * Answers {@code /hostpace/metrics} with what {@code scrape} gives, in Prometheus's text format
     * (for example a Micrometer {@code PrometheusMeterRegistry}'s {@code scrape}, bound to the
     * engine's meters by {@code hostpace-micrometer}); answered 404 unless set.
     */
    public Builder metrics(Supplier<String> scrape) {
      this.metrics = Objects.requireNonNull(scrape, "scrape");
      return this;
    }

    /** The most threads of the server's pool, where the JDK has no virtual threads: 256 unless set. */
    Builder maxThreads(int maxThreads) {
      this.maxThreads = maxThreads;
      return this;
    }

    /**
     * Starts the proxy: it listens when this returns.
     *
     * @throws IllegalStateException when no route was given, or the address is not a loopback
     *     one and remote clients were not allowed, or the server could not start (the port in use)
     */
    public HostpaceProxy start() {
      if (routes.isEmpty() && forwarded.isEmpty()) {
        throw new IllegalStateException("a proxy needs at least one route, as /wikidata=https://query.wikidata.org,"
            + " or a host to forward");
      }
      if (listen.isUnresolved()) {
        throw new IllegalStateException("the address " + listen.getHostString() + " to listen on does not resolve");
      }
      if (!listen.getAddress().isLoopbackAddress() && !allowRemoteClients) {
        throw new IllegalStateException("the proxy listens on a loopback address unless remote clients are allowed: "
            + listen.getHostString() + " is not one (allowRemoteClients(true), or --allow-remote on the command line)");
      }
      List<Route> sorted = new ArrayList<>(routes);
      sorted.sort(Comparator.comparingInt((Route route) -> route.prefix().length()).reversed());
      HttpClient delegate = client != null ? client : HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
      // Where the JDK's client would start a thread for every answer, the paced one sends on pooled threads.
      // The timeout bounds each wait for more of a body, not the whole answer: the body is relayed
      // as it comes, its status and headers already sent, and a long one that keeps coming is whole.
      PacedHttpClient paced = PacedHttpClient.wrap(delegate, engine).withContext(context).withBodyTimeoutPerRead();

      // A request holds a thread while its body is read and while its answer is relayed, none while
      // it waits its turn: the pool bounds the requests read and relayed at once, not those waiting.
      QueuedThreadPool threads = new QueuedThreadPool(maxThreads, 4);
      threads.setName("hostpace-proxy");
      if (VirtualThreads.areSupported()) { // Java 21: a virtual thread each, not a pooled one
        threads.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("hostpace-proxy-"));
      }
      Server server = new Server(threads);
      // A proxied answer carries the upstream's Date and Server, not Jetty's besides (HTTP allows
      // one Date); the proxy's own answers get a Date of their own from the handler.
      HttpConfiguration http = new HttpConfiguration();
      http.setSendServerVersion(false);
      http.setSendDateHeader(false);
      ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
      connector.setHost(listen.getAddress().getHostAddress());
      connector.setPort(listen.getPort());
      server.addConnector(connector);
      server.setHandler(new ProxyHandler(engine, paced, List.copyOf(sorted), new Forwarding(forwarded), timeout, maxRequestBytes,
          metrics));
      try {
        server.start();
      } catch (Exception e) {
        try {
          server.stop();
        } catch (Exception ignored) {
          // the start's failure is the one to tell
        }
        throw new IllegalStateException("the proxy could not listen on " + listen.getHostString() + ":" + listen.getPort()
            + ": " + e.getMessage(), e);
      }
      return new HostpaceProxy(server, connector, List.copyOf(sorted));
    }
  }
}

package io.hostpace.cli;

import io.hostpace.Hostpace;
import io.hostpace.micrometer.HostpaceMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.hostpace.proxy.HostpaceProxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code hostpace proxy}: a local reverse proxy whose routes go upstream through one engine, with
 * {@code fetch}'s options ({@link HostpaceProxy}, SPEC X1 to X5), until Ctrl-C; the engine's meters
 * ({@code hostpace-micrometer}) at {@code /hostpace/metrics} in Prometheus's format. It prints where it
 * listens and its routes, then nothing but warnings (and the engine's decisions with
 * {@code --verbose}); at the end it saves {@code --state} and leaves {@code --fleet}. Exit status
 * 130 after Ctrl-C, 2 for a usage error (nothing listened), 1 when the proxy could not listen.
 */
@Command(name = "proxy", mixinStandardHelpOptions = true,
    description = "Serve routes to upstreams through one engine, for programs in any language, until Ctrl-C.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"1:the proxy could not listen (the port in use, say)",
        "2:a usage error, said in one line that names the option: nothing listened",
        "130:stopped by Ctrl-C: --state is saved"},
    footerHeading = "%nExamples:%n",
    footer = {"  hostpace proxy --route /wikidata=https://query.wikidata.org \\",
        "      --route /qlever=https://qlever.dev/api",
        "  curl 'http://127.0.0.1:8181/wikidata/sparql?query=ASK%%7B%%7D'",
        "  hostpace proxy --forward '*.example.org' &",
        "  http_proxy=http://127.0.0.1:8181 curl http://a.example.org/",
        "  hostpace proxy --listen 127.0.0.1:9000 --route /api=https://api.example.org \\",
        "      --host 'api.example.org=inFlight:2,perSecond:5' --state hosts.tsv"})
final class ProxyCommand implements java.util.concurrent.Callable<Integer> {

  private final Main.Streams streams;
  /** Counted down to stop the proxy: by Ctrl-C's hook, or by a test. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Mixin
  PacingOptions pacing = new PacingOptions();

  @Option(names = "--route", paramLabel = "/PREFIX=URL",
      description = "send the requests whose path is /PREFIX or under it to URL, the rest of the path and the query "
          + "appended; repeatable, e.g. --route /wikidata=https://query.wikidata.org")
  List<String> routes = new ArrayList<>();

  @Option(names = "--forward", paramLabel = "KEY",
      description = "also forward plain http:// requests for this host (example.org, example.org:8080) or group "
          + "(*.example.org), for clients that use the proxy as their http_proxy; repeatable. Tunnels (CONNECT, for "
          + "https://) are refused: route such a host instead")
  List<String> forward = new ArrayList<>();
  /** The routes and the hosts to forward that {@code --config} gave, not the command line. */
  private final java.util.Set<String> routesFromFile = new java.util.HashSet<>();
  private final java.util.Set<String> forwardFromFile = new java.util.HashSet<>();

  @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:" + HostpaceProxy.DEFAULT_PORT,
      description = "where to listen; a port of 0 is any free one (default ${DEFAULT-VALUE})")
  String listen = "127.0.0.1:" + HostpaceProxy.DEFAULT_PORT;

  @Option(names = "--allow-remote",
      description = "listen on an address other machines may reach: every one of them then sends through this engine")
  boolean allowRemote;

  @Option(names = "--max-request-body", paramLabel = "SIZE", defaultValue = "16MiB",
      description = "the longest request body taken, answered 413 beyond: bytes or with a unit, 64KiB, 16MiB "
          + "(default ${DEFAULT-VALUE})")
  String maxRequestBody = "16MiB";

  ProxyCommand(Main.Streams streams) {
    this.streams = streams;
  }

  @picocli.CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    configure();
    if (routes.isEmpty() && forward.isEmpty()) {
      throw pacing.usage("--route /PREFIX=URL is missing: the proxy needs a route, as --route /wikidata=https://query.wikidata.org,"
          + " or a host to --forward");
    }
    InetSocketAddress address = address();
    long maxBody = FetchCommand.maxBody(pacing, "--max-request-body", maxRequestBody);
    java.time.Duration timeout = pacing.timeout();
    HostpaceProxy.Builder builder;
    Hostpace engine;
    HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    // The builder checks the routes before anything is made, so that a wrong one is a usage error.
    io.hostpace.CallContext context = pacing.context();
    // The engine's meters, in Prometheus's format at /hostpace/metrics.
    HostpaceMetrics metrics = HostpaceMetrics.create();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    engine = pacing.engine(metrics.listener(), io.hostpace.jdk.HttpProbe.head(http));
    metrics.watch(engine).bindTo(registry);
    builder = HostpaceProxy.builder(engine).client(http).context(context).timeout(timeout).maxRequestBytes(maxBody)
        .listen(address).allowRemoteClients(allowRemote).metrics(registry::scrape);
    String option = "--route";
    // The --config key that gave what is wrong, if one did: named as every other key of the file is.
    String where = null;
    try {
      for (String route : routes) {
        where = routesFromFile.contains(route) ? whereOf(route) : null;
        builder.route(route);
      }
      option = "--forward";
      for (String key : forward) {
        where = forwardFromFile.contains(key) ? whereOf("--forward") : null;
        builder.forward(key);
      }
    } catch (IllegalArgumentException e) {
      engine.close();
      pacing.endRun(streams.err());
      throw pacing.usage(option + " " + e.getMessage() + (where != null ? " (from " + where + ")" : ""));
    }
    if (!address.getAddress().isLoopbackAddress()) {
      if (!allowRemote) {
        engine.close();
        pacing.endRun(streams.err());
        throw pacing.usage("--listen " + listen + " is not a loopback address: other machines could send through this "
            + "engine; say so with --allow-remote");
      }
      streams.err().println("hostpace: warning: listening on " + listen + ", which other machines may reach: every one "
          + "of them sends through this engine");
    }
    HostpaceProxy proxy;
    try {
      proxy = builder.start();
    } catch (IllegalStateException e) {
      engine.close();
      pacing.endRun(streams.err());
      streams.err().println("hostpace: " + e.getMessage());
      return Main.FAILED;
    }
    try (InterruptHook interrupt = InterruptHook.install(stop::countDown)) {
      streams.out().println("hostpace proxy on " + proxy.uri() + " (and " + proxy.uri() + "/hostpace/hosts)");
      for (String route : proxy.routes()) {
        int equals = route.indexOf('=');
        streams.out().println("  " + proxy.uri() + route.substring(0, equals) + " -> " + route.substring(equals + 1));
      }
      for (String key : forward) {
        streams.out().println("  http://" + key + "/... forwarded (http_proxy=" + proxy.uri() + ")");
      }
      streams.out().flush();
      try {
        stop.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      proxy.close();
      engine.close();
      boolean saved = pacing.endRun(streams.err());
      interrupt.ended();
      return interrupt.interrupted() ? Main.INTERRUPTED : saved ? Main.OK : Main.FAILED;
    }
  }

  /** Where {@code --config} gave {@code optionOrRoute} ({@code --forward}, or a {@code /PREFIX=URL}); null when it did not. */
  private @Nullable String whereOf(String optionOrRoute) {
    ConfigFile file = pacing.configFile();
    return file != null ? file.whereOf(optionOrRoute) : null;
  }

  /**
   * Takes what {@code --config} says of the proxy's options ({@code hostpace.proxy.*}) where the
   * command line does not: a route of the file whose prefix the command line routes too is the
   * command line's, and the file's hosts to forward are added to those given.
   */
  private void configure() {
    ConfigFile file = pacing.configFile();
    if (file == null) {
      return;
    }
    picocli.CommandLine.ParseResult given = spec.commandLine().getParseResult();
    int routesGiven = routes.size();
    routes = ConfigFile.merged(file.routes(), routes);
    routesFromFile.addAll(routes.subList(0, routes.size() - routesGiven)); // the file's come first
    String forwarded = file.value("--forward");
    if (forwarded != null) {
      for (String key : forwarded.split(",")) {
        if (!key.isBlank() && !forward.contains(key.strip())) {
          forward.add(key.strip());
          forwardFromFile.add(key.strip());
        }
      }
    }
    String address = file.value("--listen");
    if (!given.hasMatchedOption("--listen") && address != null) {
      listen = address;
    }
    String maxBody = file.value("--max-request-body");
    if (!given.hasMatchedOption("--max-request-body") && maxBody != null) {
      maxRequestBody = maxBody;
    }
    String allow = file.value("--allow-remote");
    if (!given.hasMatchedOption("--allow-remote") && allow != null) {
      if (!allow.strip().equalsIgnoreCase("true") && !allow.strip().equalsIgnoreCase("false")) {
        throw pacing.usage("--allow-remote is true or false, got '" + allow + "' (from " + file.whereOf("--allow-remote") + ")");
      }
      allowRemote = Boolean.parseBoolean(allow.strip());
    }
  }

  /** The address of {@code --listen}, a usage error when it is not HOST:PORT. */
  private InetSocketAddress address() {
    int colon = listen.lastIndexOf(':');
    if (colon <= 0 || colon == listen.length() - 1) {
      throw pacing.usage("--listen '" + listen + "' is not HOST:PORT, such as 127.0.0.1:8181");
    }
    String host = listen.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Numbers.whole(listen.substring(colon + 1));
    } catch (TypeConversionException e) {
      throw pacing.usage("--listen '" + listen + "': the port is not a number");
    }
    if (port < 0 || port > 65535) {
      throw pacing.usage("--listen '" + listen + "': the port is 0 to 65535");
    }
    try {
      return new InetSocketAddress(InetAddress.getByName(host), port);
    } catch (UnknownHostException e) {
      throw pacing.usage("--listen '" + listen + "': the host '" + host + "' is not known");
    }
  }
}

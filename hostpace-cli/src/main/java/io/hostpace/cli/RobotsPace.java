package io.hostpace.cli;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.Rate;
import io.hostpace.jdk.PacedHttpClient;
import java.lang.System.Logger.Level;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@code fetch --respect-robots}: the context each host's requests go with once its robots.txt
 * is read. The first URL of a host asks the host for {@code /robots.txt}, through the run's engine
 * and client with the run's context, so that request is paced like any other to the host; every
 * URL of the host, the first too, waits for that answer, and then goes with the context it gave.
 *
 * <p>Invariant: a host's robots.txt is asked for once, and no other request to the host is sent
 * before its answer (or its failure) came, because each of the host's URLs waits in its
 * {@link Host} until that answer's context is known, and the first of them asks for it. The map of
 * hosts is only touched by the thread that sends the run's URLs, one after another; a host's
 * waiting URLs are let go, in the order they came, by the thread that read its robots.txt.
 *
 * <p>A robots.txt with a {@code Crawl-delay} for the crawler's product token, else for
 * {@code *} ({@link RobotsTxt}), paces its host at one request per that delay, unless the limits
 * the run gives the host are as slow already: the slower of the two holds, so the option never
 * makes a run faster than its options asked, and it keeps the host's other limits (its in-flight
 * limit, its groups'). Example: a Crawl-delay of 2 s and {@code --max-rate 1} pace the host at
 * 0.5 a second; the same delay and {@code --host 'example.org=perSecond:0.1'} leave it at 0.1 a
 * second. A robots.txt that is missing (any status but 2xx), cannot be fetched or asks no delay
 * changes nothing.
 *
 * <p>The robots.txt request goes with the run's context and the host's URLs with the slower one,
 * whose pace counts from its own first start: so the host's first URL waits the delay after the
 * robots.txt's answer, as the next waits it after the first. The robots.txt was the host's first
 * request, and the delay is between two of them.
 */
final class RobotsPace {

  private static final System.Logger LOG = System.getLogger(RobotsPace.class.getName());

  private final Hostpace engine;
  private final PacedHttpClient client;
  private final CallContext context;
  private final Duration timeout;
  /** The context for a host paced at a rate of its own, by its key with port: {@link PacingOptions#context(String, Rate)}. */
  private final BiFunction<String, Rate, CallContext> paced;
  /** Hears each robots.txt request as it is sent, to cancel it on Ctrl-C. */
  private final Consumer<CompletableFuture<?>> onSent;
  /** Runs a task once a delay has passed: the release of a host's URLs its robots.txt spaced. */
  private final BiConsumer<Duration, Runnable> later;
  /** Each host's robots.txt read or awaited, by its key (host, and port but 80 or 443); touched by the sending thread alone. */
  private final Map<String, Host> byHost = new HashMap<>();

  /**
   * One host's robots.txt: the URLs that wait for it, in the order they came, then the context it
   * gave. The URLs are let go in that order, each queued in the engine before the next, so that the
   * host's queue has them in the order they were given.
   */
  private static final class Host {
    @GuardedBy("this")
    private final List<CompletableFuture<CallContext>> waiting = new ArrayList<>();
    @GuardedBy("this")
    private @Nullable CallContext read;

    /** The context of the next URL of the host: the one its robots.txt gave, once read. */
    synchronized CompletableFuture<CallContext> next() {
      CallContext known = read;
      if (known != null) {
        return CompletableFuture.completedFuture(known);
      }
      CompletableFuture<CallContext> waits = new CompletableFuture<>();
      waiting.add(waits);
      return waits;
    }

    /**
     * The robots.txt gave {@code context}: lets the waiting URLs go, in order, outside the lock
     * (each is sent as it goes), and then those that came meanwhile, until none waits.
     */
    void read(CallContext context) {
      while (true) {
        List<CompletableFuture<CallContext>> go;
        synchronized (this) {
          if (waiting.isEmpty()) {
            read = context;
            return;
          }
          go = new ArrayList<>(waiting);
          waiting.clear();
        }
        go.forEach(url -> url.complete(context));
      }
    }
  }

  RobotsPace(Hostpace engine, PacedHttpClient client, CallContext context, Duration timeout,
      BiFunction<String, Rate, CallContext> paced, Consumer<CompletableFuture<?>> onSent) {
    this(engine, client, context, timeout, paced, onSent,
        (delay, task) -> CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS).execute(task));
  }

  /** As above, with {@code later} to run a task once a delay has passed (a test's, to see the delay and run it). */
  RobotsPace(Hostpace engine, PacedHttpClient client, CallContext context, Duration timeout,
      BiFunction<String, Rate, CallContext> paced, Consumer<CompletableFuture<?>> onSent,
      BiConsumer<Duration, Runnable> later) {
    this.later = later;
    this.engine = engine;
    this.client = client;
    this.context = context;
    this.timeout = timeout;
    this.paced = paced;
    this.onSent = onSent;
  }

  /**
   * The context {@code target} goes with, once its host's robots.txt answered: the run's for a
   * target that is not an http or https URL with a host (its record says what is wrong with it).
   */
  CompletableFuture<CallContext> contextOf(String target) {
    URI uri;
    try {
      uri = new URI(target);
    } catch (URISyntaxException e) {
      return CompletableFuture.completedFuture(context);
    }
    String scheme = uri.getScheme();
    String host = uri.getHost();
    if (host == null || scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
      return CompletableFuture.completedFuture(context);
    }
    int port = uri.getPort() != -1 ? uri.getPort() : scheme.equalsIgnoreCase("https") ? 443 : 80;
    // 80 and 443 are one port to the engine, the default, as in its keys.
    String hostAndPort = host.toLowerCase(Locale.ROOT) + ":" + port;
    String key = port == 80 || port == 443 ? host.toLowerCase(Locale.ROOT) : hostAndPort;
    Host known = byHost.get(key);
    if (known == null) {
      Host asked = new Host();
      byHost.put(key, asked);
      CompletableFuture<CallContext> first = asked.next(); // before the robots.txt is asked for: it may answer at once
      read(uri, scheme.toLowerCase(Locale.ROOT), host, uri.getPort(), key, hostAndPort).whenComplete((given, failure) -> {
        if (failure != null) { // a bug of ours: the host's URLs still go, as without the option
          LOG.log(Level.WARNING, key + ": its robots.txt could not be applied: " + Main.failure(failure));
          asked.read(context);
        } else if (given.spacing().isZero()) {
          asked.read(given.context());
        } else {
          CompletableFuture<Void> spaced = new CompletableFuture<>();
          spaced.whenComplete((waited, stopped) -> asked.read(given.context()));
          onSent.accept(spaced); // Ctrl-C ends the wait too, and the URLs then go nowhere
          later.accept(given.spacing(), () -> spaced.complete(null));
        }
      });
      return first;
    }
    return known.next();
  }

  /** The context a robots.txt gave its host's URLs, and how long after its answer the first of them waits. */
  private record Given(CallContext context, Duration spacing) {}

  /** Asks for the robots.txt of {@code uri}'s host, and makes the context its answer gives. */
  private CompletableFuture<Given> read(URI uri, String scheme, String host, int port, String key,
      String hostAndPort) {
    URI robots;
    try {
      robots = new URI(scheme, null, host, port, "/robots.txt", null, null);
    } catch (URISyntaxException e) {
      return CompletableFuture.completedFuture(new Given(context, Duration.ZERO)); // not reachable from a URI that parsed
    }
    HttpRequest request = HttpRequest.newBuilder(robots).timeout(timeout).GET().build();
    CompletableFuture<HttpResponse<String>> call =
        client.withContext(context).sendAsync(request, HttpResponse.BodyHandlers.ofString());
    onSent.accept(call);
    return call.handle((response, failure) -> {
      if (failure != null) {
        LOG.log(Level.DEBUG, () -> key + ": " + robots + " gave no answer, so no Crawl-delay: "
            + Main.failure(failure));
        return new Given(context, Duration.ZERO);
      }
      if (response.statusCode() / 100 != 2) {
        LOG.log(Level.DEBUG, () -> key + ": " + robots + " answered " + response.statusCode() + ": no Crawl-delay");
        return new Given(context, Duration.ZERO);
      }
      Duration delay = RobotsTxt.crawlDelay(response.body(), RobotsTxt.token(engine.userAgent()));
      if (delay == null) {
        LOG.log(Level.DEBUG, () -> key + ": " + robots + " asks no Crawl-delay of "
            + RobotsTxt.token(engine.userAgent()));
        return new Given(context, Duration.ZERO);
      }
      return paced(uri, key, hostAndPort, delay);
    });
  }

  /**
   * The context that paces the host at one request per {@code delay}, its first URL {@code delay}
   * after the robots.txt's answer; unless the run's is as slow, which goes at once.
   */
  private Given paced(URI uri, String key, String hostAndPort, Duration delay) {
    Rate asked = Rate.of(1, delay);
    Limits given = engine.effectiveLimits(uri, context);
    Rate rate = given.rate();
    // One start per delay is never more starts than a rate of the same average allows, whatever its burst.
    if (rate != null && rate.perSecondValue() <= asked.perSecondValue()) {
      LOG.log(Level.DEBUG, () -> key + ": robots.txt asks a Crawl-delay of " + seconds(delay)
          + "; the limits given, " + given + ", are as slow and hold");
      return new Given(context, Duration.ZERO);
    }
    CallContext slower = paced.apply(hostAndPort, asked);
    LOG.log(Level.DEBUG, () -> key + ": robots.txt asks a Crawl-delay of " + seconds(delay) + ": paced at "
        + engine.effectiveLimits(uri, slower) + ", its first URL " + seconds(delay) + " after this answer");
    return new Given(slower, delay);
  }

  /** {@code 2 s}, {@code 1.5 s}. */
  private static String seconds(Duration delay) {
    return BigDecimal.valueOf(delay.toNanos(), 9).stripTrailingZeros().toPlainString() + " s";
  }
}

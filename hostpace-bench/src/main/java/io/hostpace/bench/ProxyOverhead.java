package io.hostpace.bench;

import com.sun.net.httpserver.HttpServer;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.proxy.HostpaceProxy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The requests a second a client gets through the proxy, against the same client sent direct to
 * the same upstream: what the proxy's own work costs when the engine holds nothing back.
 *
 * <p>What is measured: an upstream on 127.0.0.1 (the JDK's {@code com.sun.net.httpserver}, on a
 * pool of {@value #THREADS} threads, {@code TCP_NODELAY} on) that answers every request at once
 * (unless given a delay, below) with a 200 and a body of three bytes; an engine whose limits never hold a request back
 * ({@code Limits.inFlight(Integer.MAX_VALUE)}, first contact not widened); a
 * {@link HostpaceProxy} on 127.0.0.1 with one route, {@code /up}, to the upstream. A closed loop
 * of {@value #THREADS} client threads on one JDK {@link HttpClient} (HTTP/1.1, connections kept
 * alive), each sending a {@code GET} as soon as its last answer came, for a given time: direct to
 * the upstream, then through the proxy, in turns (direct, proxy, direct, proxy, ...), after a
 * warm-up of each that is not counted. The client, the proxy and the upstream share one JVM, and
 * so the machine's cores: the figure is what the proxy's work takes from the same machine.
 *
 * <p>Printed: each phase's answers and requests a second, and the processor time a request took
 * in the client's threads, the proxy's (Jetty's, the engine's, the proxy's JDK client's), the
 * upstream's, and in none of them (the collector, the compiler, threads that ended in the phase:
 * the process's time less the threads'); then for each kind the requests a second over all its
 * rounds, and the ratio proxy / direct. Checked: every answer is a 200 with the upstream's body,
 * and the upstream served at least one request for each answer (more only by the JDK's own resend
 * of a {@code GET} whose kept-alive connection closed under it; the count is printed).
 *
 * <p>Run: {@code java -cp hostpace-bench/target/benchmarks.jar io.hostpace.bench.ProxyOverhead
 * [seconds a phase] [rounds] [warm-up seconds] [upstream's delay in ms]} (10, 3, 10 and 0 unless
 * given: the proxy's path, the longer, is still being compiled after a shorter warm-up). With a
 * delay, each of the upstream's answers waits that long before it is sent, as an upstream across
 * a network would: the figure is then what the proxy costs where the loop is not bound by the
 * processors alone. A fifth argument says what the loop goes through: {@code proxy} (unless
 * given), or {@code bare}, a {@link BareForwarder} in the proxy's place: the bound of the ratio for
 * any proxy on the same server library where the loop, the proxy and the upstream share the
 * machine's processors.
 */
public final class ProxyOverhead {

  static final int THREADS = 16;
  private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);

  private ProxyOverhead() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    long delayMillis = args.length > 3 ? Long.parseLong(args[3]) : 0;
    String through = args.length > 4 ? args[4] : "proxy";
    if (!through.equals("proxy") && !through.equals("bare")) {
      throw new IllegalArgumentException("the fifth argument is proxy or bare: was '" + through + "'");
    }
    boolean bare = through.equals("bare");
    System.out.println("java " + System.getProperty("java.vm.version") + ", "
        + Runtime.getRuntime().availableProcessors() + " processors, " + THREADS + " client threads, "
        + seconds + " s a phase, " + rounds + " rounds after " + warmUp + " s of warm-up each, the upstream answering "
        + (delayMillis == 0 ? "at once" : "after " + delayMillis + " ms") + ", "
        + (bare ? "a bare forwarder in the proxy's place" : "the proxy") + "; load average " + loadAverage());

    // The JDK's server writes a response's headers and its body apart; without TCP_NODELAY the
    // body waits for the client's delayed ACK of the headers (Linux's delayed-ACK timer), and that wait,
    // not any work, would set the pace of both kinds. Read once, as the server's class is loaded.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    AtomicLong served = new AtomicLong();
    ExecutorService upstreamThreads = Executors.newFixedThreadPool(THREADS, named("upstream-"));
    HttpServer upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    upstream.setExecutor(upstreamThreads);
    upstream.createContext("/", exchange -> {
      try (exchange; InputStream in = exchange.getRequestBody()) {
        in.transferTo(OutputStream.nullOutputStream());
        if (delayMillis > 0) {
          try {
            Thread.sleep(delayMillis); // an upstream as far away as that, or as slow to answer
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
        exchange.sendResponseHeaders(200, OK.length);
        exchange.getResponseBody().write(OK);
        served.incrementAndGet();
      }
    });
    upstream.start();
    URI upstreamUri = URI.create("http://127.0.0.1:" + upstream.getAddress().getPort());
    try (Proxied proxy = bare ? new BareForwarder(upstreamUri) : new Paced(upstreamUri)) {
      ExecutorService clientThreads = Executors.newCachedThreadPool(named("client-http-"));
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(clientThreads).build();
      Matcher id = Pattern.compile("\\((\\d+)\\)").matcher(client.toString()); // the JDK names its client's selector thread by its number
      String clientSelector = id.find() ? "HttpClient-" + id.group(1) + "-" : "client-http-";
      URI direct = URI.create(upstreamUri + "/x");
      URI proxied = URI.create(proxy.uri() + "/up/x");

      long answered = 0;
      Cpu cpu = new Cpu(clientSelector);
      answered += phase(client, cpu, direct, "direct", "warm-up", warmUp).answers;
      answered += phase(client, cpu, proxied, "proxy", "warm-up", warmUp).answers;
      List<Phase> directs = new ArrayList<>();
      List<Phase> proxies = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        Phase d = phase(client, cpu, direct, "direct", "round " + round, seconds);
        Phase p = phase(client, cpu, proxied, "proxy", "round " + round, seconds);
        directs.add(d);
        proxies.add(p);
        answered += d.answers + p.answers;
      }
      double directRate = rate(directs);
      double proxyRate = rate(proxies);
      System.out.printf(Locale.ROOT, "direct: %,.0f a second over %d phases%n", directRate, rounds);
      System.out.printf(Locale.ROOT, "proxy:  %,.0f a second over %d phases%n", proxyRate, rounds);
      System.out.printf(Locale.ROOT, "proxy / direct: %.3f; load average %s%n", proxyRate / directRate, loadAverage());
      // The JDK's client sends a GET again, once, when a kept-alive connection closes before its
      // answer comes: such a request is served twice and answered once.
      if (served.get() < answered) {
        throw new IllegalStateException("the upstream served " + served.get() + " requests for " + answered + " answers");
      }
      System.out.println("the upstream served " + served.get() + " requests for " + answered + " answers");
      clientThreads.shutdownNow();
    } finally {
      upstream.stop(0);
      upstreamThreads.shutdownNow();
    }
  }

  /** What the loop goes through to the upstream, at {@link #uri()}{@code /up}. */
  interface Proxied extends AutoCloseable {
    URI uri();
  }

  /** The proxy, on an engine that never holds a request back. */
  private static final class Paced implements Proxied {
    private final Hostpace engine = Hostpace.builder().limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE))
        .widenFirstContact(false).build();
    private final HostpaceProxy proxy;

    Paced(URI upstream) {
      proxy = HostpaceProxy.builder(engine)
          .listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).route("/up", upstream).start();
    }

    @Override
    public URI uri() {
      return proxy.uri();
    }

    @Override
    public void close() {
      try (engine) {
        proxy.close();
      }
    }
  }

  /** What one phase counted: its answers, all 200, and the nanoseconds it took. */
  record Phase(long answers, long nanos) {}

  /**
   * {@value #THREADS} threads sending {@code target} one request after another for {@code seconds};
   * prints the requests a second and the processor time a request took, by whose threads.
   */
  private static Phase phase(HttpClient client, Cpu cpu, URI target, String kind, String name, int seconds)
      throws Exception {
    HttpRequest request = HttpRequest.newBuilder(target).build();
    AtomicLong answers = new AtomicLong();
    AtomicLong loopNanos = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    Map<String, Long> cpuBefore = cpu.byWhom();
    long processBefore = cpu.process();
    long start = System.nanoTime();
    long end = start + seconds * 1_000_000_000L;
    for (int i = 0; i < THREADS; i++) {
      Thread thread = new Thread(() -> {
        try {
          while (System.nanoTime() < end) {
            HttpResponse<byte[]> answer = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (answer.statusCode() != 200 || answer.body().length != OK.length) {
              throw new IllegalStateException(target + " answered " + answer.statusCode() + ", "
                  + answer.body().length + " bytes of body");
            }
            answers.incrementAndGet();
          }
        } catch (IOException | RuntimeException e) {
          failures.add(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failures.add(e);
        } finally {
          loopNanos.addAndGet(Cpu.THREADS_BEAN.getCurrentThreadCpuTime()); // the whole of this thread's life
        }
      }, "client-" + i);
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    long nanos = System.nanoTime() - start;
    long process = cpu.process() - processBefore;
    Map<String, Long> spent = cpu.byWhom();
    spent.replaceAll((whom, after) -> after - cpuBefore.getOrDefault(whom, 0L));
    spent.merge("client", loopNanos.get(), Long::sum);
    if (!failures.isEmpty()) {
      IllegalStateException failed = new IllegalStateException(failures.size() + " client threads failed, " + kind + " " + name);
      failures.forEach(failed::addSuppressed);
      throw failed;
    }
    Phase phase = new Phase(answers.get(), nanos);
    long threadsTotal = spent.values().stream().mapToLong(Long::longValue).sum();
    double per = phase.answers * 1000.0; // nanoseconds to microseconds a request
    System.out.printf(Locale.ROOT, "%-6s %-8s %,9d answers in %5.2f s: %,8.0f a second; processor time a request:"
            + " client %.0f us, proxy %.0f us, upstream %.0f us, else (GC, JIT) %.0f us; %.2f of %d processors%n",
        kind, name, phase.answers, nanos / 1e9, phase.answers / (nanos / 1e9), spent.getOrDefault("client", 0L) / per,
        spent.getOrDefault("proxy", 0L) / per, spent.getOrDefault("upstream", 0L) / per,
        Math.max(0, process - threadsTotal) / per, (double) process / nanos, Runtime.getRuntime().availableProcessors());
    return phase;
  }

  /**
   * The processor time of this JVM's threads, by whose they are: the client's (its loop threads,
   * its own executor, its selector), the upstream's (its pool and dispatcher), and the proxy's
   * (everything else: Jetty's threads, the engine's, and the proxy's own JDK client's).
   */
  static final class Cpu {
    static final ThreadMXBean THREADS_BEAN = ManagementFactory.getThreadMXBean();
    private final String clientSelector;

    Cpu(String clientSelector) {
      this.clientSelector = clientSelector;
    }

    Map<String, Long> byWhom() {
      Map<String, Long> spent = new HashMap<>();
      for (ThreadInfo info : THREADS_BEAN.getThreadInfo(THREADS_BEAN.getAllThreadIds())) {
        if (info == null) {
          continue; // it ended
        }
        String thread = info.getThreadName();
        long nanos = THREADS_BEAN.getThreadCpuTime(info.getThreadId());
        if (nanos < 0 || thread.equals("main") || thread.startsWith("client-") && !thread.startsWith("client-http-")) {
          continue; // ended, or the program's own, or a loop thread (counted as it ends)
        }
        String whom = thread.startsWith("client-http-") || thread.startsWith(clientSelector) ? "client"
            : thread.startsWith("upstream-") || thread.startsWith("HTTP-Dispatcher") ? "upstream"
            : "proxy";
        spent.merge(whom, nanos, Long::sum);
      }
      return spent;
    }

    long process() {
      return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
  }

  private static ThreadFactory named(String prefix) {
    AtomicLong count = new AtomicLong();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Requests a second over all of {@code phases}. */
  private static double rate(List<Phase> phases) {
    long answers = 0;
    long nanos = 0;
    for (Phase phase : phases) {
      answers += phase.answers;
      nanos += phase.nanos;
    }
    return answers / (nanos / 1e9);
  }

  private static String loadAverage() {
    return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }
}

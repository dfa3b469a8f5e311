package io.hostpace.bench;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.VirtualTime;
import io.hostpace.bench.AcquireReleaseBenchmark.AnsweredExchange;
import io.hostpace.bench.AcquireReleaseBenchmark.Response;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's cost per request as a crawl goes: 1,000,000 requests over 100,000 hosts in
 * virtual time, with and without a {@code *.domain} group over 10,000 of them, the cost printed
 * at each 100,000 requests. A cost that stays flat from the first rows to the last is the
 * target; one that grows shows a cost that follows what the engine holds.
 *
 * <p>The crawl: an engine with the defaults (32 in flight a host, first contact widened) on a
 * {@link VirtualTime}. Each millisecond of virtual time {@value #PER_MILLISECOND} requests are
 * handed over, request {@code i} to host {@code i % 100,000}, so every host gets one each 100 ms;
 * then time moves on by a millisecond. Each attempt is answered with a 200 after 10 ms of
 * virtual time (a task on the virtual timer). Every tenth host is one of the 10,000 that the
 * group is over ({@code h0.g.test}, {@code h10.g.test}, ...), so that they get a tenth of each
 * millisecond's requests, 100; the others are {@code h1.test}, {@code h2.test}, ... Once all are
 * handed over, time moves on until every request is answered (the drain).
 *
 * <ul>
 *   <li><b>no group</b>: no request ever waits. What grows through the run is the hosts the
 *       engine holds: a host whose answer widened its first contact keeps that while idle (for
 *       an hour by default), so after the first 100 ms the engine holds all 100,000.
 *   <li><b>group</b>: {@code *.g.test} with {@code inFlight(950)}: 95 of its requests start a
 *       millisecond against the 100 handed over, so its backlog grows by 5 a millisecond, to
 *       5,000 requests on as many member hosts at the end of the hand-over. Each answer of a
 *       member releases a group place that goes to the oldest waiting head (SPEC P7): the state
 *       in which a group's cost per request would grow with its waiting hosts.
 * </ul>
 *
 * <p>Each row is one slice of 100,000 requests handed over (100 ms of virtual time) and the
 * answers, starts and releases that fall in it: the wall clock of the slice divided by 100,000,
 * and the bytes the thread allocated in it (everything runs on the one thread that moves virtual
 * time) divided by 100,000. The bytes include the harness's share: each attempt's future and its
 * task on the virtual timer. The counts after each row (in flight, waiting, hosts held) come from
 * {@link Hostpace#snapshot()}, taken outside the slice's measurement. A warm-up run of both
 * cases, one slice long, comes first and is not printed, so the first row is not the JIT's.
 *
 * <p>Checked: every request is sent once and answered once, every caller's future completes
 * with the 200, and the engine holds no request at the end.
 *
 * <p>Run: {@code java -cp hostpace-bench/target/benchmarks.jar io.hostpace.bench.CrawlCost
 * [requests]} (1,000,000 unless given; a multiple of 100,000).
 */
public final class CrawlCost {

  static final int HOSTS = 100_000;
  static final int GROUP_HOSTS = 10_000;
  static final int GROUP_IN_FLIGHT = 950;
  static final int PER_MILLISECOND = 1_000;
  static final int SLICE = 100_000;
  static final Duration ANSWER_AFTER = Duration.ofMillis(10);

  private static final Response OK = new Response(200);
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private CrawlCost() {}

  public static void main(String[] args) {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    if (requests <= 0 || requests % SLICE != 0) {
      throw new IllegalArgumentException("requests must be a positive multiple of " + SLICE + ": " + requests);
    }
    System.out.println("java " + System.getProperty("java.vm.version") + ", "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB max heap");
    run(false, SLICE, false);
    run(true, SLICE, false);
    run(false, requests, true);
    run(true, requests, true);
  }

  /** A crawl of {@code requests}: printed when {@code print}, thrown away as a warm-up otherwise. */
  private static void run(boolean group, int requests, boolean print) {
    System.gc();
    VirtualTime time = VirtualTime.create();
    Hostpace.Builder builder = Hostpace.builder().time(time);
    if (group) {
      builder.addLimit("*.g.test", Limits.inFlight(GROUP_IN_FLIGHT));
    }
    Hostpace engine = builder.build();
    Counts counts = new Counts();
    LaterExchange[] exchanges = new LaterExchange[HOSTS];
    for (int i = 0; i < HOSTS; i++) {
      String host = i % (HOSTS / GROUP_HOSTS) == 0 ? "h" + i + ".g.test" : "h" + i + ".test";
      exchanges[i] = new LaterExchange(URI.create("http://" + host + "/"), time, counts);
    }
    CompletableFuture<?>[] callers = new CompletableFuture<?>[requests];

    if (print) {
      System.out.println();
      String groupLine = group
          ? String.format(Locale.ROOT, ", *.g.test inFlight(%d) over %,d hosts", GROUP_IN_FLIGHT, GROUP_HOSTS)
          : "";
      System.out.printf(Locale.ROOT, "%s: %,d requests over %,d hosts, %,d a ms, answered after %d ms%s%n",
          group ? "group" : "no group", requests, HOSTS, PER_MILLISECOND, ANSWER_AFTER.toMillis(), groupLine);
      System.out.println("| requests | virtual time | wall ns per request | bytes per request"
          + " | in flight | waiting | hosts held |");
      System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    }
    int handedOver = 0;
    while (handedOver < requests) {
      long wallBefore = System.nanoTime();
      long bytesBefore = THREADS.getCurrentThreadAllocatedBytes();
      for (int end = handedOver + SLICE; handedOver < end; ) {
        for (int i = 0; i < PER_MILLISECOND; i++, handedOver++) {
          callers[handedOver] = engine.execute(exchanges[handedOver % HOSTS]);
        }
        time.advance(Duration.ofMillis(1));
      }
      long wall = System.nanoTime() - wallBefore;
      long bytes = THREADS.getCurrentThreadAllocatedBytes() - bytesBefore;
      if (print) {
        row(String.format(Locale.ROOT, "%,d", handedOver), time, wall, bytes, SLICE, engine);
      }
    }

    long wallBefore = System.nanoTime();
    long bytesBefore = THREADS.getCurrentThreadAllocatedBytes();
    long answeredBefore = counts.answered;
    Duration limit = Duration.ofHours(1);
    while (counts.answered < requests && time.elapsed().compareTo(limit) < 0) {
      time.advance(Duration.ofMillis(1));
    }
    long wall = System.nanoTime() - wallBefore;
    long bytes = THREADS.getCurrentThreadAllocatedBytes() - bytesBefore;
    long drained = counts.answered - answeredBefore;
    if (print) {
      row(String.format(Locale.ROOT, "drain: %,d", drained), time, wall, bytes, Math.max(drained, 1), engine);
    }
    check(engine, counts, callers);
    engine.close();
  }

  private static void row(String requests, VirtualTime time, long wallNanos, long bytes, long per, Hostpace engine) {
    long inFlight = 0;
    long waiting = 0;
    int hosts = 0;
    for (HostSnapshot host : engine.snapshot()) {
      if (!host.group()) {
        hosts++;
        inFlight += host.inFlight();
        waiting += host.waiting();
      }
    }
    System.out.printf(Locale.ROOT, "| %s | %,d ms | %,d | %,d | %,d | %,d | %,d |%n", requests,
        time.elapsed().toMillis(), wallNanos / per, bytes / per, inFlight, waiting, hosts);
  }

  /** That the crawl happened as described: each request sent and answered once, each caller's future a 200. */
  private static void check(Hostpace engine, Counts counts, CompletableFuture<?>[] callers) {
    if (counts.sent != callers.length || counts.answered != callers.length) {
      throw new IllegalStateException("expected " + callers.length + " requests sent and answered once, got "
          + counts.sent + " sent and " + counts.answered + " answered");
    }
    for (CompletableFuture<?> caller : callers) {
      if (caller.getNow(null) != OK) {
        throw new IllegalStateException("a caller's future is not the 200: " + caller);
      }
    }
    for (HostSnapshot host : engine.snapshot()) {
      if (host.inFlight() != 0 || host.waiting() != 0) {
        throw new IllegalStateException("requests left in the engine: " + host);
      }
    }
  }

  /** What the exchanges did; written by the one thread that runs the crawl. */
  static final class Counts {
    long sent;
    long answered;
  }

  /** An exchange whose attempts the virtual timer answers with a 200 after {@link #ANSWER_AFTER}. */
  static final class LaterExchange extends AnsweredExchange {
    private final VirtualTime time;
    private final Counts counts;

    LaterExchange(URI uri, VirtualTime time, Counts counts) {
      super(uri);
      this.time = time;
      this.counts = counts;
    }

    @Override
    public CompletableFuture<Response> send() {
      counts.sent++;
      CompletableFuture<Response> attempt = new CompletableFuture<>();
      time.schedule(() -> {
        counts.answered++;
        attempt.complete(OK);
      }, ANSWER_AFTER.toNanos());
      return attempt;
    }
  }
}

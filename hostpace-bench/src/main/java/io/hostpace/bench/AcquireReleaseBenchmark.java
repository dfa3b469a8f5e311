package io.hostpace.bench;

import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.spi.Exchange;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The engine's own cost of one request, with nothing to wait for: one call through a host that
 * has places to spare and no rate, whose attempt is answered at once.
 *
 * <p>What is measured: {@code engine.execute(exchange)} where {@link Exchange#send()} returns a
 * future already completed with a 200. The whole call (host key, queue lookup, enqueue, start,
 * the answer judged and learned from, the place released, the caller's future completed) then
 * runs on the calling thread before {@code execute} returns, so the time per operation is the
 * engine's overhead per request and nothing else: no network, no timer, no thread hand-over.
 * The engine is built with {@code Limits.inFlight(Integer.MAX_VALUE)} and the system clock and
 * timer; with free places and no rate nothing is ever scheduled. One host, {@code bench.test},
 * shared by all benchmark threads, so the two-thread figure includes contention on the
 * engine's lock.
 *
 * <p>The {@code busyHost} variants run the same call against an engine where one other request
 * to {@code bench.test} is in flight all along (its attempt never answers), as on a host that
 * is being crawled: the host's queue then outlives each call. Without it the host is idle
 * between calls, and the engine lets its queue and state go after each call and makes them
 * anew for the next (memory follows the hosts in use); the difference between the two is the
 * cost of that.
 *
 * <p>The {@code manyHosts} variants spread the calls over {@value #HOSTS} hosts, each thread
 * calling the hosts of its own share of them in turn: the engine is shared, its hosts are not,
 * as for a crawler that gives each thread its own hosts. (Threads that walked all the hosts in
 * one order, however far apart they started, would each call every host, and drift until one
 * follows the other host by host: each host's state would then go from core to core on every
 * call, which measures the sharing of hosts, not of the engine.) The {@code ownEngine} variants do the
 * same with an engine for each thread: what two threads that share nothing at all do on this
 * machine. The {@code 4threads} variants put four threads on one host (or semaphore, or limiter);
 * on a machine with fewer cores they measure contention with the threads taking turns, not
 * parallel speed.
 *
 * <p>Why: the project's target is under 1 µs a request on one thread; an HTTP request costs
 * milliseconds, so the pacing in front of it must be noise. The baselines put the figure in
 * proportion: a bare {@link Semaphore} {@code tryAcquire}/{@code release} pair (the least a
 * place limit can cost) and Resilience4j's {@link AtomicRateLimiter#acquirePermission()} with a
 * limit so high that it never waits (a widely used lock-free limiter), each on one, two and four
 * threads.
 *
 * <p>Run: {@code java -jar hostpace-bench/target/benchmarks.jar AcquireReleaseBenchmark}; add
 * {@code -prof gc} for the bytes allocated per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AcquireReleaseBenchmark {

  /** The response: only its status is read. */
  record Response(int status) {}

  static final Response OK = new Response(200);
  private static final CompletableFuture<Response> ANSWERED = CompletableFuture.completedFuture(OK);
  private static final URI URI_OF_HOST = URI.create("http://bench.test/resource");

  /** An exchange answered at once, the same for every call to its host: the engine allocates, it does not. */
  static class AnsweredExchange implements Exchange<Response> {
    private final URI uri;

    AnsweredExchange() {
      this(URI_OF_HOST);
    }

    AnsweredExchange(URI uri) {
      this.uri = uri;
    }

    @Override
    public URI uri() {
      return uri;
    }

    @Override
    public String method() {
      return "GET";
    }

    @Override
    public boolean canResend() {
      return true;
    }

    @Override
    public CompletableFuture<Response> send() {
      return ANSWERED;
    }

    @Override
    public int status(Response response) {
      return response.status();
    }

    @Override
    public @Nullable String header(Response response, String name) {
      return null;
    }

    @Override
    public void discard(Response response) {}
  }

  /**
   * An attempt that never answers: it holds its place for as long as the engine runs. Its object
   * is the least an adapter's exchange can be, a reference to its URI (which {@link QueuedMemory}
   * counts).
   */
  static final class NeverAnswered extends AnsweredExchange {
    NeverAnswered(URI uri) {
      super(uri);
    }

    @Override
    public CompletableFuture<Response> send() {
      return new CompletableFuture<>();
    }
  }

  /** An engine whose host {@code bench.test} has one request in flight all along. */
  @State(Scope.Benchmark)
  public static class BusyHost {
    Hostpace engine;
    AnsweredExchange exchange;
    CompletableFuture<Response> held;

    @Setup(Level.Trial)
    public void setUp() {
      // The whole limit from the first request: first contact (SPEC P12) would hold the second
      // call behind the first, which is never answered.
      engine = Hostpace.builder().limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).widenFirstContact(false).build();
      exchange = new AnsweredExchange();
      held = engine.execute(new NeverAnswered(URI_OF_HOST));
      CompletableFuture<Response> first = engine.execute(exchange);
      if (held.isDone() || !first.isDone() || first.join() != OK) {
        throw new IllegalStateException("expected one call held and one answered: " + held + ", " + first);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      List<HostSnapshot> hosts = engine.snapshot();
      if (hosts.size() != 1 || hosts.get(0).inFlight() != 1 || hosts.get(0).waiting() != 0) {
        throw new IllegalStateException("expected only the held call in the engine: " + hosts);
      }
      held.cancel(true);
    }
  }

  /** How many hosts the {@code manyHosts} variants spread their calls over. */
  static final int HOSTS = 1000;

  /**
   * An engine and one exchange for each of {@link #HOSTS} hosts ({@code h0.bench.test} and on),
   * shared by the threads of a {@code manyHosts} variant: one lock, hosts that differ.
   */
  @State(Scope.Benchmark)
  public static class ManyHosts {
    Hostpace engine;
    AnsweredExchange[] exchanges;

    @Setup(Level.Trial)
    public void setUp() {
      engine = Hostpace.builder().limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).build();
      exchanges = new AnsweredExchange[HOSTS];
      for (int i = 0; i < HOSTS; i++) {
        exchanges[i] = new AnsweredExchange(URI.create("http://h" + i + ".bench.test/resource"));
        CompletableFuture<Response> first = engine.execute(exchanges[i]);
        if (!first.isDone() || first.join() != OK) {
          throw new IllegalStateException("the call did not complete on the calling thread: " + first);
        }
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      nothingLeft(engine);
    }
  }

  /** That {@code engine} holds no request in flight or waiting; the hosts it holds. */
  static int nothingLeft(Hostpace engine) {
    int hosts = 0;
    for (HostSnapshot host : engine.snapshot()) {
      hosts++;
      if (host.inFlight() != 0 || host.waiting() != 0) {
        throw new IllegalStateException("requests left in the engine: " + host);
      }
    }
    return hosts;
  }

  /**
   * A thread's counter over its own share of the hosts of {@link ManyHosts}, a block of
   * consecutive ones: each call goes to the next host of the block, so no two threads ever call
   * one host.
   */
  @State(Scope.Thread)
  public static class HostCounter {
    int next;
    int from;
    int to;

    @Setup(Level.Trial)
    public void setUp(ThreadParams thread) {
      from = thread.getThreadIndex() * HOSTS / thread.getThreadCount();
      to = (thread.getThreadIndex() + 1) * HOSTS / thread.getThreadCount();
      next = from;
    }

    AnsweredExchange next(ManyHosts hosts) {
      AnsweredExchange exchange = hosts.exchanges[next];
      next = next + 1 == to ? from : next + 1;
      return exchange;
    }
  }

  /**
   * An engine of the thread's own over {@value #HOSTS} hosts, called as {@link HostCounter} calls
   * {@link ManyHosts}': nothing of the engine is shared, so two threads on it show what this
   * machine gives two threads that share nothing (the allocation, the collector, the caches), the
   * ceiling of what they can do on one engine.
   */
  @State(Scope.Thread)
  public static class OwnEngine {
    final ManyHosts hosts = new ManyHosts();
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      hosts.setUp();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      hosts.tearDown();
    }

    AnsweredExchange next() {
      AnsweredExchange exchange = hosts.exchanges[next];
      next = next + 1 == HOSTS ? 0 : next + 1;
      return exchange;
    }
  }

  private Hostpace engine;
  private AnsweredExchange exchange;
  private Semaphore semaphore;
  private AtomicRateLimiter rateLimiter;

  @Setup(Level.Trial)
  public void setUp() {
    engine = Hostpace.builder().limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).build();
    exchange = new AnsweredExchange();
    CompletableFuture<Response> first = engine.execute(exchange);
    if (!first.isDone() || first.join() != OK) {
      throw new IllegalStateException("the call did not complete on the calling thread: " + first);
    }
    semaphore = new Semaphore(Integer.MAX_VALUE);
    // Integer.MAX_VALUE permits a second: far more than any thread can take (some 10^8 a
    // second at most), so it never waits; a zero timeout would fail rather than wait anyway.
    rateLimiter = new AtomicRateLimiter("bench", RateLimiterConfig.custom()
        .limitForPeriod(Integer.MAX_VALUE)
        .limitRefreshPeriod(Duration.ofSeconds(1))
        .timeoutDuration(Duration.ZERO)
        .build());
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    // Every call ended, so the engine holds nothing: a leak would show here.
    List<HostSnapshot> left = engine.snapshot();
    for (HostSnapshot host : left) {
      if (host.inFlight() != 0 || host.waiting() != 0) {
        throw new IllegalStateException("requests left in the engine: " + host);
      }
    }
    if (rateLimiter.getMetrics().getNumberOfWaitingThreads() != 0) {
      throw new IllegalStateException("the rate limiter made a thread wait");
    }
  }

  private void hostpaceCall(Blackhole blackhole) {
    blackhole.consume(engine.execute(exchange).getNow(null));
  }

  private void semaphorePair(Blackhole blackhole) {
    boolean acquired = semaphore.tryAcquire();
    if (acquired) {
      semaphore.release();
    }
    blackhole.consume(acquired);
  }

  private void rateLimiterPermission(Blackhole blackhole) {
    blackhole.consume(rateLimiter.acquirePermission());
  }

  /** One request through the engine, on one thread. */
  @Benchmark
  @Threads(1)
  public void hostpace_1thread(Blackhole blackhole) {
    hostpaceCall(blackhole);
  }

  /** One request through the engine, two threads to the same host at once. */
  @Benchmark
  @Threads(2)
  public void hostpace_2threads(Blackhole blackhole) {
    hostpaceCall(blackhole);
  }

  /** One request through the engine, four threads to the same host at once. */
  @Benchmark
  @Threads(4)
  public void hostpace_4threads(Blackhole blackhole) {
    hostpaceCall(blackhole);
  }

  /** One request through the engine, on one thread, each call to the next of {@value #HOSTS} hosts. */
  @Benchmark
  @Threads(1)
  public void hostpace_manyHosts_1thread(ManyHosts hosts, HostCounter counter, Blackhole blackhole) {
    blackhole.consume(hosts.engine.execute(counter.next(hosts)).getNow(null));
  }

  /** One request through the engine, two threads at once, each call to the next of its thread's hosts. */
  @Benchmark
  @Threads(2)
  public void hostpace_manyHosts_2threads(ManyHosts hosts, HostCounter counter, Blackhole blackhole) {
    blackhole.consume(hosts.engine.execute(counter.next(hosts)).getNow(null));
  }

  /** One request through the engine, four threads at once, each call to the next of its thread's hosts. */
  @Benchmark
  @Threads(4)
  public void hostpace_manyHosts_4threads(ManyHosts hosts, HostCounter counter, Blackhole blackhole) {
    blackhole.consume(hosts.engine.execute(counter.next(hosts)).getNow(null));
  }

  /** One request through an engine of the thread's own, over many hosts, on one thread. */
  @Benchmark
  @Threads(1)
  public void hostpace_ownEngine_1thread(OwnEngine own, Blackhole blackhole) {
    blackhole.consume(own.hosts.engine.execute(own.next()).getNow(null));
  }

  /** One request through an engine of the thread's own, over many hosts, two threads at once: nothing shared. */
  @Benchmark
  @Threads(2)
  public void hostpace_ownEngine_2threads(OwnEngine own, Blackhole blackhole) {
    blackhole.consume(own.hosts.engine.execute(own.next()).getNow(null));
  }

  /** One request through the engine, on one thread, to a host with another request in flight. */
  @Benchmark
  @Threads(1)
  public void hostpace_busyHost_1thread(BusyHost busy, Blackhole blackhole) {
    blackhole.consume(busy.engine.execute(busy.exchange).getNow(null));
  }

  /** One request through the engine, two threads at once, to a host with another request in flight. */
  @Benchmark
  @Threads(2)
  public void hostpace_busyHost_2threads(BusyHost busy, Blackhole blackhole) {
    blackhole.consume(busy.engine.execute(busy.exchange).getNow(null));
  }

  /** Baseline: a semaphore's tryAcquire and release, on one thread. */
  @Benchmark
  @Threads(1)
  public void semaphore_1thread(Blackhole blackhole) {
    semaphorePair(blackhole);
  }

  /** Baseline: a semaphore's tryAcquire and release, two threads on the same semaphore. */
  @Benchmark
  @Threads(2)
  public void semaphore_2threads(Blackhole blackhole) {
    semaphorePair(blackhole);
  }

  /** Baseline: a semaphore's tryAcquire and release, four threads on the same semaphore. */
  @Benchmark
  @Threads(4)
  public void semaphore_4threads(Blackhole blackhole) {
    semaphorePair(blackhole);
  }

  /** Baseline: Resilience4j's AtomicRateLimiter.acquirePermission, never waiting, on one thread. */
  @Benchmark
  @Threads(1)
  public void resilience4j_1thread(Blackhole blackhole) {
    rateLimiterPermission(blackhole);
  }

  /** Baseline: Resilience4j's AtomicRateLimiter.acquirePermission, two threads on the same limiter. */
  @Benchmark
  @Threads(2)
  public void resilience4j_2threads(Blackhole blackhole) {
    rateLimiterPermission(blackhole);
  }

  /** Baseline: Resilience4j's AtomicRateLimiter.acquirePermission, four threads on the same limiter. */
  @Benchmark
  @Threads(4)
  public void resilience4j_4threads(Blackhole blackhole) {
    rateLimiterPermission(blackhole);
  }
}

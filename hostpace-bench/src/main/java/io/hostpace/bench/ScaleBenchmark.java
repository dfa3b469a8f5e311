package io.hostpace.bench;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.bench.AcquireReleaseBenchmark.AnsweredExchange;
import io.hostpace.bench.AcquireReleaseBenchmark.NeverAnswered;
import io.hostpace.bench.AcquireReleaseBenchmark.Response;
import java.net.URI;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The engine's cost of one request as the hosts it holds grow, and as a {@code *.domain} group's
 * member hosts grow: whether a request costs the same among 100,000 hosts as among one, and
 * whether a group's release costs the same over 10,000 member hosts as over 10.
 *
 * <p>The engine holds {@link #hosts} hosts, every one with a request in it all along, so that
 * none is let go between operations. {@link #hostsPerGroup} of them ({@code h0.g.test} and on)
 * are members of the group {@code *.g.test}, whose limit is {@code inFlight(8)}; the others
 * ({@code h0.test} and on) are in no group. Every host may have any number in flight
 * ({@code Limits.inFlight(Integer.MAX_VALUE)}, the whole limit from the first request), so that
 * only the group makes requests wait. The system clock and timer: nothing is paced, so nothing
 * is scheduled.
 *
 * <ul>
 *   <li><b>No group</b> ({@code hostsPerGroup = 0}): each host has one request in flight, held
 *       until the benchmark answers it. An operation hands over one request to the next host in
 *       turn (it starts at once: two in flight there) and answers that host's older one.
 *   <li><b>A group</b> ({@code hostsPerGroup > 0}): the group has its 8 places taken by
 *       requests the benchmark answers, and {@value #WAITING_PER_MEMBER} requests wait in each
 *       member host's queue behind the group's cap. An operation hands over one request to the
 *       next member host in turn (it waits) and answers the request in flight the longest: the
 *       freed place goes to the oldest of the waiting heads of all member hosts (SPEC P7), which
 *       starts. So each operation's release chooses among {@code hostsPerGroup} waiting queues.
 *       On two threads an operation may find no attempt in flight yet, and waits for one
 *       ({@link #awaitAttempt}).
 *       The other {@code hosts - hostsPerGroup} hosts each hold one request that is never
 *       answered.
 * </ul>
 *
 * <p>On two threads without a group each thread takes the hosts of its own share in turn
 * ({@link Turn}); a group's members are taken in turn by both together.
 *
 * <p>Either way an operation is one request's whole life (handed over, started, answered, its
 * place released, its caller's future completed), and the engine holds the same requests
 * after it as before. The requests are answered on the benchmark's thread, whose release starts
 * the next one and sends it there; the attempt's future that {@code send()} returns (a new
 * {@link CompletableFuture}, as any client makes) is the harness's one allocation per operation,
 * kept in an array-backed queue that allocates nothing.
 *
 * <p>Combinations with more hosts per group than hosts (1 host with 10 or 10,000 a group, 1,000
 * with 10,000) make no sense: their set-up builds nothing and their operation returns at once,
 * so their rows (an empty method's time) are to be ignored.
 *
 * <p>Run: {@code java -jar hostpace-bench/target/benchmarks.jar ScaleBenchmark}; add
 * {@code -prof gc} for the bytes allocated per operation, {@code -p hosts=100000} for that
 * number of hosts only.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ScaleBenchmark {

  /** The group's in-flight limit. */
  static final int GROUP_IN_FLIGHT = 8;
  /** Requests waiting in each member host's queue behind the group's cap. */
  static final int WAITING_PER_MEMBER = 2;

  private static final Response OK = new Response(200);

  /** How many hosts the engine holds, each with a request in it all along. */
  @Param({"1", "1000", "100000"})
  public int hosts;

  /** How many of those hosts are in the group {@code *.g.test}; 0 for no group. */
  @Param({"0", "10", "10000"})
  public int hostsPerGroup;

  /** Whether the combination makes no sense: the operation then does nothing. */
  private boolean skipped;
  private Hostpace engine;
  /** The exchanges the operation hands over, one per host in turn: every host, or the group's members. */
  private HeldExchange[] turns;
  /** How many requests were handed over to a group's members, which picks the next member. */
  private final AtomicLong handedOver = new AtomicLong();

  /**
   * A thread's turn over its own share of {@link #turns} when there is no group, a block of
   * consecutive hosts, so that no two threads hand requests to one host (they share hosts only
   * when there are fewer hosts than threads): what the engine shares between threads is measured,
   * not the hosts. A group's members are taken in turn by every thread together ({@link #next()}),
   * so that each keeps its waiting requests; its places are shared by every thread anyway.
   */
  @State(Scope.Thread)
  public static class Turn {
    private int index;
    private int threads;
    private int from;
    private int to = -1;
    private int next;

    @Setup(Level.Trial)
    public void setUp(ThreadParams thread) {
      index = thread.getThreadIndex();
      threads = thread.getThreadCount();
    }

    HeldExchange next(HeldExchange[] turns) {
      if (to < 0) {
        boolean shared = turns.length < threads;
        from = shared ? 0 : index * turns.length / threads;
        to = shared ? turns.length : (index + 1) * turns.length / threads;
        next = from;
      }
      HeldExchange exchange = turns[next];
      next = next + 1 == to ? from : next + 1;
      return exchange;
    }
  }

  /**
   * An exchange whose attempts are answered when the benchmark says: each is queued as it is sent,
   * in a queue of its host's own (no group) or of the whole group's.
   */
  static final class HeldExchange extends AnsweredExchange {
    /** The attempts in flight, oldest first; array-backed, so that queueing allocates nothing. */
    final ArrayBlockingQueue<CompletableFuture<Response>> inFlight;

    HeldExchange(URI uri, ArrayBlockingQueue<CompletableFuture<Response>> inFlight) {
      super(uri);
      this.inFlight = inFlight;
    }

    @Override
    public CompletableFuture<Response> send() {
      CompletableFuture<Response> attempt = new CompletableFuture<>();
      if (!inFlight.offer(attempt)) {
        throw new IllegalStateException("more attempts in flight than the benchmark counted");
      }
      return attempt;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    skipped = hostsPerGroup > hosts;
    if (skipped) {
      engine = Hostpace.builder().build();
      turns = new HeldExchange[0];
      return;
    }
    Hostpace.Builder builder = Hostpace.builder()
        .limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE))
        .widenFirstContact(false);
    if (hostsPerGroup > 0) {
      builder.addLimit("*.g.test", Limits.inFlight(GROUP_IN_FLIGHT));
    }
    engine = builder.build();
    if (hostsPerGroup == 0) {
      // Each host's own attempts: one in flight, and one more per thread between a hand-over and its answer.
      turns = new HeldExchange[hosts];
      for (int i = 0; i < hosts; i++) {
        turns[i] = new HeldExchange(URI.create("http://h" + i + ".test/"), new ArrayBlockingQueue<>(4));
        engine.execute(turns[i]);
      }
    } else {
      // One queue for the group's attempts, as it is one set of places.
      ArrayBlockingQueue<CompletableFuture<Response>> groupInFlight = new ArrayBlockingQueue<>(GROUP_IN_FLIGHT);
      turns = new HeldExchange[hostsPerGroup];
      for (int i = 0; i < hostsPerGroup; i++) {
        turns[i] = new HeldExchange(URI.create("http://h" + i + ".g.test/"), groupInFlight);
      }
      for (int i = 0; i < GROUP_IN_FLIGHT + WAITING_PER_MEMBER * hostsPerGroup; i++) {
        engine.execute(next());
      }
      for (int i = 0; i < hosts - hostsPerGroup; i++) {
        engine.execute(new NeverAnswered(URI.create("http://h" + i + ".test/")));
      }
    }
    check();
  }

  /** The exchange of the group's next member in turn. */
  private HeldExchange next() {
    return turns[(int) (handedOver.getAndIncrement() % turns.length)];
  }

  /** That the engine holds what the benchmark says: the requests in flight and waiting, host by host. */
  private void check() {
    int hostsHeld = 0;
    long inFlightOutside = 0;
    long inFlightInGroup = 0;
    long waiting = 0;
    for (HostSnapshot host : engine.snapshot()) {
      if (host.group()) {
        continue;
      }
      hostsHeld++;
      waiting += host.waiting();
      if (host.key().endsWith(".g.test")) {
        inFlightInGroup += host.inFlight();
      } else {
        inFlightOutside += host.inFlight();
      }
    }
    long expectedInGroup = hostsPerGroup > 0 ? GROUP_IN_FLIGHT : 0;
    if (hostsHeld != hosts || inFlightOutside != hosts - hostsPerGroup || inFlightInGroup != expectedInGroup
        || waiting != (long) WAITING_PER_MEMBER * hostsPerGroup) {
      throw new IllegalStateException("expected " + hosts + " hosts, " + (hosts - hostsPerGroup)
          + " in flight outside the group, " + expectedInGroup + " in it and " + WAITING_PER_MEMBER * hostsPerGroup
          + " waiting; got " + hostsHeld + " hosts, " + inFlightOutside + ", " + inFlightInGroup + " and " + waiting);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (!skipped) {
      check();
    }
    engine.close();
  }

  /**
   * Waits for an attempt in flight to answer, when an operation finds none: on two threads the
   * other thread's answer may have been handed to the engine's lock and not made yet (SPEC P15),
   * or the attempt it starts left for this thread, which then the engine's timer sends (SPEC P13).
   * One always comes; none within a long while is the engine's fault, and ends the run.
   */
  private static CompletableFuture<Response> awaitAttempt(HeldExchange exchange) {
    try {
      CompletableFuture<Response> oldest = exchange.inFlight.poll(10, TimeUnit.SECONDS);
      if (oldest != null) {
        return oldest;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IllegalStateException("no attempt in flight to answer");
  }

  /** One request's whole life: handed over, then the one in flight the longest answered. */
  private void operation(Turn turn, Blackhole blackhole) {
    if (skipped) {
      return;
    }
    HeldExchange exchange = hostsPerGroup == 0 ? turn.next(turns) : next();
    CompletableFuture<Response> caller = engine.execute(exchange);
    CompletableFuture<Response> oldest = exchange.inFlight.poll();
    if (oldest == null) {
      oldest = awaitAttempt(exchange);
    }
    oldest.complete(OK);
    blackhole.consume(caller);
  }

  /** One request, on one thread. */
  @Benchmark
  @Threads(1)
  public void request_1thread(Turn turn, Blackhole blackhole) {
    operation(turn, blackhole);
  }

  /** One request, two threads at once on the same engine: each on its own share of the hosts, or both on the group's members. */
  @Benchmark
  @Threads(2)
  public void request_2threads(Turn turn, Blackhole blackhole) {
    operation(turn, blackhole);
  }
}

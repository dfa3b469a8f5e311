package io.hostpace.bench;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.bench.AcquireReleaseBenchmark.Response;
import io.hostpace.bench.ScaleBenchmark.HeldExchange;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

/**
 * The cost of one request through a {@code *.domain} group as the group grows, over the same
 * hosts: {@value #MEMBERS} hosts, every one a member of a group, in groups of {@link #groupSize}
 * ({@code h0.g0.test} to {@code h9.g0.test} in {@code *.g0.test} for groups of 10, and on). Each
 * group's limit is {@code inFlight(8)}, its 8 places taken by requests the benchmark answers, and
 * {@value ScaleBenchmark#WAITING_PER_MEMBER} requests wait in each member host's queue behind it,
 * as in {@link ScaleBenchmark}'s group.
 *
 * <p>An operation hands over one request to the next host in turn, over all {@value #MEMBERS}
 * (it waits), and answers the request of that host's group in flight the longest: the freed place
 * goes to the oldest waiting head of the group's members (SPEC P7), which starts. So every
 * operation touches a host it last touched {@value #MEMBERS} operations ago, whatever the groups'
 * size, and only the number of members its group's release chooses among changes from row to row.
 * {@link ScaleBenchmark} compares a group of 10 whose members stay warm with a group of 10,000
 * whose members are all cold, which measures the memory's hierarchy as much as the group; this
 * measures the group alone.
 *
 * <p>Run: {@code java -jar hostpace-bench/target/benchmarks.jar GroupSizeBenchmark}; add
 * {@code -prof gc} for the bytes allocated per operation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class GroupSizeBenchmark {

  /** How many hosts there are, all of them members of a group. */
  static final int MEMBERS = 10_000;

  private static final Response OK = new Response(200);

  /** How many member hosts each group has; {@value #MEMBERS} over it is the number of groups. */
  @Param({"10", "100", "1000", "10000"})
  public int groupSize;

  private Hostpace engine;
  /** Every host's exchange, in the order the operation takes them: the groups' members in turn. */
  private HeldExchange[] turns;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    if (MEMBERS % groupSize != 0) {
      throw new IllegalArgumentException("groupSize must divide " + MEMBERS + ": " + groupSize);
    }
    int groups = MEMBERS / groupSize;
    Hostpace.Builder builder = Hostpace.builder()
        .limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE))
        .widenFirstContact(false);
    for (int g = 0; g < groups; g++) {
      builder.addLimit("*.g" + g + ".test", Limits.inFlight(ScaleBenchmark.GROUP_IN_FLIGHT));
    }
    engine = builder.build();
    turns = new HeldExchange[MEMBERS];
    for (int g = 0; g < groups; g++) {
      // One queue for a group's attempts, as it is one set of places.
      ArrayBlockingQueue<CompletableFuture<Response>> inFlight = new ArrayBlockingQueue<>(ScaleBenchmark.GROUP_IN_FLIGHT);
      for (int m = 0; m < groupSize; m++) {
        turns[g * groupSize + m] = new HeldExchange(URI.create("http://h" + m + ".g" + g + ".test/"), inFlight);
      }
      // The group's places taken, then its waiting requests, handed to its members in turn.
      for (int i = 0; i < ScaleBenchmark.GROUP_IN_FLIGHT + ScaleBenchmark.WAITING_PER_MEMBER * groupSize; i++) {
        engine.execute(turns[g * groupSize + i % groupSize]);
      }
    }
    check();
  }

  /** That the engine holds what the benchmark says: each group's places taken, two waiting in each host. */
  private void check() {
    Map<String, int[]> byGroup = new HashMap<>(); // in flight, waiting
    int hostsHeld = 0;
    for (HostSnapshot host : engine.snapshot()) {
      if (host.group()) {
        continue;
      }
      hostsHeld++;
      String group = host.key().substring(host.key().indexOf('.') + 1);
      int[] counts = byGroup.computeIfAbsent(group, k -> new int[2]);
      counts[0] += host.inFlight();
      counts[1] += host.waiting();
    }
    for (Map.Entry<String, int[]> group : byGroup.entrySet()) {
      int[] counts = group.getValue();
      if (counts[0] != ScaleBenchmark.GROUP_IN_FLIGHT || counts[1] != ScaleBenchmark.WAITING_PER_MEMBER * groupSize) {
        throw new IllegalStateException(group.getKey() + ": expected " + ScaleBenchmark.GROUP_IN_FLIGHT + " in flight and "
            + ScaleBenchmark.WAITING_PER_MEMBER * groupSize + " waiting; got " + counts[0] + " and " + counts[1]);
      }
    }
    if (hostsHeld != MEMBERS || byGroup.size() != MEMBERS / groupSize) {
      throw new IllegalStateException("expected " + MEMBERS + " hosts in " + MEMBERS / groupSize + " groups; got "
          + hostsHeld + " in " + byGroup.size());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    check();
    engine.close();
  }

  /** One request's whole life, on one thread: handed over, then its group's one in flight the longest answered. */
  @Benchmark
  @Threads(1)
  public void request_1thread(Blackhole blackhole) {
    HeldExchange exchange = turns[next];
    next = next + 1 == MEMBERS ? 0 : next + 1;
    CompletableFuture<Response> caller = engine.execute(exchange);
    CompletableFuture<Response> oldest = exchange.inFlight.poll();
    if (oldest == null) {
      throw new IllegalStateException("no attempt of " + exchange.uri() + "'s group in flight");
    }
    oldest.complete(OK);
    blackhole.consume(caller);
  }
}

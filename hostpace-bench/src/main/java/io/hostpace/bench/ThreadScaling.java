package io.hostpace.bench;

import io.hostpace.Hostpace;
import io.hostpace.bench.AcquireReleaseBenchmark.AnsweredExchange;
import io.hostpace.bench.AcquireReleaseBenchmark.ManyHosts;
import io.hostpace.bench.AcquireReleaseBenchmark.Response;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * What a second thread adds on one engine whose threads call hosts of their own, measured in
 * pairs: the engine of {@link ManyHosts}, over {@value AcquireReleaseBenchmark#HOSTS} hosts, then
 * rounds of one thread calling all of them in turn for a second, each followed by a round of two
 * threads each calling its own half for a second, on the same engine and heap.
 * {@code AcquireReleaseBenchmark}'s {@code manyHosts} rows measure one thread and two in different JVMs,
 * each with the hosts' objects wherever that JVM's collector put them, on a machine whose speed
 * moves from hour to hour; a pair of rounds in one JVM shares both, so its ratio says what the
 * second thread adds with that placement. Several runs (each its own JVM) sample the placements.
 *
 * <p>Each call is answered inside its {@code send()} (the local path, SPEC P14, where nothing is
 * shared but the engine's map of hosts). A round counts the calls its threads completed; the
 * first {@value #WARM_UP_PAIRS} pairs warm the JIT and are not printed. Printed: each pair's calls
 * a second on one thread and on two, and two's against one's; then the median of the ratios.
 *
 * <p>Checked: every call completes with the 200, and the engine holds no request at the end
 * ({@link ManyHosts#tearDown}).
 *
 * <p>Run: {@code java -cp hostpace-bench/target/benchmarks.jar io.hostpace.bench.ThreadScaling
 * [pairs]} ({@value #PAIRS} unless given).
 */
public final class ThreadScaling {

  static final int PAIRS = 8;
  static final int WARM_UP_PAIRS = 2;
  static final long ROUND_NANOS = 1_000_000_000L;

  private ThreadScaling() {}

  public static void main(String[] args) throws InterruptedException {
    int pairs = args.length > 0 ? Integer.parseInt(args[0]) : PAIRS;
    ManyHosts hosts = new ManyHosts();
    hosts.setUp();
    Hostpace engine = hosts.engine;
    AnsweredExchange[] exchanges = hosts.exchanges;
    double[] ratios = new double[pairs];
    for (int pair = -WARM_UP_PAIRS; pair < pairs; pair++) {
      double one = round(engine, exchanges, 1);
      double two = round(engine, exchanges, 2);
      if (pair >= 0) {
        ratios[pair] = two / one;
        System.out.printf(Locale.ROOT, "pair %d: one thread %.2f million calls a second, two %.2f: %.2f times%n",
            pair + 1, one / 1e6, two / 1e6, two / one);
      }
    }
    hosts.tearDown();
    Arrays.sort(ratios);
    double median = pairs % 2 == 1 ? ratios[pairs / 2] : (ratios[pairs / 2 - 1] + ratios[pairs / 2]) / 2;
    System.out.printf(Locale.ROOT, "median of %d pairs: two threads %.2f times one%n", pairs, median);
  }

  /** One round of {@code threads} threads, each calling its own share of the hosts in turn: calls a second. */
  private static double round(Hostpace engine, AnsweredExchange[] exchanges, int threads) throws InterruptedException {
    long[] calls = new long[threads];
    Thread[] running = new Thread[threads];
    long start = System.nanoTime();
    long end = start + ROUND_NANOS;
    for (int t = 0; t < threads; t++) {
      int from = t * exchanges.length / threads;
      int to = (t + 1) * exchanges.length / threads;
      int index = t;
      running[t] = new Thread(() -> {
        long n = 0;
        int next = from;
        // The clock is read once each 1,024 calls, so that reading it costs the round nothing.
        while ((n & 1023) != 0 || System.nanoTime() - end < 0) {
          check(engine.execute(exchanges[next]));
          next = next + 1 == to ? from : next + 1;
          n++;
        }
        calls[index] = n;
      });
    }
    for (Thread thread : running) {
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    long elapsed = System.nanoTime() - start;
    return Arrays.stream(calls).sum() * 1e9 / elapsed;
  }

  private static void check(CompletableFuture<Response> call) {
    if (!call.isDone() || call.join().status() != 200) {
      throw new IllegalStateException("the call did not complete with 200 on the calling thread: " + call);
    }
  }
}

package io.hostpace.bench;

import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.bench.AcquireReleaseBenchmark.AnsweredExchange;
import io.hostpace.bench.AcquireReleaseBenchmark.Response;
import java.lang.ref.Reference;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The heap a host the engine holds costs, with 100,000 hosts held: what a crawler pays for each
 * host it has met within the engine's forget time, whether it calls it again or not.
 *
 * <p>What is measured: an engine on the system's clock and timer (as a program has it) whose
 * hosts each take every call, answered inside {@code send()}. Its exchanges, one per host, are
 * made before the first reading; then each of the 100,000 hosts is called once, and again. The
 * used heap is read after repeated full collections before the first calls, after them, and after
 * the second, and the differences divided by 100,000. Two figures, because a host keeps only its
 * first answer until its second, and from then the learning rule's samples too. Checked with
 * {@link Hostpace#snapshot()}: 100,000 hosts held, nothing in flight or waiting, and every call
 * answered with the exchange's 200, or the round fails. Several rounds on fresh engines, after a
 * round that is thrown away. The hosts of earlier rounds are still held (by their engine's task on
 * the timer, which looks at them again once their forget time is over) and are in both readings of
 * a round alike.
 *
 * <p>Run: {@code java -cp hostpace-bench/target/benchmarks.jar io.hostpace.bench.HostMemory
 * [rounds]}. The figures assume compressed references, as {@link QueuedMemory}'s do.
 */
public final class HostMemory {

  static final int HOSTS = 100_000;

  private HostMemory() {}

  public static void main(String[] args) throws InterruptedException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    System.out.println("java " + System.getProperty("java.vm.version") + ", "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB max heap, collectors "
        + QueuedMemory.collectors());
    System.out.printf(Locale.ROOT, "%,d hosts, each called once and then again, %d rounds after one thrown away%n",
        HOSTS, rounds);

    round();
    List<Double> once = new ArrayList<>();
    List<Double> twice = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      double[] figures = round();
      once.add(figures[0]);
      twice.add(figures[1]);
    }

    System.out.println();
    System.out.println("| figure | bytes each (mean) | min | max | rounds |");
    System.out.println("| --- | ---: | ---: | ---: | ---: |");
    QueuedMemory.row("a host held, called once", once);
    QueuedMemory.row("a host held, called twice (its learning rule's samples kept)", twice);
  }

  /** One round on a fresh engine: bytes per host after one call to each, and after two. */
  private static double[] round() throws InterruptedException {
    Hostpace engine = Hostpace.builder().limitsForEveryHost(Limits.inFlight(Integer.MAX_VALUE)).build();
    AnsweredExchange[] exchanges = new AnsweredExchange[HOSTS];
    for (int i = 0; i < HOSTS; i++) {
      exchanges[i] = new AnsweredExchange(URI.create("http://h" + i + ".bench.test/resource"));
    }

    long before = QueuedMemory.usedHeap();
    callEach(engine, exchanges);
    long afterOnce = QueuedMemory.usedHeap();
    callEach(engine, exchanges);
    long afterTwice = QueuedMemory.usedHeap();

    check(engine);
    Reference.reachabilityFence(engine);
    Reference.reachabilityFence(exchanges);
    return new double[] {(afterOnce - before) / (double) HOSTS, (afterTwice - before) / (double) HOSTS};
  }

  private static void callEach(Hostpace engine, AnsweredExchange[] exchanges) {
    for (AnsweredExchange exchange : exchanges) {
      CompletableFuture<Response> call = engine.execute(exchange);
      if (!call.isDone() || call.join() != AcquireReleaseBenchmark.OK) {
        throw new IllegalStateException("the call did not complete with the 200 on the calling thread: " + call);
      }
    }
  }

  /** That the figure is of hosts held: every one of them, none with a call left. */
  private static void check(Hostpace engine) {
    int hosts = AcquireReleaseBenchmark.nothingLeft(engine);
    if (hosts != HOSTS) {
      throw new IllegalStateException("expected the engine to hold " + HOSTS + " hosts, it holds " + hosts);
    }
  }
}

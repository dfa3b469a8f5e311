package io.hostpace.bench;

import io.hostpace.HostSnapshot;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.VirtualTime;
import io.hostpace.bench.AcquireReleaseBenchmark.NeverAnswered;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.ref.Reference;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The heap one waiting request costs, with 100,000 requests waiting over 10,000 hosts.
 *
 * <p>What is measured: an engine in virtual time with one place per host. One call to each of
 * 10,000 hosts starts and holds its host's place (its attempt never answers); then 100,000 more
 * calls, 10 a host, are handed over and must all wait. The used heap is read after repeated full
 * collections before and after those 100,000, and the difference divided by 100,000. Checked
 * with {@link Hostpace#snapshot()}: 100,000 waiting and 10,000 in flight, or the round fails.
 * Two figures, each over several rounds on fresh engines, after a round that is thrown away:
 *
 * <ul>
 *   <li><b>engine</b>: the exchanges are made before the first reading, so only what the engine
 *       makes per request counts (its {@code Call}, the caller's future and what hangs on it,
 *       the queue entry);
 *   <li><b>with exchange</b>: the exchanges are made between the readings, so the figure also
 *       holds the least an adapter's exchange can be (an object with a reference to its host's
 *       URI, which the 10 requests of a host share).
 * </ul>
 *
 * <p>The futures the engine returns are kept, in an array made before the first reading, as a
 * caller would keep them. For scale, the program also measures a bare {@link CompletableFuture}
 * and one with a {@code whenComplete} action hung on it, the same way.
 *
 * <p>Why: the project's target is under 300 bytes a waiting request, so that a crawler can
 * queue hundreds of thousands of requests without a thread or much memory for each.
 *
 * <p>Run: {@code java -cp hostpace-bench/target/benchmarks.jar io.hostpace.bench.QueuedMemory
 * [rounds]}. The figures assume compressed references (on by default below 32 GB of heap). With
 * the serial collector add {@code -XX:MarkSweepDeadRatio=0}: by default its full collections
 * leave some dead objects in place, which counts them as used and makes the figures too low.
 */
public final class QueuedMemory {

  static final int HOSTS = 10_000;
  static final int PER_HOST = 10;
  static final int QUEUED = HOSTS * PER_HOST;

  private QueuedMemory() {}

  public static void main(String[] args) throws InterruptedException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    System.out.println("java " + System.getProperty("java.vm.version") + ", "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB max heap, collectors "
        + collectors());
    System.out.printf(Locale.ROOT, "%,d requests waiting over %,d hosts (%d a host), %d rounds after one thrown away%n",
        QUEUED, HOSTS, PER_HOST, rounds);

    round(false);
    round(true);
    List<Double> engine = new ArrayList<>();
    List<Double> withExchange = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      engine.add(round(false));
      withExchange.add(round(true));
    }
    List<Double> future = new ArrayList<>();
    List<Double> futureWithAction = new ArrayList<>();
    for (int i = 0; i < rounds + 1; i++) {
      double bare = futures(false);
      double hung = futures(true);
      if (i > 0) {
        future.add(bare);
        futureWithAction.add(hung);
      }
    }

    System.out.println();
    System.out.println("| figure | bytes each (mean) | min | max | rounds |");
    System.out.println("| --- | ---: | ---: | ---: | ---: |");
    row("engine: one waiting request, exchange made before", engine);
    row("with exchange: one waiting request and its minimal exchange", withExchange);
    row("for scale: new CompletableFuture<>()", future);
    row("for scale: a CompletableFuture with whenComplete(...) hung on it", futureWithAction);
  }

  /**
   * One round on a fresh engine: bytes per waiting request, the exchanges made between the
   * readings when {@code exchangesCounted}, before them otherwise.
   */
  private static double round(boolean exchangesCounted) throws InterruptedException {
    VirtualTime time = VirtualTime.create();
    Hostpace engine = Hostpace.builder().time(time).limitsForEveryHost(Limits.inFlight(1)).build();
    URI[] uris = new URI[HOSTS];
    CompletableFuture<?>[] holders = new CompletableFuture<?>[HOSTS];
    for (int i = 0; i < HOSTS; i++) {
      uris[i] = URI.create("http://h" + i + ".bench.test/");
      holders[i] = engine.execute(new NeverAnswered(uris[i]));
    }
    NeverAnswered[] exchanges = null;
    if (!exchangesCounted) {
      exchanges = new NeverAnswered[QUEUED];
      for (int j = 0; j < QUEUED; j++) {
        exchanges[j] = new NeverAnswered(uris[j % HOSTS]);
      }
    }
    CompletableFuture<?>[] futures = new CompletableFuture<?>[QUEUED];

    long before = usedHeap();
    for (int j = 0; j < QUEUED; j++) {
      NeverAnswered exchange = exchanges != null ? exchanges[j] : new NeverAnswered(uris[j % HOSTS]);
      futures[j] = engine.execute(exchange);
    }
    long after = usedHeap();

    check(engine, time, futures);
    Reference.reachabilityFence(engine);
    Reference.reachabilityFence(time);
    Reference.reachabilityFence(uris);
    Reference.reachabilityFence(holders);
    Reference.reachabilityFence(exchanges);
    Reference.reachabilityFence(futures);
    return (after - before) / (double) QUEUED;
  }

  /** That the figure is real: all 100,000 wait, the 10,000 first hold their places, nothing is scheduled. */
  private static void check(Hostpace engine, VirtualTime time, CompletableFuture<?>[] futures) {
    long waiting = 0;
    long inFlight = 0;
    int hosts = 0;
    for (HostSnapshot host : engine.snapshot()) {
      if (!host.group()) {
        hosts++;
        waiting += host.waiting();
        inFlight += host.inFlight();
      }
    }
    if (waiting != QUEUED || inFlight != HOSTS || hosts != HOSTS) {
      throw new IllegalStateException("expected " + QUEUED + " waiting and " + HOSTS + " in flight over "
          + HOSTS + " hosts, got " + waiting + " waiting and " + inFlight + " in flight over " + hosts);
    }
    for (CompletableFuture<?> future : futures) {
      if (future.isDone()) {
        throw new IllegalStateException("a waiting call completed: " + future);
      }
    }
    if (time.pendingTasks() != 0) {
      throw new IllegalStateException("the engine scheduled " + time.pendingTasks() + " tasks");
    }
  }

  /** Bytes per future, measured as the rounds are: bare, or with a whenComplete action as a Call hangs on its own. */
  private static double futures(boolean withAction) throws InterruptedException {
    CompletableFuture<?>[] futures = new CompletableFuture<?>[QUEUED];
    long before = usedHeap();
    for (int j = 0; j < QUEUED; j++) {
      CompletableFuture<Object> future = new CompletableFuture<>();
      if (withAction) {
        Object owner = futures;
        future.whenComplete((value, failure) -> Reference.reachabilityFence(owner));
      }
      futures[j] = future;
    }
    long after = usedHeap();
    Reference.reachabilityFence(futures);
    return (after - before) / (double) QUEUED;
  }

  /**
   * The heap in use after a full collection, as the collector itself recorded it at the end of
   * the collection ({@link MemoryPoolMXBean#getCollectionUsage()}, summed over the heap's pools):
   * a reading taken afterwards would also count the allocation buffer this thread has taken
   * since, a granularity of megabytes. Collects until two readings in a row agree within 1 KiB.
   */
  static long usedHeap() throws InterruptedException {
    long previous = -1;
    for (int i = 0; i < 20; i++) {
      System.gc();
      Thread.sleep(20);
      long used = usedAfterLastCollection();
      if (i >= 2 && Math.abs(used - previous) < 1024) {
        return used;
      }
      previous = used;
    }
    return previous;
  }

  private static long usedAfterLastCollection() {
    long used = 0;
    boolean recorded = false;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage usage = pool.getType() == MemoryType.HEAP ? pool.getCollectionUsage() : null;
      if (usage != null) {
        used += usage.getUsed();
        recorded = true;
      }
    }
    return recorded ? used : ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  static String collectors() {
    List<String> names = new ArrayList<>();
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      names.add(bean.getName());
    }
    return String.join(", ", names);
  }

  static void row(String label, List<Double> values) {
    double sum = 0;
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (double value : values) {
      sum += value;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %d |%n", label, sum / values.size(), min, max, values.size());
  }
}

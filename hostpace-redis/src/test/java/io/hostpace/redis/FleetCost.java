package io.hostpace.redis;

import io.hostpace.spi.Fleet.Lesson;
import io.hostpace.redis.testing.RedisCluster;
import io.hostpace.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a fleet costs Redis per start (SPEC S5), measured on a Redis started here, one server and
 * a Cluster of three masters: for each kind of start, {@code N} of them one after another through
 * one process of a fleet that another process listens to, then Redis's own counts ({@code INFO
 * stats}: bytes in and out; {@code INFO commandstats}: commands) divided by {@code N}. Then what a
 * start costs while a host's places are all held (SPEC S2): 4 engines, each with a fleet of its own
 * (connections of their own, as processes have), a host of 2 places for the fleet, each engine
 * sending 25 requests at once that the server holds 100 ms; the scripts Redis ran divided by the
 * 100 starts, with claims that wait in Redis for their grant, and with a fleet that keeps no
 * waiters (whose claims are asked again at each lesson and release, or after a second). Not a test:
 * run by hand, its figures go to BENCHMARKS.md.
 *
 * <pre>
 * java -cp "$(cat /tmp/cp.txt):hostpace-redis/target/classes:hostpace-redis/target/test-classes" io.hostpace.redis.FleetCost 2000
 * java -cp ... io.hostpace.redis.FleetCost places-full        # the places-full measure alone
 * </pre>
 */
final class FleetCost {

  private static final String HOST = "query.wikidata.org";

  private FleetCost() {}

  /** One kind of start: what the process does for its {@code i}th. */
  private interface Start {
    void run(RedisFleet fleet, long i) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("places-full")) { // that measure alone
      try (RedisServer server = RedisServer.start()) {
        for (int run = 0; run < 3; run++) {
          placesFull(server.uri(), 4, 25, 100, true);
          placesFull(server.uri(), 4, 25, 100, false);
        }
        placesFull(server.uri(), 8, 10, 500, true);
        placesFull(server.uri(), 8, 10, 500, false);
      }
      return;
    }
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    Map<String, Start> kinds = new java.util.LinkedHashMap<>();
    kinds.put("a paced start (claimStart of the host)", (fleet, i) -> await(then -> fleet.claimStart(HOST, 1000, then)));
    kinds.put("a paced start of a host and its group (one claimStart of two keys)", (fleet, i) ->
        await(then -> fleet.claimStart(List.of("*.wikidata.org", HOST), new long[] {1000, 1000}, then)));
    kinds.put("a paced start held back (claimStart answered with a wait)", (fleet, i) ->
        await(then -> fleet.claimStart("held.wikidata.org", TimeUnit.HOURS.toNanos(1), then)));
    kinds.put("a start of a gate (claimPlace, and releasePlace with its answer)", (fleet, i) -> {
      await(then -> fleet.claimPlace(HOST, i, 4, 0, then));
      fleet.releasePlace(HOST, i);
    });
    kinds.put("a host met (recall of what the fleet keeps of it)", (fleet, i) ->
        answered(then -> fleet.recall(HOST, then::complete)));
    kinds.put("a change of what a host taught (keep)", (fleet, i) -> {
      fleet.keep(HOST, new io.hostpace.spi.Fleet.Kept(1_000_000_000L + i, 0, 0, 0, 0, 0), TimeUnit.HOURS.toNanos(1));
      answered(then -> fleet.recall("flush.test", then::complete)); // the keep ran: one connection keeps its order
    });
    kinds.put("an announcement (announce, with an answer's quota headers)", (fleet, i) -> {
      fleet.announce(HOST, 1_000_000, TimeUnit.HOURS.toNanos(1), i + 1, 0, 0);
      answered(then -> fleet.recall("flush.test", then::complete));
    });
    kinds.put("a start of a host that announced few left (spendAnnounced)", (fleet, i) ->
        answered(then -> fleet.spendAnnounced(HOST, then::complete)));
    kinds.put("a lesson (tell, heard by one other process)", (fleet, i) ->
        fleet.tell(new Lesson(HOST, false, -1, 84_000_000L, 3)));

    try (RedisServer server = RedisServer.start()) {
      System.out.println("## places full, one server: 4 engines, 2 places, 25 requests each of 100 ms");
      placesFull(server.uri(), 4, 25, 100, true);
      placesFull(server.uri(), 4, 25, 100, false);
      System.out.println("## one server, N = " + n);
      measure(List.of(server.uri()), List.of(server.uri()), false, kinds, n);
    }
    try (RedisCluster cluster = RedisCluster.start()) {
      System.out.println("## a Cluster of three masters (figures summed over them), N = " + n);
      measure(cluster.uris(), cluster.uris(), true, kinds, n);
    }
  }

  private static void measure(List<String> seeds, List<String> nodes, boolean cluster, Map<String, Start> kinds, int n)
      throws Exception {
    String name = "cost-" + Long.toHexString(System.nanoTime());
    RedisFleet teller = cluster ? RedisFleet.connectCluster(seeds, name) : RedisFleet.connect(seeds.get(0), name);
    RedisFleet listener = cluster ? RedisFleet.connectCluster(seeds, name) : RedisFleet.connect(seeds.get(0), name);
    List<RedisClient> clients = new ArrayList<>();
    List<RedisCommands<String, String>> plain = new ArrayList<>();
    for (String node : nodes) {
      RedisClient client = RedisClient.create(node);
      clients.add(client);
      plain.add(client.connect().sync());
    }
    try {
      for (Map.Entry<String, Start> kind : kinds.entrySet()) {
        CountDownLatch heard = new CountDownLatch(n);
        var listening = listener.listen(lesson -> heard.countDown());
        for (long i = 0; i < 50; i++) { // scripts loaded, connections to every node open
          kind.getValue().run(teller, 1_000_000 + i);
        }
        Thread.sleep(200);
        plain.forEach(RedisCommands::configResetstat);
        for (long i = 0; i < n; i++) {
          kind.getValue().run(teller, i);
        }
        if (kind.getKey().startsWith("a lesson")) {
          heard.await(30, TimeUnit.SECONDS);
        }
        Thread.sleep(200); // releases and deliveries on their way
        long in = 0;
        long out = 0;
        Map<String, Long> calls = new TreeMap<>();
        for (RedisCommands<String, String> node : plain) {
          in += stat(node.info("stats"), "total_net_input_bytes");
          out += stat(node.info("stats"), "total_net_output_bytes");
          for (String line : node.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
              String command = line.substring("cmdstat_".length(), line.indexOf(':'));
              long count = Long.parseLong(line.replaceAll("^[^:]*:calls=([0-9]+),.*", "$1"));
              calls.merge(command, count, Long::sum);
            }
          }
        }
        calls.remove("info");
        calls.remove("config");
        calls.remove("config|resetstat");
        StringBuilder perStart = new StringBuilder();
        calls.forEach((command, count) -> perStart.append(String.format("%s %.2f, ", command, (double) count / n)));
        System.out.printf("| %s | %s| %.0f | %.0f |%n", kind.getKey(), perStart, (double) in / n, (double) out / n);
        listening.close();
      }
    } finally {
      teller.close();
      listener.close();
      clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    }
  }

  /**
   * {@code engines} engines, each with a fleet of its own on the Redis at {@code uri}, send
   * {@code each} requests each at once to a host of 2 places for the fleet, which holds each
   * {@code holdMillis}: prints the scripts Redis ran ({@code EVALSHA} and {@code EVAL}), the
   * messages published and all commands sent, each divided by the starts. With {@code waits},
   * claims wait in Redis for their grant; without, each engine's fleet keeps no waiters (the claim
   * of the {@link io.hostpace.spi.Fleet} default), as before.
   */
  private static void placesFull(String uri, int engines, int each, long holdMillis, boolean waits) throws Exception {
    io.hostpace.testkit.TestServer server = io.hostpace.testkit.TestServer.start((request, exchange) -> {
      try {
        Thread.sleep(holdMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      io.hostpace.testkit.TestServer.reply(exchange, 200, "ok");
    });
    String name = "full-" + Long.toHexString(System.nanoTime());
    List<RedisFleet> fleets = new ArrayList<>();
    List<io.hostpace.Hostpace> processes = new ArrayList<>();
    for (int p = 0; p < engines; p++) {
      RedisFleet fleet = RedisFleet.connect(uri, name).placeLease(Duration.ofHours(1)); // no heartbeat in the run
      fleets.add(fleet);
      processes.add(io.hostpace.Hostpace.builder().fleet(waits ? fleet : keepingNoWaiters(fleet))
          .addLimit(server.hostKey(), io.hostpace.Limits.inFlight(2)).build());
    }
    RedisClient client = RedisClient.create(uri);
    RedisCommands<String, String> plain = client.connect().sync();
    try {
      java.net.http.HttpClient http = HttpGet.client();
      plain.configResetstat();
      List<CompletableFuture<?>> calls = new ArrayList<>();
      for (int i = 0; i < each; i++) {
        for (int p = 0; p < engines; p++) {
          calls.add(processes.get(p).execute(new HttpGet(http, server.uri("/" + p + "/" + i))));
        }
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
      Thread.sleep(200); // the last releases on their way
      Map<String, Long> commands = new TreeMap<>();
      for (String line : plain.info("commandstats").split("\r?\n")) {
        if (line.startsWith("cmdstat_")) {
          String command = line.substring("cmdstat_".length(), line.indexOf(':'));
          commands.put(command, Long.parseLong(line.replaceAll("^[^:]*:calls=([0-9]+),.*", "$1")));
        }
      }
      double starts = engines * each;
      long scripts = commands.getOrDefault("evalsha", 0L) + commands.getOrDefault("eval", 0L);
      long sent = fleets.stream().mapToLong(fleet -> fleet.scriptsSent.sum()).sum();
      System.out.printf("| %d engines, %d requests each of %d ms | %s | %.2f scripts a start (%d sent by the fleets, counted from their start) | %.2f PUBLISH"
          + " | most in flight %d | %s |%n", engines, each, holdMillis, waits ? "claims wait for their grant" : "a fleet that keeps no waiters",
          scripts / starts, sent, commands.getOrDefault("publish", 0L) / starts, server.maxConcurrent(), commands);
    } finally {
      fleets.forEach(RedisFleet::close);
      server.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** {@code fleet} but for its claims that wait: a fleet that keeps no waiters, whose engine asks again. */
  private static io.hostpace.spi.Fleet keepingNoWaiters(RedisFleet fleet) {
    return new io.hostpace.spi.Fleet() {
      @Override
      public void tell(Lesson lesson) {
        fleet.tell(lesson);
      }

      @Override
      public Listening listen(java.util.function.Consumer<Lesson> listener) {
        return fleet.listen(listener);
      }

      @Override
      public void claimStart(List<String> keys, long[] intervalNanos, java.util.function.LongConsumer then) {
        fleet.claimStart(keys, intervalNanos, then);
      }

      @Override
      public void claimPlace(String key, long place, int limit, long leaseNanos, java.util.function.LongConsumer then) {
        fleet.claimPlace(key, place, limit, leaseNanos, then);
      }

      @Override
      public void releasePlace(String key, long place) {
        fleet.releasePlace(key, place);
      }

      @Override
      public int processes() {
        return fleet.processes();
      }

      @Override
      public boolean keeps() {
        return true;
      }

      @Override
      public void keep(String key, Kept kept, long keepForNanos) {
        fleet.keep(key, kept, keepForNanos);
      }

      @Override
      public void recall(String key, java.util.function.Consumer<@org.jspecify.annotations.Nullable Kept> then) {
        fleet.recall(key, then);
      }

      @Override
      public void recallOrKeep(String key, Kept kept, long keepForNanos,
          java.util.function.Consumer<@org.jspecify.annotations.Nullable Kept> then) {
        fleet.recallOrKeep(key, kept, keepForNanos, then);
      }

      @Override
      public void announce(String key, long remaining, long resetNanos, long spentBefore, long limit, long windowNanos) {
        fleet.announce(key, remaining, resetNanos, spentBefore, limit, windowNanos);
      }

      @Override
      public void spendAnnounced(String key, java.util.function.Consumer<Spent> then) {
        fleet.spendAnnounced(key, then);
      }
    };
  }

  private static long stat(String info, String field) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    throw new IllegalStateException("INFO has no " + field);
  }

  private interface Claim {
    void ask(java.util.function.LongConsumer then);
  }

  /** Waits for the one answer {@code ask} gives, whatever it is. */
  private static Object answered(java.util.function.Consumer<CompletableFuture<Object>> ask) throws Exception {
    CompletableFuture<Object> answer = new CompletableFuture<>();
    ask.accept(answer);
    return answer.get(10, TimeUnit.SECONDS);
  }

  private static long await(Claim claim) throws Exception {
    CompletableFuture<Long> answer = new CompletableFuture<>();
    claim.ask(answer::complete);
    return answer.get(10, TimeUnit.SECONDS);
  }
}

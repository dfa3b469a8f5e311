package io.hostpace.redis.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster of three masters on 127.0.0.1, and one replica when a test asks for it, started
 * for a test and stopped by {@link #close()}: for the tests of SPEC S5 ({@code hostpace-redis}).
 * Each node is a {@code redis-server --cluster-enabled yes} (the binary {@link RedisBinary} finds:
 * the one on PATH, else the one the embedded-redis jar ships) with nothing saved to disk; the
 * cluster is formed as an operator would by hand, without {@code redis-cli} (the Redis 6.2
 * binary the tests may run ships none): {@code CLUSTER ADDSLOTS} gives each master a third of the
 * 16384 slots (0 to 5460, 5461 to 10922, 10923 to 16383), {@code CLUSTER MEET} introduces the
 * nodes, {@code CLUSTER REPLICATE} makes the replica follow the master that holds a key's slot,
 * and {@link #start} returns once every node reports {@code cluster_state:ok} and the replica has
 * its master's data. {@link #promoteReplica()} fails the master over to it while clients run.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.startWithReplicaFor("{example.org}")) {
 *   RedisFleet fleet = RedisFleet.connectCluster(cluster.uris(), "crawlers");
 *   ...
 *   cluster.promoteReplica();   // the replica now holds {example.org}'s slot
 * }
 * }</pre>
 */
public final class RedisCluster implements AutoCloseable {

  private static final int MASTERS = 3;
  private static final int SLOTS = 16384;
  private static final long READY_MILLIS = 20_000;
  private static final int ATTEMPTS = 5;
  /** A cluster node's bus listens on its port plus this. */
  private static final int BUS_OFFSET = 10_000;

  private final Path dir;
  private final List<Node> masters = new ArrayList<>();
  private @Nullable Node replica;

  private RedisCluster(Path dir) {
    this.dir = dir;
  }

  /** A node: its process, its port, its id in the cluster, and a connection to send it commands on. */
  private record Node(Process process, int port, Path log, Resp resp, String id) {}

  /** Starts three masters, forms the cluster, and returns once it is {@code ok}; fails the test if it cannot. */
  public static RedisCluster start() throws IOException, InterruptedException {
    return start(null);
  }

  /**
   * Starts three masters and a replica of the one that holds {@code key}'s slot, forms the
   * cluster, and returns once it is {@code ok} and the replica in sync; fails the test if it cannot.
   */
  public static RedisCluster startWithReplicaFor(String key) throws IOException, InterruptedException {
    return start(key);
  }

  private static RedisCluster start(@Nullable String replicaFor) throws IOException, InterruptedException {
    String binary = RedisBinary.find();
    RedisCluster cluster = new RedisCluster(Files.createTempDirectory("hostpace-redis-cluster-"));
    try {
      for (int i = 0; i < MASTERS; i++) {
        cluster.masters.add(cluster.startNode(binary));
      }
      for (int i = 0; i < MASTERS; i++) {
        List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
        for (int slot = i * SLOTS / MASTERS; slot < (i + 1) * SLOTS / MASTERS; slot++) {
          addSlots.add(Integer.toString(slot));
        }
        cluster.masters.get(i).resp().call(addSlots);
      }
      Node replica = replicaFor == null ? null : cluster.startNode(binary);
      cluster.replica = replica;
      Node first = cluster.masters.get(0);
      for (Node node : cluster.nodes()) {
        if (node != first) {
          first.resp().call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(node.port()));
        }
      }
      cluster.awaitOk();
      if (replica != null && replicaFor != null) {
        Node master = cluster.masterHolding(replicaFor);
        replica.resp().call("CLUSTER", "REPLICATE", master.id());
        cluster.await("the replica of port " + master.port() + " in sync", () ->
            replica.resp().text("INFO", "replication").contains("master_link_status:up")
            && cluster.everyNodeSees(replica, "slave"));
        cluster.awaitOk();
      }
      return cluster;
    } catch (IOException | RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Starts one cluster-enabled node on a free port whose bus port is free too, and connects to it. */
  private Node startNode(String binary) throws IOException, InterruptedException {
    IOException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) { // another program may take the port first
      int port = freePortWithFreeBus();
      Path nodeDir = Files.createDirectories(dir.resolve(Integer.toString(port)));
      Path log = nodeDir.resolve("redis.log");
      Process process = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
          "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
          "--dir", nodeDir.toString(), "--save", "", "--appendonly", "no")
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .start();
      try {
        Resp resp = Resp.awaitReady(process, port, log);
        try {
          return new Node(process, port, log, resp, resp.text("CLUSTER", "MYID"));
        } catch (IOException e) {
          resp.close();
          throw e;
        }
      } catch (IOException e) {
        RedisProcesses.stop(process, false);
        last = e;
      }
    }
    throw last;
  }

  /** A port in 20000 to 29999 that is free, and whose bus port (10000 above) is free too. */
  private static int freePortWithFreeBus() throws IOException {
    for (int tries = 0; tries < 100; tries++) {
      int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
      if (free(port) && free(port + BUS_OFFSET)) {
        return port;
      }
    }
    throw new IOException("no free port in 20000 to 29999 with its bus port free, after 100 tries");
  }

  private static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private List<Node> nodes() {
    List<Node> nodes = new ArrayList<>(masters);
    if (replica != null) {
      nodes.add(replica);
    }
    return nodes;
  }

  /** Waits until every node knows every other and reports {@code cluster_state:ok}. */
  private void awaitOk() throws IOException, InterruptedException {
    int count = nodes().size();
    await("cluster_state:ok on every node", () -> {
      for (Node node : nodes()) {
        String info = node.resp().text("CLUSTER", "INFO");
        if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + count)) {
          return false;
        }
      }
      return true;
    });
  }

  /** Whether every node's {@code CLUSTER NODES} gives {@code node} the flag {@code flag} ({@code master}, {@code slave}). */
  private boolean everyNodeSees(Node node, String flag) throws IOException {
    for (Node other : nodes()) {
      boolean seen = false;
      for (String line : other.resp().text("CLUSTER", "NODES").split("\n")) {
        String[] fields = line.split(" ");
        if (fields.length > 2 && fields[0].equals(node.id()) && List.of(fields[2].split(",")).contains(flag)) {
          seen = true;
        }
      }
      if (!seen) {
        return false;
      }
    }
    return true;
  }

  private void await(String what, RedisProcesses.Condition condition) throws IOException, InterruptedException {
    RedisProcesses.await("the cluster", what, READY_MILLIS, condition, () -> {
      StringBuilder logs = new StringBuilder();
      for (Node node : nodes()) {
        logs.append("\n--- port ").append(node.port()).append(":\n").append(Resp.log(node.log()));
      }
      return logs.toString();
    });
  }

  /** The seeds to connect to: each master's URI, {@code redis://127.0.0.1:PORT}. */
  public List<String> uris() {
    return masters.stream().map(node -> "redis://127.0.0.1:" + node.port()).toList();
  }

  /** The slot of {@code key}, as the cluster computes it ({@code CLUSTER KEYSLOT}). */
  public int slot(String key) throws IOException {
    if (!(masters.get(0).resp().call("CLUSTER", "KEYSLOT", key) instanceof Long slot)) {
      throw new IOException("CLUSTER KEYSLOT '" + key + "' answered no number");
    }
    return slot.intValue();
  }

  /** The URI of the master that holds {@code key}'s slot now. */
  public String uriHolding(String key) throws IOException {
    return "redis://127.0.0.1:" + masterHolding(key).port();
  }

  /** The node that holds {@code key}'s slot now, as the first master's {@code CLUSTER NODES} says. */
  private Node masterHolding(String key) throws IOException {
    int slot = slot(key);
    for (String line : masters.get(0).resp().text("CLUSTER", "NODES").split("\n")) {
      String[] fields = line.split(" ");
      for (int at = 8; at < fields.length; at++) {
        String[] range = fields[at].split("-");
        if (range[0].startsWith("[")) {
          continue; // a slot being migrated: none here
        }
        int from = Integer.parseInt(range[0]);
        int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
        if (slot >= from && slot <= to) {
          for (Node node : nodes()) {
            if (node.id().equals(fields[0])) {
              return node;
            }
          }
        }
      }
    }
    throw new IOException("no node of the cluster holds slot " + slot + " of '" + key + "'");
  }

  /**
   * Fails the replica's master over to it ({@code CLUSTER FAILOVER} on the replica: its master
   * stops taking writes, the replica catches up and takes its slots, the old master becomes its
   * replica), and returns once every node sees the replica as a master and the cluster is
   * {@code ok}; fails the test if it does not within 20 s.
   *
   * @throws IllegalStateException if the cluster was started without a replica
   */
  public void promoteReplica() throws IOException, InterruptedException {
    Node promoted = replica;
    if (promoted == null) {
      throw new IllegalStateException("the cluster has no replica to promote: start it with startWithReplicaFor(key)");
    }
    promoted.resp().call("CLUSTER", "FAILOVER");
    await("port " + promoted.port() + " a master on every node", () -> everyNodeSees(promoted, "master"));
    awaitOk();
  }

  /** Stops every node and waits for each to exit, and deletes their files; closing again does nothing. */
  @Override
  public void close() {
    for (Node node : nodes()) {
      try {
        node.resp().close();
      } catch (IOException ignored) { // the node is stopped below anyway
      }
      RedisProcesses.stop(node.process(), false);
    }
    masters.clear();
    replica = null;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException ignored) { // temporary files left behind
    }
  }

}

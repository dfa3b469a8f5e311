package io.hostpace.redis.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A Redis master, a replica of it and a Sentinel that watches them (as {@code mymaster}), on
 * 127.0.0.1, started for a test and stopped by {@link #close()}: for the tests of SPEC S5 on
 * Redis deployed with replicas and failover. Each is a {@code redis-server} (the binary
 * {@link RedisBinary} finds; the Sentinel is the same binary with {@code --sentinel}) with nothing
 * saved to disk. {@link #start} returns once the Sentinel knows the replica;
 * {@link #killMaster()} kills the master while clients run, and the Sentinel promotes the replica.
 *
 * <pre>{@code
 * try (RedisSentinel redis = RedisSentinel.start()) {
 *   RedisFleet fleet = RedisFleet.connect(redis.uri(), "crawlers");   // redis-sentinel://127.0.0.1:PORT#mymaster
 *   ...
 *   redis.killMaster();   // the replica is the master now
 * }
 * }</pre>
 */
public final class RedisSentinel implements AutoCloseable {

  /** The name the Sentinel watches the master by. */
  public static final String MASTER_NAME = "mymaster";
  private static final long READY_MILLIS = 20_000;

  private final Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final List<Resp> connections = new ArrayList<>();
  private int masterPort;
  private int replicaPort;
  private int sentinelPort;
  private @Nullable Resp sentinel;

  private RedisSentinel(Path dir) {
    this.dir = dir;
  }

  /** Starts the master, its replica and a Sentinel, and returns once the Sentinel sees the replica. */
  public static RedisSentinel start() throws IOException, InterruptedException {
    String binary = RedisBinary.find();
    RedisSentinel redis = new RedisSentinel(Files.createTempDirectory("hostpace-redis-sentinel-"));
    try {
      redis.masterPort = RedisProcesses.freePort();
      redis.start(binary, redis.masterPort, List.of());
      redis.replicaPort = RedisProcesses.freePort();
      Resp replica = redis.start(binary, redis.replicaPort, List.of("--replicaof", "127.0.0.1", Integer.toString(redis.masterPort)));
      redis.await("the replica in sync", () -> replica.text("INFO", "replication").contains("master_link_status:up"));
      redis.sentinelPort = RedisProcesses.freePort();
      Path config = redis.dir.resolve("sentinel.conf");
      Files.writeString(config, String.join("\n",
          "port " + redis.sentinelPort,
          "bind 127.0.0.1",
          "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + redis.masterPort + " 1",
          "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
          "sentinel failover-timeout " + MASTER_NAME + " 10000",
          ""));
      Resp sentinel = redis.start(binary, redis.sentinelPort, List.of(config.toString(), "--sentinel"));
      redis.sentinel = sentinel;
      redis.await("the Sentinel seeing the replica", () -> {
        Object replicas = sentinel.call("SENTINEL", "REPLICAS", MASTER_NAME);
        return replicas instanceof List<?> list && list.toString().contains(Integer.toString(redis.replicaPort));
      });
      return redis;
    } catch (IOException | RuntimeException | Error e) {
      redis.close();
      throw e;
    }
  }

  /** Starts {@code binary} on {@code port} with {@code args} (a config file first, for the Sentinel), and connects to it. */
  private Resp start(String binary, int port, List<String> args) throws IOException, InterruptedException {
    Path log = dir.resolve(port + ".log");
    List<String> command = new ArrayList<>();
    command.add(binary);
    boolean sentinelMode = args.contains("--sentinel");
    if (sentinelMode) {
      command.addAll(args);
    } else {
      command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
          "--dir", dir.toString()));
      command.addAll(args);
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    processes.add(process);
    Resp resp = Resp.awaitReady(process, port, log);
    connections.add(resp);
    return resp;
  }

  private void await(String what, RedisProcesses.Condition condition) throws IOException, InterruptedException {
    RedisProcesses.await("Redis", what, READY_MILLIS, condition, () -> {
      StringBuilder logs = new StringBuilder();
      try (Stream<Path> files = Files.list(dir)) {
        for (Path log : files.filter(file -> file.toString().endsWith(".log")).sorted().toList()) {
          logs.append("\n--- ").append(log.getFileName()).append(":\n").append(Resp.log(log));
        }
      } catch (IOException e) {
        logs.append("\n(no logs: ").append(e).append(')');
      }
      return logs.toString();
    });
  }

  /** The Sentinel's URI for Lettuce: {@code redis-sentinel://127.0.0.1:PORT#mymaster}. */
  public String uri() {
    return "redis-sentinel://127.0.0.1:" + sentinelPort + "#" + MASTER_NAME;
  }

  /** The port of the master as the Sentinel names it now. */
  public int masterPort() throws IOException {
    Object address = sentinel().call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
    if (!(address instanceof List<?> hostAndPort) || hostAndPort.size() != 2) {
      throw new IOException("the Sentinel names no master: " + address);
    }
    return Integer.parseInt(String.valueOf(hostAndPort.get(1)));
  }

  /**
   * Kills the master as a crash would ({@code SIGKILL}) and returns once the Sentinel has seen it
   * down (after 1 s) and promoted the replica, and the replica says it is the master; fails the
   * test if not within 20 s.
   */
  public void killMaster() throws IOException, InterruptedException {
    int before = masterPort();
    int promoted = before == masterPort ? replicaPort : masterPort;
    Process master = processes.get(before == masterPort ? 0 : 1);
    master.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    await("port " + promoted + " the master", () -> masterPort() == promoted && role(promoted).equals("master"));
  }

  /** The role the node on {@code port} gives itself, or {@code ""} if it cannot be asked now. */
  private static String role(int port) {
    try (Resp node = new Resp(port)) { // a new connection each time: the Sentinel kills the clients of both
      Object role = node.call("ROLE");
      return role instanceof List<?> fields && !fields.isEmpty() ? String.valueOf(fields.get(0)) : "";
    } catch (IOException killed) {
      return "";
    }
  }

  private Resp sentinel() {
    Resp started = sentinel;
    if (started == null) {
      throw new IllegalStateException("the Sentinel is not running");
    }
    return started;
  }

  /** Stops the three and waits for each to exit, and deletes their files; closing again does nothing. */
  @Override
  public void close() {
    for (Resp connection : connections) {
      try {
        connection.close();
      } catch (IOException ignored) { // the process is stopped below anyway
      }
    }
    connections.clear();
    for (Process process : processes) {
      RedisProcesses.stop(process, false);
    }
    processes.clear();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException ignored) { // temporary files left behind
    }
  }
}

package io.hostpace.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One Kafka node in KRaft mode (broker and controller in one), listening on 127.0.0.1 only,
 * for tests. Spring Kafka's {@code EmbeddedKafkaKraftBroker} cannot be used for that: the Kafka
 * test kit under it (4.2) binds every listener's socket to the wildcard address before the
 * node starts, whatever {@code listeners} says. Here the node is Kafka's own
 * {@link KafkaRaftServer}, configured with loopback listeners and started as the test kit
 * starts it: format the log directory, then start.
 *
 * <p>The two ports are chosen by binding 127.0.0.1:0 and letting go; the controller's must be
 * known before the node starts, as the quorum's voters name it.
 */
final class LoopbackKafka implements AutoCloseable {

  private final Path directory;
  private final KafkaRaftServer server;
  private final String bootstrapServers;

  private LoopbackKafka(Path directory, KafkaRaftServer server, String bootstrapServers) {
    this.directory = directory;
    this.server = server;
    this.bootstrapServers = bootstrapServers;
  }

  /** Starts a node and waits until it answers, creating {@code topics} with one partition each. */
  static LoopbackKafka start(String... topics) throws Exception {
    // A fatal error in the node must fail the test, not end the test JVM.
    Exit.setExitProcedure((status, message) -> {
      throw new IllegalStateException("Kafka asked to exit with " + status + ": " + message);
    });
    Exit.setHaltProcedure((status, message) -> {
      throw new IllegalStateException("Kafka asked to halt with " + status + ": " + message);
    });
    int brokerPort = freeLoopbackPort();
    int controllerPort = freeLoopbackPort();
    Path directory = Files.createTempDirectory("hostpace-kafka");
    Properties properties = new Properties();
    properties.putAll(Map.ofEntries(
        Map.entry("process.roles", "broker,controller"),
        Map.entry("node.id", "1"),
        Map.entry("controller.quorum.voters", "1@127.0.0.1:" + controllerPort),
        Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort),
        Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort),
        Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
        Map.entry("controller.listener.names", "CONTROLLER"),
        Map.entry("inter.broker.listener.name", "PLAINTEXT"),
        Map.entry("log.dirs", directory.toString()),
        Map.entry("num.partitions", "1"),
        Map.entry("offsets.topic.replication.factor", "1"),
        Map.entry("offsets.topic.num.partitions", "1"),
        Map.entry("transaction.state.log.replication.factor", "1"),
        Map.entry("transaction.state.log.min.isr", "1"),
        Map.entry("group.initial.rebalance.delay.ms", "0"),
        Map.entry("auto.create.topics.enable", "false")));
    KafkaConfig config = KafkaConfig.fromProps(properties);

    Formatter formatter = new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .setDirectories(List.of(directory.toString()))
        .setMetadataLogDirectory(directory.toString())
        .setReleaseVersion(MetadataVersion.latestProduction())
        .setControllerListenerName("CONTROLLER");
    formatter.run();

    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    LoopbackKafka kafka = new LoopbackKafka(directory, server, "127.0.0.1:" + brokerPort);
    try {
      kafka.createTopics(topics);
    } catch (Exception e) {
      kafka.close();
      throw e;
    }
    return kafka;
  }

  /** {@code 127.0.0.1:port}, for {@code bootstrap.servers}. */
  String bootstrapServers() {
    return bootstrapServers;
  }

  private void createTopics(String... topics) throws Exception {
    try (Admin admin = Admin.create(Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
      List<NewTopic> newTopics = Stream.of(topics).map(topic -> new NewTopic(topic, 1, (short) 1)).toList();
      admin.createTopics(newTopics).all().get(30, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() {
    try {
      server.shutdown();
      server.awaitShutdown();
    } finally {
      Exit.resetExitProcedure();
      Exit.resetHaltProcedure();
      deleteQuietly(directory);
    }
  }

  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void deleteQuietly(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory left behind is not worth failing a test for
    }
  }
}

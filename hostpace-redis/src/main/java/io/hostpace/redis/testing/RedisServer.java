package io.hostpace.redis.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} on 127.0.0.1 and a free port, with nothing saved to disk, started
 * for a test or a demo and stopped by {@link #close()}: for the tests of SPEC S2
 * ({@code hostpace-redis}, the command line's {@code --fleet}) and {@code hostpace demo --fleet}.
 * The binary is the {@code redis-server} on {@code PATH}, else the one the embedded-redis jar
 * ships, which the modules that start Redis depend on ({@link RedisBinary}); without either,
 * {@link #start()} throws, as a missing server is not a passing test.
 *
 * <p>A test of a fleet's failures (SPEC S4) can {@link #stop()} it and {@link #restart()} it on the
 * same port, or {@link #kill()} it without warning: as nothing is saved, it always starts again
 * empty, the way a Redis without persistence comes back after a crash. Its clients reconnect to
 * the same {@link #uri()}.
 */
public final class RedisServer implements AutoCloseable {

  private static final long READY_MILLIS = 10_000;
  private static final int ATTEMPTS = 3;

  private final String binary;
  private final int port;
  private final Path log;
  private volatile Process process; // the one running now, or the last one, stopped

  private RedisServer(String binary, int port, Path log) throws IOException {
    this.binary = binary;
    this.port = port;
    this.log = log;
    this.process = launch();
  }

  /**
   * Starts a server and returns once it answers PING.
   *
   * @throws IOException if there is no binary to run, or the server did not answer within 10 s
   *     (three tries on three free ports), with its log
   */
  public static RedisServer start() throws IOException, InterruptedException {
    return start(RedisBinary.find());
  }

  /** Starts {@code binary} as a server and returns once it answers PING; throws as {@link #start()} does. */
  static RedisServer start(String binary) throws IOException, InterruptedException {
    IOException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) { // another program may take the free port first
      int port = RedisProcesses.freePort();
      Path log = Files.createTempFile("redis-" + port + "-", ".log");
      RedisServer server = new RedisServer(binary, port, log);
      try {
        server.awaitPong();
        return server;
      } catch (IOException e) {
        server.close();
        last = e;
      }
    }
    throw last;
  }

  /** Starts {@code redis-server} on this server's port, nothing saved, its output appended to the log. */
  private Process launch() throws IOException {
    return new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }

  /** Polls with PING until the server answers PONG, for at most 10 s. */
  private void awaitPong() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_MILLIS);
    while (true) {
      if (!process.isAlive()) {
        throw new IOException("redis-server on port " + port + " exited with " + process.exitValue() + ": " + log());
      }
      if (pong()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("redis-server on port " + port + " did not answer PING within " + READY_MILLIS
            + " ms: " + log());
      }
      Thread.sleep(20);
    }
  }

  private boolean pong() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      socket.setSoTimeout(500);
      OutputStream out = socket.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] answer = in.readNBytes(7);
      return new String(answer, StandardCharsets.US_ASCII).equals("+PONG\r\n");
    } catch (IOException notYet) {
      return false;
    }
  }

  private String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** The server's URI for Lettuce: {@code redis://127.0.0.1:PORT}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** The port it listens on, the same after {@link #restart()}. */
  public int port() {
    return port;
  }

  /** Whether the server is running: started and not stopped or killed since. */
  public boolean isRunning() {
    return process.isAlive();
  }

  /**
   * Stops the server as an operator would (SIGTERM: it closes its clients' connections and exits),
   * and waits for it to exit, at most 10 s before it is killed. Its data is gone; {@link #restart()}
   * starts it again on the same port. Stopping a stopped server does nothing.
   */
  public void stop() {
    RedisProcesses.stop(process, false);
  }

  /**
   * Kills the server without warning (SIGKILL, as a crash or the OOM killer would): it closes
   * nothing in order, its clients find their connections reset. Waits until it is gone. Its data is
   * gone; {@link #restart()} starts it again on the same port. Killing a stopped server does nothing.
   */
  public void kill() {
    RedisProcesses.stop(process, true);
  }

  /**
   * Starts the server again on the same port, empty, and returns once it answers PING; stops it
   * first if it is running. Clients connected before reconnect to the same {@link #uri()}.
   *
   * @throws IOException if it does not answer within 10 s, with its log
   */
  public void restart() throws IOException, InterruptedException {
    stop();
    process = launch();
    awaitPong();
  }

  /** Stops the server and waits for it to exit, and deletes its log; closing again does nothing. */
  @Override
  public void close() {
    stop();
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) { // a temp file left behind
    }
  }
}

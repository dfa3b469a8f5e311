package io.hostpace.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} on 127.0.0.1 and a free port, with nothing saved to disk, started
 * for a test and stopped by {@link #close()}: for the tests of SPEC S2 ({@code hostpace-redis},
 * the command line's {@code --fleet}). The binary is the {@code redis-server} on {@code PATH}, else
 * the one the embedded-redis jar ships, which the modules that start Redis have as a test
 * dependency ({@link RedisBinary}); without either the tests fail, as a missing server is not a
 * passing test.
 */
public final class RedisServer implements AutoCloseable {

  private static final long READY_MILLIS = 10_000;
  private static final int ATTEMPTS = 3;

  private final Process process;
  private final int port;
  private final Path log;

  private RedisServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts a server and returns once it answers PING; fails the test if it cannot. */
  public static RedisServer start() throws IOException, InterruptedException {
    return start(RedisBinary.find());
  }

  /** Starts {@code binary} as a server and returns once it answers PING; fails the test if it cannot. */
  static RedisServer start(String binary) throws IOException, InterruptedException {
    IOException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) { // another program may take the free port first
      int port = freePort();
      Path log = Files.createTempFile("redis-" + port + "-", ".log");
      Process process = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
          "--save", "", "--appendonly", "no")
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .start();
      RedisServer server = new RedisServer(process, port, log);
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

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
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

  /** Stops the server and waits for it to exit; closing again does nothing. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) { // a temp file left behind
    }
  }
}

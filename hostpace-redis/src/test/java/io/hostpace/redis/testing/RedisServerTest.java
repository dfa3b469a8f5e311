package io.hostpace.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The server a test of a fleet's failures stops, kills and starts again (SPEC S4): on the same
 * port each time, and empty, as nothing is saved. Spoken to over a plain socket, one command a
 * connection, so that no client's reconnection is under test here.
 */
class RedisServerTest {


  @Test
  void S4_aServerRestartedAnswersOnTheSamePortAndHasForgottenEverything() throws Exception {
    try (RedisServer server = RedisServer.start()) {
      int port = server.port();
      assertThat(command(port, "SET kept yes")).isEqualTo("+OK");
      assertThat(command(port, "GET kept")).isEqualTo("$3");

      server.restart();

      assertThat(server.port()).isEqualTo(port);
      assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + port);
      assertThat(command(port, "GET kept")).as("nothing is saved: it comes back empty").isEqualTo("$-1");
    }
  }

  @Test
  void S4_aServerStoppedOrKilledRefusesConnectionsUntilItIsRestarted() throws Exception {
    try (RedisServer server = RedisServer.start()) {
      int port = server.port();
      server.stop();
      assertThat(server.isRunning()).isFalse();
      assertThat(refused(port)).isTrue();
      server.stop(); // stopping again does nothing

      server.restart();
      assertThat(server.isRunning()).isTrue();
      assertThat(command(port, "SET kept yes")).isEqualTo("+OK");

      server.kill();
      assertThat(server.isRunning()).isFalse();
      assertThat(refused(port)).isTrue();

      server.restart();
      assertThat(command(port, "GET kept")).isEqualTo("$-1");
    }
  }

  /** Sends one inline command and returns the first line of the answer. */
  static String command(int port, String command) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      for (int c = in.read(); c != '\r' && c != -1; c = in.read()) {
        line.append((char) c);
      }
      return line.toString();
    }
  }

  static boolean refused(int port) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return false;
    } catch (ConnectException e) {
      return true;
    }
  }
}

package io.hostpace.redis.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One connection to a Redis on 127.0.0.1 that sends commands and reads their answers in RESP, the
 * protocol's plain form: enough to form a test's cluster without {@code redis-cli} (the Redis 6.2
 * binary the tests may run ships none), and without Lettuce, so that the client a fleet runs on is
 * not also what sets up the servers it is tested against.
 * An answer is a {@code String} (simple or bulk), a {@code Long}, a {@code List} of answers, or
 * null; an error answer is thrown as an {@link IOException} that names the command.
 */
final class Resp implements Closeable {

  private static final int TIMEOUT_MILLIS = 5_000;

  private final Socket socket;
  private final OutputStream out;
  private final InputStream in;

  /**
   * A connection to the redis-server {@code process} started on {@code port}, once it answers PING,
   * within 10 s; the server's {@code log} is in the message when it exits or does not answer.
   */
  static Resp awaitReady(Process process, int port, Path log) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      if (!process.isAlive()) {
        throw new IOException("redis-server on port " + port + " exited with " + process.exitValue() + ": " + log(log));
      }
      try {
        Resp resp = new Resp(port);
        if ("PONG".equals(resp.call("PING"))) {
          return resp;
        }
        resp.close();
      } catch (IOException notYet) { // not listening yet
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("redis-server on port " + port + " did not answer PING within 10 s: " + log(log));
      }
      Thread.sleep(20);
    }
  }

  /** What a server wrote to {@code log}, for a message. */
  static String log(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  Resp(int port) throws IOException {
    socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      out = socket.getOutputStream();
      in = new BufferedInputStream(socket.getInputStream());
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** Sends {@code args} as one command and returns its answer. */
  @Nullable Object call(List<String> args) throws IOException {
    ByteArrayOutputStream command = new ByteArrayOutputStream();
    write(command, "*" + args.size() + "\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      write(command, "$" + bytes.length + "\r\n");
      command.write(bytes);
      write(command, "\r\n");
    }
    out.write(command.toByteArray());
    out.flush();
    Object answer = read();
    if (answer instanceof Failure failure) {
      throw new IOException(String.join(" ", args.subList(0, Math.min(args.size(), 3))) + " on port "
          + socket.getPort() + " answered " + failure.message());
    }
    return answer;
  }

  @Nullable Object call(String... args) throws IOException {
    return call(List.of(args));
  }

  /** The answer to {@code args}, which must be a string. */
  String text(String... args) throws IOException {
    Object answer = call(args);
    if (!(answer instanceof String text)) {
      throw new IOException(args[0] + " on port " + socket.getPort() + " answered " + answer + ", not a string");
    }
    return text;
  }

  private record Failure(String message) {}

  private @Nullable Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("Redis on port " + socket.getPort() + " closed the connection");
    }
    String line = line();
    switch (type) {
      case '+':
        return line;
      case '-':
        return new Failure(line);
      case ':':
        return Long.parseLong(line);
      case '$': {
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length);
        line(); // the CRLF after the bulk
        return new String(bytes, StandardCharsets.UTF_8);
      }
      case '*': {
        int count = Integer.parseInt(line);
        if (count < 0) {
          return null;
        }
        List<@Nullable Object> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          items.add(read());
        }
        return items;
      }
      default:
        throw new IOException("Redis on port " + socket.getPort() + " answered a type '" + (char) type + "' RESP 2 has not");
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) {
        throw new IOException("Redis on port " + socket.getPort() + " closed the connection mid-answer");
      }
      line.write(c);
    }
    in.read(); // '\n'
    return line.toString(StandardCharsets.UTF_8);
  }

  private static void write(ByteArrayOutputStream to, String text) {
    to.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}

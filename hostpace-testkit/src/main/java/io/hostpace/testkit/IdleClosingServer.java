package io.hostpace.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 server on a bare socket that keeps connections alive but closes one that stays
 * idle for longer than its idle time, as most servers do, without telling the client: a client
 * that pools the connection finds it dead when it next sends on it. Its first request is refused
 * with {@code 429} and {@code Retry-After: 1}, longer than the idle time, so that the retry goes
 * out after the connection it came on was closed; every other request is answered {@code 200 ok}.
 * Both answers keep the connection open.
 *
 * <p>It logs each request it reads as {@code "<connection> <method> <path>"}, the connections
 * numbered from 1 in the order they were accepted, and counts the connections it closed idle.
 * Close it after the test; that closes every connection it holds.
 */
public final class IdleClosingServer implements AutoCloseable {

  private final SocketListener listener;
  private final int idleMillis;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger answered = new AtomicInteger();
  private final AtomicInteger closedIdle = new AtomicInteger();

  private IdleClosingServer(Duration idle) throws IOException {
    this.idleMillis = Math.toIntExact(idle.toMillis());
    if (idleMillis < 1) {
      throw new IllegalArgumentException("idle time " + idle + " is under a millisecond");
    }
    listener = SocketListener.start("testkit-idle-closing-server", this::serve);
  }

  /** A server on 127.0.0.1 and a free port that closes a connection idle for longer than {@code idle}. */
  public static IdleClosingServer start(Duration idle) throws IOException {
    return new IdleClosingServer(idle);
  }

  /** The address of {@code path} on this server. */
  public URI uri(String path) {
    return listener.uri(path);
  }

  /** The engine's key for this server: {@code 127.0.0.1:port}. */
  public String hostKey() {
    return listener.hostKey();
  }

  /** Every request read, in order, as {@code "<connection> <method> <path>"}, e.g. {@code "2 GET /a"}. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  /** How many connections it closed because they stayed idle past the idle time. */
  public int closedIdle() {
    return closedIdle.get();
  }

  /** Serves requests on one connection until it stays idle past the idle time or the client closes it. */
  private void serve(Socket connection, int id) {
    try (connection) {
      connection.setSoTimeout(idleMillis);
      InputStream in = connection.getInputStream();
      while (true) {
        String head;
        try {
          head = RawServer.readHead(in);
        } catch (SocketTimeoutException e) {
          closedIdle.incrementAndGet(); // idle too long: closed without a word, as keep-alive servers do
          return;
        }
        if (head.isEmpty()) {
          return; // the client closed it
        }
        String[] line = head.split("\r\n", 2)[0].split(" ", 3);
        requests.add(id + " " + line[0] + " " + line[1]);
        skipBody(in, head);
        String answer = answered.getAndIncrement() == 0
            ? "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 4\r\n\r\nslow"
            : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        OutputStream out = connection.getOutputStream();
        out.write(answer.getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // the client went away, or the server closed
    }
  }

  /** Reads the request's body, if its head gives a {@code Content-Length}, so that the next head starts clean. */
  private static void skipBody(InputStream in, String head) throws IOException {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        long length = Long.parseLong(line.substring("content-length:".length()).trim());
        for (long read = 0; read < length && in.read() >= 0; read++) {
          // dropped
        }
      }
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }

  @Override
  public String toString() {
    return "IdleClosingServer{" + hostKey() + ", requests=" + requests + "}";
  }
}

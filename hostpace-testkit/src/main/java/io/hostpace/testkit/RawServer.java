package io.hostpace.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A server that misbehaves, on a bare socket, by path:
 * <ul>
 * <li>{@code /reset}: reads the request head, then resets the connection (SO_LINGER 0 and close);
 * <li>{@code /hang}: reads the request head and never answers; it logs the path again in
 *     {@link #abandoned()} when the client closes the connection;
 * <li>any other path: {@code 200 ok}, and closes the connection.
 * </ul>
 * It logs the path of each request head it reads. Close it after the test; that closes every
 * connection it holds.
 */
public final class RawServer implements AutoCloseable {

  private final ServerSocket socket;
  private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "testkit-raw-server");
    thread.setDaemon(true);
    return thread;
  });
  private final List<Socket> connections = new CopyOnWriteArrayList<>();
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private final List<String> abandoned = new CopyOnWriteArrayList<>();

  private RawServer() throws IOException {
    socket = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  /** A server on 127.0.0.1 and a free port. */
  public static RawServer start() throws IOException {
    return new RawServer();
  }

  /** The address of {@code path} on this server. */
  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
  }

  /** The engine's key for this server: {@code 127.0.0.1:port}. */
  public String hostKey() {
    return "127.0.0.1:" + socket.getLocalPort();
  }

  /** The path of every request head read, in order. */
  public List<String> paths() {
    return List.copyOf(paths);
  }

  /** The path of every {@code /hang} request whose client closed the connection. */
  public List<String> abandoned() {
    return List.copyOf(abandoned);
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        connections.add(connection);
        threads.execute(() -> serve(connection));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket connection) {
    String path = "";
    try {
      String head = readHead(connection.getInputStream());
      if (head.isEmpty()) {
        connection.close();
        return;
      }
      path = head.split(" ", 3)[1];
      int query = path.indexOf('?');
      if (query >= 0) {
        path = path.substring(0, query);
      }
      paths.add(path);
      switch (path) {
        case "/reset" -> {
          connection.setSoLinger(true, 0);
          connection.close();
        }
        case "/hang" -> {
          // Never answers; reads (and drops) whatever comes until the client closes the connection.
          InputStream in = connection.getInputStream();
          while (in.read() >= 0) {
            // swallow the body, if any
          }
          abandoned.add(path);
        }
        default -> {
          OutputStream out = connection.getOutputStream();
          out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
              .getBytes(StandardCharsets.US_ASCII));
          out.flush();
          connection.close();
        }
      }
    } catch (IOException e) {
      // The client went away (a reset counts as letting a hanging request go), or the server closed.
      if (path.equals("/hang") && !socket.isClosed()) {
        abandoned.add(path);
      }
    }
  }

  /** Reads up to the blank line that ends a request's head; "" if the connection ends first. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    int b;
    while (matched < 4 && (b = in.read()) >= 0) {
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return matched == 4 ? head.toString(StandardCharsets.US_ASCII) : "";
  }

  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket connection : connections) {
      connection.close();
    }
    threads.shutdownNow();
  }

  @Override
  public String toString() {
    return "RawServer{" + hostKey() + ", paths=" + paths + "}";
  }
}

package io.hostpace.jdk;

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
 * <li>{@code /reset}: reads the request, then resets the connection (SO_LINGER 0 and close);
 * <li>{@code /hang}: reads the request and never answers;
 * <li>any other path: {@code 200 ok}, and closes the connection.
 * </ul>
 * It logs the path of each request it reads, and of each hanging one whose client went away. Close it after the test; that closes every
 * connection it holds.
 */
final class RawServer implements AutoCloseable {

  private final ServerSocket socket;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<Socket> connections = new CopyOnWriteArrayList<>();
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private final List<String> abandoned = new CopyOnWriteArrayList<>();

  private RawServer() throws IOException {
    socket = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  static RawServer start() throws IOException {
    return new RawServer();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
  }

  String hostKey() {
    return "127.0.0.1:" + socket.getLocalPort();
  }

  /** The path of every request read, in order. */
  List<String> paths() {
    return List.copyOf(paths);
  }

  /** The path of every {@code /hang} request whose client closed the connection. */
  List<String> abandoned() {
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
    try {
      String head = readHead(connection.getInputStream());
      if (head.isEmpty()) {
        connection.close();
        return;
      }
      String path = head.split(" ", 3)[1];
      paths.add(path);
      switch (path) {
        case "/reset" -> {
          connection.setSoLinger(true, 0);
          connection.close();
        }
        case "/hang" -> {
          // Never answers; the connection stays open until the client gives up or the server closes.
          while (connection.getInputStream().read() >= 0) {
            // swallow whatever comes
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
      // the client went away
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
}

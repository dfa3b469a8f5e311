package io.hostpace.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What the servers on a bare socket share: a socket on 127.0.0.1 and a free port, a thread that
 * accepts connections and hands each, numbered from 1 in the order accepted, to a thread of its
 * own, and a close that ends the socket, every connection and the threads.
 */
final class SocketListener implements AutoCloseable {

  /** Serves one connection, on a thread of its own. */
  interface Connections {
    void serve(Socket connection, int number);
  }

  private final ServerSocket socket;
  private final ExecutorService threads;
  private final List<Socket> connections = new CopyOnWriteArrayList<>();

  private SocketListener(String threadName) throws IOException {
    threads = Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, threadName);
      thread.setDaemon(true);
      return thread;
    });
    socket = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
  }

  /** Listens and hands each connection to {@code served}, on threads named {@code threadName}. */
  static SocketListener start(String threadName, Connections served) throws IOException {
    SocketListener listener = new SocketListener(threadName);
    listener.threads.execute(() -> listener.accept(served));
    return listener;
  }

  private void accept(Connections served) {
    int number = 0;
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        connections.add(connection);
        int id = ++number;
        threads.execute(() -> served.serve(connection, id));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  /** Whether {@link #close} was called. */
  boolean isClosed() {
    return socket.isClosed();
  }

  /** The address of {@code path} on this server. */
  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
  }

  /** The engine's key for this server: {@code 127.0.0.1:port}. */
  String hostKey() {
    return "127.0.0.1:" + socket.getLocalPort();
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

package io.hostpace.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server that misbehaves, on a bare socket, by path:
 * <ul>
 * <li>{@code /reset}: reads the request head, then resets the connection (SO_LINGER 0 and close);
 * <li>{@code /hang}: reads the request head and never answers; it logs the path again in
 *     {@link #abandoned()} when the client closes the connection;
 * <li>{@code /stall}: sends {@code 200} and a {@code Content-Length} of 1 MiB, then nothing;
 * <li>{@code /trickle}: sends {@code 200} and a {@code Content-Length} of 1 MiB, then a byte a
 *     second;
 * <li>{@code /endless}: sends {@code 200} chunked, then chunks of 64 KiB without end, as fast as
 *     the client reads;
 * <li>{@code /huge}: sends {@code 200} and a {@code Content-Length} of 1 GiB, its body as fast as
 *     the client reads;
 * <li>{@code /huge-headers}: sends {@code 200} with a header line of 1 MiB;
 * <li>{@code /bad-status}: sends {@code HTTP/1.1 two hundred} and closes;
 * <li>{@code /junk-retry-after}: sends {@code 429} with {@code Retry-After: soon, maybe};
 * <li>{@code /short}: sends {@code 200} with a {@code Content-Length} of 100 and SPARQL results
 *     JSON, closes the connection after its first 35 bytes;
 * <li>a path given to {@link #script}: the bytes it was given, then nothing until the client
 *     closes the connection;
 * <li>any other path: {@code 200 ok}, and closes the connection.
 * </ul>
 * The ones that never end (stall, trickle, endless, huge) go on until the client closes the
 * connection, which logs the path in {@link #abandoned()} as for {@code /hang}. It logs the path
 * of each request head it reads. Close it after the test; that closes every connection it holds.
 */
public final class RawServer implements AutoCloseable {

  private final SocketListener listener;
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private final List<String> abandoned = new CopyOnWriteArrayList<>();
  private final java.util.Map<String, byte[]> scripts = new java.util.concurrent.ConcurrentHashMap<>();

  private RawServer() throws IOException {
    listener = SocketListener.start("testkit-raw-server", this::serve);
  }

  /** A server on 127.0.0.1 and a free port. */
  public static RawServer start() throws IOException {
    return new RawServer();
  }

  /** The address of {@code path} on this server. */
  public URI uri(String path) {
    return listener.uri(path);
  }

  /** The engine's key for this server: {@code 127.0.0.1:port}. */
  public String hostKey() {
    return listener.hostKey();
  }

  /**
   * Answers {@code path} with {@code answer} as it is, status line, headers and whatever body,
   * in ISO-8859-1, then sends nothing more and waits for the client to close the connection, as
   * {@code /stall} does: an answer that breaks the protocol (a malformed chunk size, headers past
   * the client's limit) is the client's to end, and one that stops short is cut at its deadline.
   */
  public RawServer script(String path, String answer) {
    scripts.put(path, answer.getBytes(StandardCharsets.ISO_8859_1));
    return this;
  }

  /** The path of every request head read, in order. */
  public List<String> paths() {
    return List.copyOf(paths);
  }

  /**
   * The path of every request that never ends ({@code /hang}, {@code /stall}, {@code /trickle},
   * {@code /endless}, {@code /huge}, a {@link #script}) whose client closed the connection: a path that stalls notices
   * at once, one that writes (trickle, endless, huge) at its next write that fails.
   */
  public List<String> abandoned() {
    return List.copyOf(abandoned);
  }

  private void serve(Socket connection, int number) {
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
      byte[] scripted = scripts.get(path);
      if (scripted != null) {
        OutputStream out = connection.getOutputStream();
        out.write(scripted);
        out.flush();
        InputStream in = connection.getInputStream();
        while (in.read() >= 0) {
          // nothing more is sent; wait for the client to close
        }
        abandoned.add(path);
        return;
      }
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
        case "/stall" -> {
          send(connection, "HTTP/1.1 200 OK\r\nContent-Length: " + MIB + "\r\n\r\n");
          InputStream in = connection.getInputStream();
          while (in.read() >= 0) {
            // nothing more is sent; wait for the client to close
          }
          abandoned.add(path);
        }
        case "/trickle" -> {
          send(connection, "HTTP/1.1 200 OK\r\nContent-Length: " + MIB + "\r\n\r\n");
          OutputStream out = connection.getOutputStream();
          for (int i = 0; i < MIB; i++) {
            out.write('x');
            out.flush();
            Thread.sleep(1000);
          }
        }
        case "/endless" -> {
          send(connection, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
          OutputStream out = connection.getOutputStream();
          byte[] chunk = chunk(64 * 1024);
          while (true) {
            out.write(chunk);
          }
        }
        case "/huge" -> {
          long size = 1024L * MIB;
          send(connection, "HTTP/1.1 200 OK\r\nContent-Length: " + size + "\r\n\r\n");
          OutputStream out = connection.getOutputStream();
          byte[] block = new byte[64 * 1024];
          java.util.Arrays.fill(block, (byte) 'x');
          for (long sent = 0; sent < size; sent += block.length) {
            out.write(block);
          }
          connection.close();
        }
        case "/huge-headers" -> {
          send(connection, "HTTP/1.1 200 OK\r\nX-Huge: " + "x".repeat(MIB) + "\r\nContent-Length: 2\r\n"
              + "Connection: close\r\n\r\nok");
          connection.close();
        }
        case "/bad-status" -> {
          send(connection, "HTTP/1.1 two hundred\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
          connection.close();
        }
        case "/junk-retry-after" -> {
          send(connection, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: soon, maybe\r\nContent-Length: 4\r\n"
              + "Connection: close\r\n\r\nslow");
          connection.close();
        }
        case "/short" -> {
          send(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\n"
              + "Content-Length: 100\r\n\r\n{\"head\": {\"vars\": [] }, \"results\": ");
          connection.close();
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
      if ((NEVER_ENDING.contains(path) || scripts.containsKey(path)) && !listener.isClosed()) {
        abandoned.add(path);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closed while trickling
    }
  }

  private static final int MIB = 1024 * 1024;
  private static final java.util.Set<String> NEVER_ENDING = java.util.Set.of("/hang", "/stall", "/trickle", "/endless", "/huge");

  private static void send(Socket connection, String text) throws IOException {
    OutputStream out = connection.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** One chunk of {@code size} bytes in chunked encoding. */
  private static byte[] chunk(int size) {
    ByteArrayOutputStream chunk = new ByteArrayOutputStream(size + 16);
    byte[] head = (Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    chunk.write(head, 0, head.length);
    for (int i = 0; i < size; i++) {
      chunk.write('x');
    }
    chunk.write('\r');
    chunk.write('\n');
    return chunk.toByteArray();
  }

  /**
   * Reads up to the blank line that ends a request's head; "" if the connection ends first. A
   * socket's timeout, if set, bounds each read.
   */
  static String readHead(InputStream in) throws IOException {
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
    listener.close();
  }

  @Override
  public String toString() {
    return "RawServer{" + hostKey() + ", paths=" + paths + "}";
  }
}

package io.hostpace.testkit;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A keep-alive HTTP/1.1 server on a bare socket on 127.0.0.1 whose answer to each request is
 * scripted by the request's number, counted from 1 over all connections: an answer that keeps the
 * connection, the connection closed or reset after the request was read, or a refusal whose body
 * is long or stops short. It logs each request as {@code "<number> <connection> <method> <path>"},
 * the connections numbered from 1 in the order accepted, and how each long body ended. Close it
 * after the test; that ends every connection and thread it holds.
 */
public final class ScriptedServer implements AutoCloseable {

  /** What the server does with one request, once it has read it whole. */
  public sealed interface Act {}

  /** Sends {@code answer} (status line, headers, body) and keeps the connection for the next request. */
  public record Answer(String answer) implements Act {}

  /** Closes the connection without a byte of an answer. */
  public record Close() implements Act {}

  /** Resets the connection (SO_LINGER 0 and close) without a byte of an answer. */
  public record Reset() implements Act {}

  /**
   * Sends {@code head} and then {@code bytes} bytes of body as fast as the client reads, and logs
   * {@code "<number> body sent whole"} or {@code "<number> body cut by the client"}.
   */
  public record Body(String head, long bytes) implements Act {}

  /** Sends {@code answer} and then nothing more, until the client closes the connection. */
  public record Stall(String answer) implements Act {}

  public static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

  private final SocketListener listener;
  private final List<String> log = new CopyOnWriteArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final IntFunction<Act> script;

  private ScriptedServer(IntFunction<Act> script) throws IOException {
    this.script = script;
    this.listener = SocketListener.start("scripted-server", this::serve);
  }

  /** A server that answers request number {@code n} as {@code script.apply(n)} says. */
  public static ScriptedServer start(IntFunction<Act> script) throws IOException {
    return new ScriptedServer(script);
  }

  /** The address of {@code path} on this server. */
  public URI uri(String path) {
    return listener.uri(path);
  }

  /** Every request read and every long body's end, in order. */
  public List<String> log() {
    return List.copyOf(log);
  }

  /** The requests read, as {@code "<number> <connection> <method> <path>"}. */
  public List<String> requests() {
    return log.stream().filter(line -> !line.contains(" body ")).toList();
  }

  private void serve(Socket connection, int id) {
    try (connection) {
      InputStream in = new BufferedInputStream(connection.getInputStream());
      OutputStream out = connection.getOutputStream();
      while (true) {
        String head = RawServer.readHead(in);
        if (head.isEmpty()) {
          return; // the client closed it
        }
        in.readNBytes(contentLength(head));
        int n = requests.incrementAndGet();
        String[] line = head.split("\r\n", 2)[0].split(" ", 3);
        log.add(n + " " + id + " " + line[0] + " " + line[1]);
        Act act = script.apply(n);
        if (act instanceof Answer answer) {
          write(out, answer.answer());
        } else if (act instanceof Close) {
          return;
        } else if (act instanceof Reset) {
          connection.setSoLinger(true, 0);
          return;
        } else if (act instanceof Body body) {
          write(out, body.head());
          byte[] block = new byte[64 * 1024];
          try {
            for (long sent = 0; sent < body.bytes(); sent += block.length) {
              out.write(block, 0, (int) Math.min(block.length, body.bytes() - sent));
            }
            out.flush();
            log.add(n + " body sent whole");
          } catch (IOException e) {
            log.add(n + " body cut by the client");
            return;
          }
        } else if (act instanceof Stall stall) {
          write(out, stall.answer());
          while (in.read() >= 0) {
            // nothing more is sent; wait for the client to close
          }
          return;
        }
      }
    } catch (IOException e) {
      // the client went away, or the server closed
    }
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        return Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    return 0;
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }

  @Override
  public String toString() {
    return "ScriptedServer{" + listener.hostKey() + ", log=" + log + "}";
  }
}

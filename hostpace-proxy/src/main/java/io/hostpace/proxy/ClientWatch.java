package io.hostpace.proxy;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Watches a client's HTTP/1 connection while the proxy waits for the engine's answer, and runs
 * {@code gone} when the client closes it. Jetty reads no HTTP/1 connection while its handler runs
 * (it reads the next request once the answer is written), so a client that went would otherwise
 * be seen only when its answer is written: its request would wait its turn and be sent for nobody.
 * HTTP/2 and HTTP/3 read every connection all along, and tell a stream's end to the request's
 * failure listeners; they are not watched.
 *
 * <p>Invariant: from {@link #start} to {@link #stop}, this callback is the connection's one read
 * interest (the request's body was read whole before, so Jetty has none), and {@link #stop} takes
 * it back before the proxy writes its answer, so that the connection reads the next request as it
 * would have. When the connection can be read, one byte is read: the end of the stream (-1) is the
 * client gone (closed, or shut its sending half: the only sign TCP gives), a failure too. A byte
 * is the start of a next request sent before this answer (pipelining): it cannot be put back, so
 * the watch ends and this answer closes the connection, after which the client sends that request
 * again, as a pipelining client does when a connection closes. For example: a GET waits behind
 * another request to its host; its client closes the socket; the watch reads -1 and cancels the
 * call, which leaves its queue, and nothing is sent upstream for it.
 */
final class ClientWatch implements Callback {

  /** The client's connection; null where it is not watched (not HTTP/1, or no read interest to take back). */
  private final @Nullable AbstractEndPoint endPoint;
  private final Runnable gone;
  /** Whether the watch has ended: stopped, the client gone, or a byte read ahead. */
  @GuardedBy("this")
  private boolean ended;
  /** Whether this callback is the connection's read interest. */
  @GuardedBy("this")
  private boolean registered;
  /** Whether a byte of a next request was read: the connection closes after this answer. */
  @GuardedBy("this")
  private boolean readAhead;

  private ClientWatch(@Nullable AbstractEndPoint endPoint, Runnable gone) {
    this.endPoint = endPoint;
    this.gone = gone;
  }

  /**
   * Watches the connection of {@code request}, whose body was read whole, running {@code gone}
   * once when its client goes.
   */
  static ClientWatch start(Request request, Runnable gone) {
    if (request.getConnectionMetaData().getHttpVersion().getVersion() >= HttpVersion.HTTP_2.getVersion()) {
      return new ClientWatch(null, gone);
    }
    EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    if (!(endPoint instanceof AbstractEndPoint watched)) {
      return new ClientWatch(null, gone); // no read interest this class could take back
    }
    ClientWatch watch = new ClientWatch(watched, gone);
    watch.watch();
    return watch;
  }

  /**
   * Ends the watch before the answer is written, and hands the connection back to Jetty; where a
   * byte of a next request was read, {@code response} closes the connection.
   */
  void stop(Response response) {
    boolean close;
    synchronized (this) {
      ended = true;
      if (registered && endPoint != null) {
        // Fails this callback (which then does nothing) and leaves the connection without read interest.
        endPoint.getFillInterest().onFail(new CancellationException("the answer came"));
      }
      registered = false;
      close = readAhead;
    }
    if (close) {
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
  }

  /** The connection can be read: the client went, or sent the start of a next request. */
  @Override
  public void succeeded() {
    synchronized (this) {
      registered = false;
      if (ended || endPoint == null) {
        return; // the answer came first: the connection is Jetty's again
      }
      try {
        int read = endPoint.fill(BufferUtil.allocate(1));
        if (read == 0) {
          watch(); // woken with nothing to read
          return;
        }
        ended = true;
        if (read > 0) {
          readAhead = true;
          return;
        }
      } catch (IOException reset) {
        ended = true;
      }
    }
    gone.run();
  }

  /** The connection failed or closed; or {@link #stop} took the watch back. */
  @Override
  public void failed(Throwable failure) {
    synchronized (this) {
      registered = false;
      if (ended) {
        return;
      }
      ended = true;
    }
    gone.run();
  }

  /** Takes the connection's read interest, unless Jetty holds it: then the failure listeners alone watch. */
  private synchronized void watch() {
    if (!ended && endPoint != null) {
      registered = true; // before: a failure to register fails this callback at once
      if (!endPoint.tryFillInterested(this)) {
        registered = false;
      }
    }
  }
}

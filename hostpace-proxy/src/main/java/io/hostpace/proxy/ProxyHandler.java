package io.hostpace.proxy;

import io.hostpace.AttemptTimeoutException;
import io.hostpace.Hostpace;
import io.hostpace.jdk.ExchangeFailures;
import io.hostpace.jdk.PacedHttpClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.eclipse.jetty.http.DateGenerator;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.jspecify.annotations.Nullable;

/**
 * Answers each request the proxy takes: {@code /hostpace/hosts} and {@code /hostpace/metrics}
 * itself, a route's and a forwarded host's through the paced client, a tunnel with 501, anything
 * else with 404 (a path of the proxy's) or 403 (a host it does not forward). A forwarded request's body is read whole first (up to
 * {@code maxRequestBytes}), so that the engine may send it again after a refusal, and held once,
 * in arrays of its own that are sent as they are; the upstream's answer is streamed to the client
 * as it comes, never held whole.
 *
 * <p>Runs on the server's threads, which read a request's body and relay an answer's; while the
 * request waits its turn in the engine, and upstream until its answer's head comes, it holds none,
 * so that any number of waiting requests leave the server free to take others.
 */
final class ProxyHandler extends Handler.Abstract {

  private final Hostpace engine;
  private final HttpClient paced;
  private final List<Route> routes;
  private final Forwarding forwarding;
  private final @Nullable Duration timeout;
  private final long maxRequestBytes;
  /**
   * How much more of a body over {@link #maxRequestBytes} the proxy reads, and drops, after its 413,
   * so that a client still sending reads the answer: as much again as the default cap, whatever the
   * cap. It is read one small buffer at a time, never held, and from a client on the same machine
   * quickly; it covers what a client has in flight when the answer comes, and a body somewhat over
   * the cap whole, while a client that sends without end is not read for long.
   */
  static final long SWALLOW_BYTES = 16L * 1024 * 1024;
  /**
   * The most of a request's body one array holds: a body is kept as such arrays, never gathered into
   * one, so that it is held once while it is read and while it is sent, however long it is.
   */
  static final int CHUNK_BYTES = 64 * 1024;
  /** The first array of a body whose length is not declared: most such requests have none, or a short one. */
  static final int FIRST_CHUNK_BYTES = 8 * 1024;
  /** What {@code /hostpace/metrics} answers, in Prometheus's text format; null when the proxy has no metrics. */
  private final @Nullable Supplier<String> metrics;

  ProxyHandler(Hostpace engine, HttpClient paced, List<Route> routes, Forwarding forwarding, @Nullable Duration timeout,
      long maxRequestBytes, @Nullable Supplier<String> metrics) {
    this.engine = engine;
    this.paced = paced;
    this.routes = routes;
    this.forwarding = forwarding;
    this.timeout = timeout;
    this.maxRequestBytes = maxRequestBytes;
    this.metrics = metrics;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    // The connector sends no Date of its own: this one is the proxy's answers', and a relayed
    // answer's where the upstream sent none (RFC 9110, 6.6.1).
    response.getHeaders().put(HttpHeader.DATE, DateGenerator.formatDate(System.currentTimeMillis()));
    if (request.getMethod().equals("CONNECT")) {
      refuse(response, callback, 501, "this proxy opens no tunnels: a tunnel is one TLS"
          + " connection, whose requests the proxy cannot see, and so cannot pace, retry or count without ending TLS"
          + " here. " + routeInstead(request));
      return true;
    }
    HttpURI uri = request.getHttpURI();
    // A proxy that forwards no host takes every request as its own, whatever name and port its
    // Host gives (a port mapped by Docker or ssh -L, a reverse proxy's Host); one that forwards
    // tells a request to forward by the host and port it names.
    if (forwarding.any() && !forwarding.own(uri.getHost(), uri.getPort(), Request.getLocalPort(request))) {
      if (!"http".equalsIgnoreCase(uri.getScheme())) {
        refuse(response, callback, 403, "this proxy forwards only http:// URLs: " + uri.getScheme() + ":// ones cannot"
            + " be forwarded, as clients send them through a tunnel (CONNECT), whose requests the proxy cannot see. "
            + routeInstead(request));
        return true;
      }
      String key = Forwarding.keyOf(uri.getHost(), uri.getPort());
      if (key == null || !forwarding.forwards(key)) {
        refuse(response, callback, 403, "this proxy forwards only the hosts it was given"
            + (forwarding.any() ? " (" + String.join(", ", forwarding.keys()) + ")" : " (none)") + ", and its routes "
            + routes.stream().map(Route::prefix).toList() + ": not " + key);
        return true;
      }
      URI upstream;
      try {
        upstream = Forwarding.upstream(key, uri.getPath(), uri.getQuery());
      } catch (IllegalArgumentException e) {
        refuse(response, callback, 400, "the request cannot be forwarded: " + e.getMessage());
        return true;
      }
      forward(request, response, callback, upstream);
      return true;
    }
    String path = uri.getPath();
    if (path.equals(Route.OWN + "/hosts")) {
      response.getHeaders().put("Content-Type", "application/json");
      Content.Sink.write(response, true, HostsJson.of(engine.snapshot()), callback);
      return true;
    }
    if (path.equals(Route.OWN + "/metrics")) {
      Supplier<String> scrape = metrics;
      if (scrape == null) {
        refuse(response, callback, 404, "this proxy has no metrics");
      } else {
        response.getHeaders().put("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        Content.Sink.write(response, true, scrape.get(), callback);
      }
      return true;
    }
    URI upstream = null;
    for (Route route : routes) { // longest prefix first
      try {
        upstream = route.upstream(path, uri.getQuery());
      } catch (IllegalArgumentException e) { // its message names what in the request, never the route's target
        refuse(response, callback, 400, "the request to " + route.prefix() + " cannot be sent: " + e.getMessage());
        return true;
      }
      if (upstream != null) {
        break;
      }
    }
    if (upstream == null) {
      refuse(response, callback, 404, "no route for " + path + ": the proxy forwards "
          + routes.stream().map(Route::prefix).toList() + " and answers " + Route.OWN + "/hosts and " + Route.OWN
          + "/metrics");
      return true;
    }
    forward(request, response, callback, upstream);
    return true;
  }

  /** What to do for an https:// host, which cannot be forwarded: route it, and send to the address the request came to. */
  private static String routeInstead(Request request) {
    String address = Request.getLocalAddr(request);
    return "Route the host instead (--route /PREFIX=https://HOST) and send to http://"
        + (address.contains(":") ? "[" + address + "]" : address) + ":" + Request.getLocalPort(request) + "/PREFIX/...";
  }

  private void forward(Request request, Response response, Callback callback, URI upstream) {
    InputStream in = Content.Source.asInputStream(request);
    @Nullable List<byte[]> body;
    try {
      body = request.getLength() > maxRequestBytes ? null : readBody(in, request.getLength(), maxRequestBytes);
    } catch (IOException e) {
      refuse(response, callback, 400, "the request's body could not be read: " + e.getMessage());
      return;
    }
    if (body == null) {
      refuseOverCap(request, in, response, callback);
      return;
    }
    HttpRequest.Builder outgoing = HttpRequest.newBuilder(upstream).method(request.getMethod(), publisher(body));
    if (timeout != null) {
      outgoing.timeout(timeout);
    }
    if ("http".equalsIgnoreCase(upstream.getScheme())) {
      // The JDK's client would offer a cleartext upstream an upgrade to HTTP/2 with every request
      // (Upgrade, HTTP2-Settings): headers the client did not send, which few servers take up.
      outgoing.version(HttpClient.Version.HTTP_1_1);
    }
    HttpFields headers = request.getHeaders();
    String connection = String.join(",", headers.getValuesList("Connection"));
    for (HttpField field : headers) {
      if (Headers.toUpstream(field.getName(), connection)) {
        try {
          outgoing.header(field.getName(), field.getValue());
        } catch (IllegalArgumentException refused) {
          // a header the JDK's client will not send (it sets it itself): left out
        }
      }
    }
    // The client going ends its call (SPEC T5): out of its queue, or its exchange ended. Jetty tells
    // the failure listeners when it sees the connection fail; on HTTP/1 it reads nothing while the
    // answer is awaited, so the watch reads it. Both watch from before the send, so that a client
    // gone by then has nothing sent.
    CompletableFuture<Void> gone = new CompletableFuture<>();
    request.addFailureListener(failure -> gone.complete(null));
    ClientWatch watch = ClientWatch.start(request, () -> gone.complete(null));
    if (gone.isDone()) {
      watch.stop(response);
      callback.failed(new CancellationException("the client went before its request was sent"));
      return;
    }
    CompletableFuture<HttpResponse<InputStream>> answer =
        paced.sendAsync(outgoing.build(), HttpResponse.BodyHandlers.ofInputStream());
    gone.thenRun(() -> answer.cancel(true));
    // A request may wait its turn far longer than the connection's idle timeout: that wait is the
    // engine's to bound (its retries, their delays, the attempts' timeout), not the connection's.
    request.addIdleTimeoutListener(timeout -> answer.isDone());
    // No thread waits while the request waits its turn, however many wait: the answer is relayed,
    // when it comes, on a thread of the server's (virtual where the JDK has them).
    Executor threads = relayThreads(request);
    answer.whenComplete((answered, failure) -> {
      try {
        threads.execute(() -> answer(answered, failure, upstream, watch, response, callback));
      } catch (RejectedExecutionException stopping) {
        callback.failed(stopping); // the server stops
      }
    });
  }

  /** The threads that relay answers: the server's virtual threads where it has them, else its pool. */
  private static Executor relayThreads(Request request) {
    ThreadPool pool = request.getComponents().getThreadPool();
    Executor virtual = VirtualThreads.getVirtualThreadsExecutor(pool);
    return virtual != null ? virtual : pool;
  }

  /** Answers the client with the upstream's answer, or says why there is none. */
  private void answer(@Nullable HttpResponse<InputStream> answered, @Nullable Throwable failure, URI upstream,
      ClientWatch watch, Response response, Callback callback) {
    watch.stop(response);
    if (failure == null && answered != null) {
      relay(answered, response, callback);
      return;
    }
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
        : Objects.requireNonNullElseGet(failure, () -> new IllegalStateException("the engine answered nothing"));
    if (cause instanceof CancellationException) {
      callback.failed(cause); // the client went: there is nobody to answer
      return;
    }
    // The client's timeout, or the engine's budget for the attempt (its timeout policy): a gateway's timeout either way.
    int status = cause instanceof HttpTimeoutException || cause instanceof AttemptTimeoutException ? 504 : 502;
    // In words, as the command line says an exchange's failure, never an exception's class.
    String why = ExchangeFailures.describe(cause,
        timeout != null ? "its timeout of " + ExchangeFailures.seconds(timeout) + " s" : "the client's timeout");
    // The host as the route or the request wrote it, with its port: several upstreams may share a host.
    String host = upstream.getHost() + (upstream.getPort() >= 0 ? ":" + upstream.getPort() : "");
    refuse(response, callback, status, "the upstream " + host + " did not answer: "
        + (why != null ? why : ExchangeFailures.message(cause)));
  }

  /**
   * Answers the proxy's own refusal: {@code status}, and {@code message} as plain text, whatever the
   * client accepts and whatever the method (a tunnel's refusal too says why).
   */
  private static void refuse(Response response, Callback callback, int status, String message) {
    response.setStatus(status);
    response.getHeaders().put("Content-Type", "text/plain; charset=utf-8");
    Content.Sink.write(response, true, "hostpace proxy: " + message + "\n", callback);
  }

  /**
   * The request's body, whole, in arrays of at most {@link #CHUNK_BYTES} (none for no body); null
   * when it is longer than {@code maxBytes}, the bytes read past the cap being dropped here, not
   * held while the rest is swallowed. A body of a {@code declared} length (at most the cap; -1 for
   * none declared) is read to that length; one of unknown length to its end, or to the cap and a
   * byte, its last array cut to what came. The arrays are never copied into one, which would hold
   * the body twice at once.
   */
  static @Nullable List<byte[]> readBody(InputStream in, long declared, long maxBytes) throws IOException {
    long limit = declared >= 0 ? declared : maxBytes + 1;
    List<byte[]> chunks = new ArrayList<>();
    long read = 0;
    while (read < limit) {
      int size = (int) Math.min(read == 0 && declared < 0 ? FIRST_CHUNK_BYTES : CHUNK_BYTES, limit - read);
      byte[] chunk = new byte[size];
      int n = in.readNBytes(chunk, 0, size);
      if (n > 0) {
        chunks.add(n == size ? chunk : Arrays.copyOf(chunk, n));
        read += n;
      }
      if (n < size) {
        break; // the body ended
      }
    }
    return read > maxBytes ? null : chunks;
  }

  /**
   * What sends {@code body} upstream: no body, or its arrays as they are, with its length declared
   * (a {@code Content-Length}, not chunks). The JDK's {@code ofByteArrays} iterates the list anew for
   * each subscription, so the body is sent whole again on each attempt: it is marked so, as the paced
   * client would send a publisher it cannot tell apart only once.
   */
  static HttpRequest.BodyPublisher publisher(List<byte[]> body) {
    long length = 0;
    for (byte[] chunk : body) {
      length += chunk.length;
    }
    if (length == 0) {
      return HttpRequest.BodyPublishers.noBody();
    }
    return PacedHttpClient.replayable(
        HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofByteArrays(body), length));
  }

  /**
   * Answers 413 to a request whose body is over {@link #maxRequestBytes}, and closes its connection.
   * The rest of the body ({@code body}: all of it when its length was declared over the cap, what
   * follows the cap and a byte when it was found over it as it was read) is read after the answer,
   * and dropped, up to {@link #SWALLOW_BYTES}: closing a connection with request bytes unread makes
   * the system reset it, and a client still sending would lose the answer that waits unread in its
   * socket. Past that bound the connection closes anyway, and such a client may see a reset. A
   * client that declared its body over the cap and waits for {@code 100 Continue} before sending
   * it is not asked for it (reading would): it has sent nothing to read.
   */
  private void refuseOverCap(Request request, InputStream body, Response response, Callback callback) {
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
    String message = "the request's body is over the proxy's " + maxRequestBytes + " bytes";
    if (request.getLength() > maxRequestBytes
        && request.getHeaders().contains(HttpHeader.EXPECT, HttpHeaderValue.CONTINUE.asString())) {
      refuse(response, callback, 413, message);
      return;
    }
    try (Blocker.Callback answered = Blocker.callback()) {
      refuse(response, answered, 413, message);
      answered.block();
    } catch (IOException e) {
      callback.failed(e); // the client went: nobody reads the answer, nor sends the rest
      return;
    }
    swallow(body);
    callback.succeeded();
  }

  /** Reads {@code body} to its end, or {@link #SWALLOW_BYTES} of it, and drops what it reads. */
  private static void swallow(InputStream body) {
    byte[] dropped = new byte[16 * 1024];
    try (body) {
      for (long read = 0; read < SWALLOW_BYTES; ) {
        int n = body.read(dropped, 0, (int) Math.min(dropped.length, SWALLOW_BYTES - read));
        if (n < 0) {
          return;
        }
        read += n;
      }
    } catch (IOException e) {
      // the client stopped sending, or went: there is no more to read
    }
  }

  /** Passes the upstream's answer on: its status, its end-to-end headers, and its body as it comes. */
  private static void relay(HttpResponse<InputStream> answered, Response response, Callback callback) {
    response.setStatus(answered.statusCode());
    Map<String, List<String>> upstreamHeaders = answered.headers().map();
    String connection = String.join(",", answered.headers().allValues("Connection"));
    HttpFields.Mutable headers = response.getHeaders();
    if (answered.headers().firstValue("Date").isPresent()) {
      headers.remove(HttpHeader.DATE); // the upstream's, not a second
    }
    for (Map.Entry<String, List<String>> header : upstreamHeaders.entrySet()) {
      if (Headers.toClient(header.getKey(), connection)) {
        for (String value : header.getValue()) {
          headers.add(header.getKey(), value);
        }
      }
    }
    // The client's stream is closed only once the body came whole: closing it ends the answer
    // (a chunked one with its last chunk), so that after a failure the client would take a cut
    // body for a whole one. Failing the callback instead closes the connection mid-body.
    try (InputStream in = answered.body()) {
      OutputStream out = Content.Sink.asOutputStream(response);
      in.transferTo(out);
      out.close();
    } catch (IOException e) {
      // the client went, or the upstream's body failed or stalled past the timeout (SPEC T7): the answer is cut
      callback.failed(e);
      return;
    }
    callback.succeeded();
  }
}

package io.hostpace.bench;

import java.net.InetAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * The least a reverse proxy on the proxy's server library can do, for {@link ProxyOverhead} to
 * compare with: a Jetty server whose one handler, run on the selector's thread, sends each request's
 * path under {@code /up} to the upstream with Jetty's own asynchronous client and writes back its
 * status and body. No engine, no headers passed on, no streaming, no limits: what is left of a
 * request's cost is parsing it as a server, sending it as a client and the hand-overs between.
 */
final class BareForwarder implements ProxyOverhead.Proxied {

  private final HttpClient client = new HttpClient();
  private final Server server = new Server();
  private final ServerConnector connector = new ServerConnector(server);

  BareForwarder(URI upstream) throws Exception {
    client.setMaxConnectionsPerDestination(ProxyOverhead.THREADS * 2);
    client.start();
    connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
    connector.setPort(0);
    server.addConnector(connector);
    String base = upstream.toString();
    server.setHandler(new Handler.Abstract.NonBlocking() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request).substring("/up".length());
        client.newRequest(base + path).send(new BufferingResponseListener() {
          @Override
          public void onComplete(Result result) {
            if (result.isFailed()) {
              Response.writeError(request, response, callback, 502);
              return;
            }
            byte[] body = getContent();
            response.setStatus(result.getResponse().getStatus());
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
            response.write(true, ByteBuffer.wrap(body), callback);
          }
        });
        return true;
      }
    });
    server.start();
  }

  @Override
  public URI uri() {
    return URI.create("http://" + connector.getHost() + ":" + connector.getLocalPort());
  }

  @Override
  public void close() throws Exception {
    server.stop();
    client.stop();
  }
}

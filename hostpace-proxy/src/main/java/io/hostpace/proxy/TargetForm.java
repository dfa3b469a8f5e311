package io.hostpace.proxy;

import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Jetty's HTTP/1 connections, each noting the form of its request's target: a client that uses
 * the proxy as its {@code http_proxy} sends the absolute form ({@code GET http://example.org/x}),
 * one that sends to the proxy's own address the origin form ({@code GET /x}, its {@code Host}
 * whatever name and port the client reached it by: a port mapped by Docker or {@code ssh -L}, a
 * name given by a reverse proxy in front). Jetty fills a request's URI from its {@code Host} in
 * the origin form, so the form cannot be told from the request's URI.
 *
 * <p>An HTTP/1 connection parses its next request only once the last one's answer was written, so
 * the form noted when a request's line is read is that request's while its handler runs.
 */
final class TargetForm extends HttpConnectionFactory {

  TargetForm(HttpConfiguration config) {
    super(config);
  }

  /** Whether {@code request}'s target was in absolute form; false for one that did not come on such a connection. */
  static boolean absolute(Request request) {
    return request.getConnectionMetaData().getConnection() instanceof Noted noted && noted.absolute;
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    return configure(new Noted(getHttpConfiguration(), connector, endPoint), connector, endPoint);
  }

  /** An HTTP/1 connection that notes its current request's form. */
  private static final class Noted extends HttpConnection {
    /** Whether the request being handled named its target in absolute form; written and read on the connection's turn. */
    private volatile boolean absolute;

    Noted(HttpConfiguration config, Connector connector, EndPoint endPoint) {
      super(config, connector, endPoint);
    }

    @Override
    protected HttpStreamOverHTTP1 newHttpStream(String method, String uri, HttpVersion version) {
      absolute = !uri.startsWith("/") && !uri.equals("*") && !method.equals("CONNECT");
      return super.newHttpStream(method, uri, version);
    }
  }
}

package io.hostpace.fuseki;

import java.net.URI;
import org.apache.jena.fuseki.main.FusekiServer;
import org.apache.jena.query.Dataset;

/**
 * A SPARQL endpoint on 127.0.0.1, on a port of its own, serving {@code dataset} with embedded
 * Fuseki behind a {@link Gate}. Close it to stop the server.
 *
 * <pre>{@code
 * try (GatedEndpoint qlever = GatedEndpoint.start(dataset, Gate.oneEvery(Duration.ofSeconds(1)))) {
 *   String query = qlever.sparql() ...   // http://127.0.0.1:PORT/ds/sparql
 * }
 * }</pre>
 */
public final class GatedEndpoint implements AutoCloseable {

  private final FusekiServer server;
  private final GateFilter filter;

  private GatedEndpoint(FusekiServer server, GateFilter filter) {
    this.server = server;
    this.filter = filter;
  }

  /** Starts an endpoint for {@code dataset} at {@code /ds} behind {@code gate}. */
  public static GatedEndpoint start(Dataset dataset, Gate gate) {
    GateFilter filter = new GateFilter(gate);
    FusekiServer server = FusekiServer.create()
        .loopback(true)
        .port(0)
        .verbose(false)
        .add("/ds", dataset, true)
        .addFilter("/*", filter)
        .build();
    server.start();
    return new GatedEndpoint(server, filter);
  }

  /** The query endpoint: {@code http://127.0.0.1:PORT/ds/sparql}. */
  public URI sparql() {
    return URI.create("http://127.0.0.1:" + server.getHttpPort() + "/ds/sparql");
  }

  /** The update endpoint: {@code http://127.0.0.1:PORT/ds/update}. */
  public URI update() {
    return URI.create("http://127.0.0.1:" + server.getHttpPort() + "/ds/update");
  }

  /** The endpoint's host as Hostpace keys it: {@code 127.0.0.1:PORT}. */
  public String hostKey() {
    return "127.0.0.1:" + server.getHttpPort();
  }

  /** Requests that reached the gate. */
  public long requests() {
    return filter.requests.get();
  }

  /** Requests the gate refused. */
  public long refusals() {
    return filter.refusals.get();
  }

  /** The most requests that were served at once. */
  public int maxInFlight() {
    return filter.maxInFlight.get();
  }

  @Override
  public void close() {
    server.stop();
  }
}

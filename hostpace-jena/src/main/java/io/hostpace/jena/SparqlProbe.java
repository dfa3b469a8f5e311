package io.hostpace.jena;

import io.hostpace.jdk.HttpProbe;
import io.hostpace.spi.Probe;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import org.apache.jena.http.HttpEnv;

/**
 * The probe of a SPARQL endpoint that the engine's timeout policy holds down or degraded (SPEC
 * D6): {@code ASK {}} against the endpoint, sent as a GET with {@code Accept:
 * application/sparql-results+json}; a 2xx answer counts healthy. The endpoint is the URI of its
 * latest request without its query string: {@code https://query.wikidata.org/sparql} for a GET
 * of {@code https://query.wikidata.org/sparql?query=...}. Given to the engine with its timeout
 * policy, before Jena is installed:
 *
 * <pre>{@code
 * Hostpace engine = Hostpace.builder()
 *     .timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().probe(Duration.ofSeconds(2)).build()))
 *     .probe(SparqlProbe.ask())
 *     .build();
 * try (HostpaceJena.Installation installation = HostpaceJena.install(engine)) { ... }
 * }</pre>
 *
 * <p>An endpoint that only takes updates answers a query with an error: with such endpoints in
 * use, name a probe of their own ({@link HttpProbe#of}).
 */
public final class SparqlProbe {

  /** The probe's query, {@code ASK {}}, as it goes in a URI. */
  static final String ASK = "ASK%20%7B%7D";

  private SparqlProbe() {}

  /**
   * {@code ASK {}}, sent through Jena's default client ({@code HttpEnv.getDftHttpClient()}), or,
   * once Hostpace is installed, through the client that one sends through.
   */
  public static Probe ask() {
    HttpClient client = HttpEnv.getDftHttpClient();
    return ask(client instanceof InstalledHttpClient installed ? installed.paced().delegate() : client);
  }

  /** {@code ASK {}}, sent through {@code client}. */
  public static Probe ask(HttpClient client) {
    return HttpProbe.of(client, seen -> HttpRequest.newBuilder(ask(seen))
        .header("Accept", "application/sparql-results+json")
        .GET().build());
  }

  /** The URI of {@code ASK {}} at the endpoint {@code seen} was sent to: its query string replaced. */
  static URI ask(URI seen) {
    if (!seen.isAbsolute() || seen.getRawAuthority() == null) {
      throw new IllegalArgumentException("no SPARQL endpoint in " + seen + ": expected an absolute http(s) URI");
    }
    String path = seen.getRawPath() == null ? "" : seen.getRawPath();
    return URI.create(seen.getScheme() + "://" + seen.getRawAuthority() + path + "?query=" + ASK);
  }
}

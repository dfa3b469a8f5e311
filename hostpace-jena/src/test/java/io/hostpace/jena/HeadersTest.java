package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.AttemptListener;
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.jena.fuseki.main.FusekiServer;
import org.apache.jena.http.RegistryHttpClient;
import org.apache.jena.http.sys.HttpRequestModifier;
import org.apache.jena.http.sys.RegistryRequestModifier;
import org.apache.jena.query.ARQ;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.sparql.exec.http.QueryExecHTTP;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.apache.jena.sparql.util.Context;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the server sees of a request's headers: an endpoint that records them, and refuses nothing. */
class HeadersTest extends LiveJenaTest {

  private static final List<String> RECORDED = List.of("User-Agent", "Hostpace-Call-Context", "X-Own", "X-Registered");

  private final List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
  private URI sparql = URI.create("http://127.0.0.1/");

  @BeforeEach
  void startRecordingEndpoint() {
    Filter recording = (request, response, chain) -> {
      HttpServletRequest http = (HttpServletRequest) request;
      Map<String, String> headers = new HashMap<>();
      for (String name : RECORDED) {
        String value = http.getHeader(name);
        if (value != null) {
          headers.put(name, value);
        }
      }
      seen.add(headers);
      chain.doFilter(request, response);
    };
    FusekiServer server = FusekiServer.create().loopback(true).port(0).verbose(false)
        .add("/ds", people(1)).addFilter("/*", recording).build().start();
    closeAfter(server::stop);
    sparql = URI.create("http://127.0.0.1:" + server.getHttpPort() + "/ds/sparql");
  }

  @Test
  void U1_directQueriesCarryHostpacesUserAgentUnlessTheCallerSetsOne() {
    direct(); // plain Jena names none: the JDK's own goes
    install(Hostpace.builder());
    direct();
    try (QueryExecHTTP exec = QueryExecHTTP.service(sparql.toString()).query(nameOf(0))
        .httpHeader("User-Agent", "my-pipeline/1.0 (ops@example.org)").build()) {
      exec.select().materialize();
    }
    try (QueryExecution local = QueryExecution.create()
        .query("SELECT * { SERVICE <" + sparql + "> { ?s ?p ?o } }").dataset(DatasetFactory.create()).build()) {
      local.execSelect().forEachRemaining(row -> {});
    }

    assertThat(seen).extracting(headers -> headers.get("User-Agent")).satisfiesExactly(
        plain -> assertThat(plain).startsWith("Java-http-client/"),
        paced -> assertThat(paced).isEqualTo(Hostpace.DEFAULT_USER_AGENT),
        own -> assertThat(own).isEqualTo("my-pipeline/1.0 (ops@example.org)"),
        service -> assertThat(service).startsWith("ApacheJena"));
  }

  @Test
  void I2_aQueryContextKeepsItsRequestModifiersAndItsMarkNeverReachesTheServer() {
    HttpRequestModifier registered = (params, headers) -> headers.put("X-Registered", "yes");
    RegistryRequestModifier.get().add(sparql.toString(), registered);
    closeAfter(() -> RegistryRequestModifier.get().remove(sparql.toString()));
    Heard heard = new Heard();
    CallContext context = CallContext.builder().attemptListener(heard).build();

    // not installed: nothing is marked
    queryWith(HostpaceJena.contextOf(context));
    install(Hostpace.builder());
    // a registry of request modifiers: it still modifies
    queryWith(HostpaceJena.contextOf(context));
    // a context's own request modifier, which makes Jena skip the registries: it still modifies
    Context own = ARQ.getContext().copy();
    own.set(ARQ.httpRequestModifer, (HttpRequestModifier) (params, headers) -> headers.put("X-Own", "yes"));
    queryWith(HostpaceJena.set(own, context));
    // a client registered since the installation, which Jena chooses for a direct query as it is:
    // not paced, and so not marked
    String prefix = "http://127.0.0.1:" + sparql.getPort() + "/";
    RegistryHttpClient.get().addPrefix(prefix, HttpClient.newHttpClient());
    closeAfter(() -> RegistryHttpClient.get().remove(prefix));
    queryWith(HostpaceJena.contextOf(context));

    String jdk = seen.get(0).get("User-Agent");
    assertThat(seen).containsExactly(
        Map.of("User-Agent", jdk, "X-Registered", "yes"),
        Map.of("User-Agent", Hostpace.DEFAULT_USER_AGENT, "X-Registered", "yes"),
        Map.of("User-Agent", Hostpace.DEFAULT_USER_AGENT, "X-Own", "yes"),
        Map.of("User-Agent", jdk, "X-Registered", "yes"));
    assertThat(heard.sent).as("attempts the context's listener heard").hasValue(2);
    assertThat(HostpaceJena.callContext(own)).isSameAs(context);
  }

  @Test
  void I2_aQueryWithAContextAndAnUnpacedClientOfItsOwnSendsNoMarkAndLeavesNoneBehind() {
    install(Hostpace.builder());
    Heard heard = new Heard();
    CallContext context = CallContext.builder().attemptListener(heard).build();

    // Jena uses a client given to the builder as it is: not paced, and so nothing of Hostpace's may reach the server.
    try (QueryExecution execution = QueryExecutionHTTP.service(sparql.toString()).query(nameOf(0))
        .httpClient(HttpClient.newHttpClient()).context(HostpaceJena.contextOf(context)).build()) {
      execution.execSelect().forEachRemaining(row -> {});
    }
    // The next query on this thread, without a context, goes with the default one, not the one before.
    direct();

    assertThat(seen).hasSize(2);
    assertThat(seen).allSatisfy(headers -> assertThat(headers).doesNotContainKey("Hostpace-Call-Context"));
    assertThat(heard.sent).as("attempts the context's listener heard").hasValue(0);
  }

  private void direct() {
    try (QueryExecHTTP exec = QueryExecHTTP.service(sparql.toString()).query(nameOf(0)).build()) {
      exec.select().materialize();
    }
  }

  private void queryWith(Context context) {
    try (QueryExecution execution = QueryExecutionHTTP.service(sparql.toString()).query(nameOf(0))
        .context(context).build()) {
      execution.execSelect().forEachRemaining(row -> {});
    }
  }

  private static final class Heard implements AttemptListener {
    final AtomicInteger sent = new AtomicInteger();

    @Override
    public void sent(URI uri, int attempt) {
      sent.incrementAndGet();
    }

    @Override
    public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {}
  }
}

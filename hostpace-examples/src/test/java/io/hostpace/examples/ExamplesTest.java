package io.hostpace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.HostpaceEvent;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Each example against a server on 127.0.0.1 that refuses the first request: the example returns
 * the answer that came after, and the engine started both attempts: the example really sends
 * through the engine, which retried the refusal (not the client by itself, as HttpClient 5 would).
 */
class ExamplesTest {

  private static final String TEXT = "text/plain; charset=utf-8";

  private final List<HostpaceEvent> events = new CopyOnWriteArrayList<>();
  private final Hostpace engine = Hostpace.builder().addListener(events::add).build();

  /** The attempts the engine started, in order: 1 and 2 when it retried the one refusal. */
  private List<Integer> startedAttempts() {
    return events.stream().filter(e -> e instanceof HostpaceEvent.Started)
        .map(e -> ((HostpaceEvent.Started) e).attempt()).toList();
  }

  @Test
  void I1_theJdkExampleRetriesARefusalThroughTheEngine() throws Exception {
    try (RefusingServer server = new RefusingServer(TEXT, "answer")) {
      assertThat(JdkExample.fetch(engine, URI.create(server.url("/jdk")))).isEqualTo("answer");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(startedAttempts()).containsExactly(1, 2);
    }
  }

  @Test
  void I2_theJenaExampleRetriesARefusedQueryThroughTheEngine() throws Exception {
    String results = "{\"head\":{\"vars\":[\"label\"]},\"results\":{\"bindings\":["
        + "{\"label\":{\"type\":\"literal\",\"value\":\"Douglas Adams\"}}]}}";
    try (RefusingServer server = new RefusingServer("application/sparql-results+json", results)) {
      assertThat(JenaExample.labels(engine, server.url("/sparql"))).containsExactly("Douglas Adams");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(startedAttempts()).containsExactly(1, 2);
    }
  }

  @Test
  void I3_theOkHttpExampleRetriesARefusalThroughTheEngine() throws Exception {
    try (RefusingServer server = new RefusingServer(TEXT, "answer")) {
      assertThat(OkHttpExample.fetch(engine, server.url("/okhttp"))).isEqualTo("answer");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(startedAttempts()).containsExactly(1, 2);
    }
  }

  @Test
  void I3_theHttpClient5ExampleRetriesARefusalThroughTheEngine() throws Exception {
    try (RefusingServer server = new RefusingServer(TEXT, "answer")) {
      assertThat(HttpClient5Example.fetch(engine, server.url("/hc5"))).isEqualTo("answer");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(startedAttempts()).containsExactly(1, 2);
    }
  }

  @Test
  void I3_theRestClientExampleRetriesARefusalThroughTheEngine() throws Exception {
    try (RefusingServer server = new RefusingServer(TEXT, "answer")) {
      assertThat(SpringExample.fetchWithRestClient(engine, server.url("/rest"))).isEqualTo("answer");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(startedAttempts()).containsExactly(1, 2);
    }
  }

  @Test
  void I3_theWebClientExampleRetriesARefusalThroughTheEngine() throws Exception {
    try (RefusingServer server = new RefusingServer(TEXT, "answer")) {
      assertThat(SpringExample.fetchWithWebClient(engine, server.url("/web"))).isEqualTo("answer");
      assertThat(server.requests()).isEqualTo(2);
      assertThat(startedAttempts()).containsExactly(1, 2);
    }
  }
}

package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import io.hostpace.spi.Exchange;
import io.hostpace.spi.Probe;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.jena.query.DatasetFactory;
import org.junit.jupiter.api.Test;

/** SPEC D6 for SPARQL: the probe hostpace-jena names, {@code ASK {}} at the endpoint, against Fuseki on 127.0.0.1. */
class SparqlProbeTest {

  @SuppressWarnings("unchecked")
  static int send(Exchange<?> exchange) {
    Exchange<HttpResponse<Void>> sent = (Exchange<HttpResponse<Void>>) exchange;
    return sent.status(sent.send().join());
  }

  @Test
  void D6_theProbeAsksAskOfTheEndpointTheLatestRequestWentTo() throws Exception {
    assertThat(SparqlProbe.ask(URI.create("https://query.wikidata.org/sparql?query=SELECT%20*%20%7B%7D#x")))
        .hasToString("https://query.wikidata.org/sparql?query=ASK%20%7B%7D");
    assertThat(SparqlProbe.ask(URI.create("http://127.0.0.1:3030/ds/sparql")))
        .hasToString("http://127.0.0.1:3030/ds/sparql?query=ASK%20%7B%7D");
  }

  @Test
  void D6_aSparqlEndpointAnswersTheProbeAndTheAnswerCountsHealthy() throws Exception {
    try (GatedEndpoint endpoint = GatedEndpoint.start(DatasetFactory.createTxnMem(), Gate.open())) {
      Probe probe = SparqlProbe.ask(HttpClient.newHttpClient());
      URI seen = URI.create(endpoint.sparql() + "?query=SELECT%20*%20%7B%3Fs%20%3Fp%20%3Fo%7D");

      int status = send(probe.exchange(seen, "test-agent/1"));

      assertThat(status).isEqualTo(200);
      assertThat(probe.healthy(status)).isTrue();
      assertThat(probe.healthy(400)).isFalse();
      assertThat(endpoint.requests()).isEqualTo(1);
    }
  }

  @Test
  void D6_onceJenaIsInstalledTheDefaultProbeSendsThroughTheClientUnderneathNotThroughTheEngineAgain() throws Exception {
    List<Object> heard = new CopyOnWriteArrayList<>();
    Hostpace engine = Hostpace.builder().addListener(heard::add).build();
    try (GatedEndpoint endpoint = GatedEndpoint.start(DatasetFactory.createTxnMem(), Gate.open());
        HostpaceJena.Installation installation = HostpaceJena.install(engine)) {
      Probe probe = SparqlProbe.ask();

      int status = send(probe.exchange(endpoint.sparql(), "test-agent/1"));

      assertThat(status).isEqualTo(200);
      assertThat(heard).as("the engine queues its probes itself: not twice").isEmpty();
    }
  }
}

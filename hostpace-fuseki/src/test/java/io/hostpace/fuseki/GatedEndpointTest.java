package io.hostpace.fuseki;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.ModelFactory;
import org.junit.jupiter.api.Test;

class GatedEndpointTest {

  static Dataset dataset() {
    Model model = ModelFactory.createDefaultModel();
    model.createResource("http://example.org/a").addProperty(model.createProperty("http://example.org/p"), "one");
    return DatasetFactory.create(model);
  }

  static List<HttpResponse<String>> askAtOnce(URI endpoint, int count) {
    HttpClient client = HttpClient.newHttpClient();
    URI uri = URI.create(endpoint + "?query=" + URLEncoder.encode("SELECT * { ?s ?p ?o }", StandardCharsets.UTF_8));
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      calls.add(client.sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()));
    }
    return calls.stream().map(CompletableFuture::join).toList();
  }

  @Test
  void aSpacingGateServesOneAndRefusesTheRestWith429AndNoRetryAfter() {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.oneEvery(Duration.ofSeconds(30)))) {
      List<HttpResponse<String>> answers = askAtOnce(endpoint.sparql(), 3);

      assertThat(answers).extracting(HttpResponse::statusCode).containsExactlyInAnyOrder(200, 429, 429);
      assertThat(answers).filteredOn(r -> r.statusCode() == 200).singleElement()
          .satisfies(r -> assertThat(r.body()).contains("http://example.org/a"));
      assertThat(answers).filteredOn(r -> r.statusCode() == 429)
          .allSatisfy(r -> assertThat(r.headers().firstValue("Retry-After")).isEmpty());
      assertThat(endpoint.requests()).isEqualTo(3);
      assertThat(endpoint.refusals()).isEqualTo(2);
      assertThat(endpoint.hostKey()).isEqualTo("127.0.0.1:" + endpoint.sparql().getPort());
    }
  }

  @Test
  void aConcurrencyGateRefusesBeyondItsPlacesWithRetryAfter() {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.concurrent(1, Duration.ofSeconds(1)))) {
      List<HttpResponse<String>> answers = askAtOnce(endpoint.sparql(), 6);

      assertThat(answers).extracting(HttpResponse::statusCode).contains(200);
      assertThat(answers).filteredOn(r -> r.statusCode() == 429)
          .allSatisfy(r -> assertThat(r.headers().firstValue("Retry-After")).hasValue("1"));
      assertThat(endpoint.maxInFlight()).isEqualTo(1);
    }
  }
}

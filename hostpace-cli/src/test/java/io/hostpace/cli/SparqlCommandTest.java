package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.ModelFactory;
import org.apache.jena.rdf.model.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code hostpace sparql}, in this process, against embedded Fuseki on 127.0.0.1 (SPEC I5, I2).
 * A query goes through Jena's default client, which the command sets for its run and puts back:
 * one JVM-wide setting. Runs in one JVM queue for it; every class that runs {@code sparql} or
 * the demo also holds {@link #JENA_DEFAULT_CLIENT}, so that what a test sees of that setting is
 * its own run's.
 */
@ResourceLock(SparqlCommandTest.JENA_DEFAULT_CLIENT)
class SparqlCommandTest extends CommandTest {

  /** The lock of Jena's default HTTP client ({@code HttpEnv}), which a run of {@code sparql} sets. */
  static final String JENA_DEFAULT_CLIENT = "org.apache.jena.http.HttpEnv.dftHttpClient";

  static final String SELECT = "PREFIX ex: <http://example.org/> SELECT ?s ?name WHERE { ?s ex:name ?name } ORDER BY ?s";

  static Dataset dataset() {
    Model model = ModelFactory.createDefaultModel();
    Property name = model.createProperty("http://example.org/name");
    model.createResource("http://example.org/a").addProperty(name, "Ada");
    model.createResource("http://example.org/b").addProperty(name, "Bea");
    return DatasetFactory.create(model);
  }

  @Test
  void I5_aSelectPrintsATableByDefaultAndCsvTsvOrStandardJsonWhenAsked() {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.open())) {
      String url = endpoint.sparql().toString();

      assertThat(run("sparql", "--endpoint", url, "--query", SELECT)).as(err).isZero();
      assertThat(out).contains("| s", "| name").contains("ex:a").contains("\"Ada\"");

      assertThat(run("sparql", "--endpoint", url, "--query", SELECT, "--format", "csv")).isZero();
      assertThat(out.lines()).containsExactly("s,name", "http://example.org/a,Ada", "http://example.org/b,Bea");

      assertThat(run("sparql", "--endpoint", url, "--query", SELECT, "--format", "tsv")).isZero();
      assertThat(out.lines().findFirst()).hasValue("?s\t?name");

      assertThat(run("sparql", "--endpoint", url, "--query", SELECT, "--format", "json")).isZero();
      assertThat(out).contains("\"head\"").contains("\"vars\"").contains("\"bindings\"").contains("\"Bea\"");
    }
  }

  @Test
  void aRunWaitsWhileAnotherInTheSameJvmHoldsJenasDefaultClientThenCompletes() throws InterruptedException {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.open())) {
      String url = endpoint.sparql().toString();
      java.util.concurrent.atomic.AtomicInteger status = new java.util.concurrent.atomic.AtomicInteger(-1);
      Thread second = new Thread(() -> status.set(run("sparql", "--endpoint", url, "--query", "ASK { ?s ?p \"Ada\" }")));
      try (JenaDefaultClient first = JenaDefaultClient.hold()) {
        second.start();
        while (!JenaDefaultClient.isAwaitedBy(second) && second.isAlive()) {
          Thread.sleep(5);
        }
        assertThat(second.isAlive()).as("the run did not wait for the client held before it: %s", err).isTrue();
        assertThat(endpoint.requests()).isZero();
      }
      second.join();

      assertThat(status.get()).as(err).isZero();
      assertThat(out.strip()).isEqualTo("yes");
      assertThat(endpoint.requests()).isEqualTo(1);
    }
  }

  @Test
  void askAndConstructQueriesPrintTheirResults(@TempDir Path dir) throws IOException {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.open())) {
      String url = endpoint.sparql().toString();
      assertThat(run("sparql", "--endpoint", url, "--query", "ASK { ?s ?p \"Ada\" }")).isZero();
      assertThat(out.strip()).isEqualTo("yes");

      Path query = dir.resolve("construct.rq");
      Files.writeString(query, "CONSTRUCT { ?s <http://example.org/label> ?n } WHERE { ?s <http://example.org/name> ?n }");
      assertThat(run("sparql", "--endpoint", url, "--query-file", query.toString())).isZero();
      assertThat(out).contains("<http://example.org/label>").contains("\"Bea\"");
    }
  }

  @Test
  void aSyntaxErrorIsReportedWithItsLineAndColumnAndNoRequestIsSent() {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.open())) {
      int status = run("sparql", "--endpoint", endpoint.sparql().toString(), "--query", "SELECT * WHERE {\n  ?s ?p \n");

      assertThat(status).isEqualTo(2);
      assertThat(err.strip()).isEqualTo("hostpace: query syntax error at line 2, column 9: the query ends too soon");
      assertThat(err.lines()).hasSize(1);
      assertThat(endpoint.requests()).isZero();
    }
  }

  @Test
  void anEndpointThatAnswersWithAnErrorPrintsItsStatusAndMessage() {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.oneEvery(Duration.ofHours(1)))) {
      String url = endpoint.sparql().toString();
      assertThat(run("sparql", "--endpoint", url, "--query", SELECT)).isZero(); // the gate's one
      int status = run("sparql", "--retries", "0", "--endpoint", url, "--query", SELECT);

      assertThat(status).isEqualTo(1);
      assertThat(err.strip()).isEqualTo("hostpace: the endpoint answered 429: Too many requests: slow down");
    }
  }

  @Test
  void I2_aQueryToAnEndpointThatRefusesLikeKgfCompletesThroughHostpace() {
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.concurrent(1, Duration.ofSeconds(1)))) {
      String url = endpoint.sparql().toString();
      assertThat(run("sparql", "--endpoint", url, "--query", SELECT, "--format", "csv")).as(err).isZero();
      assertThat(out.lines()).hasSize(3);
    }
  }

  @Test
  void anEndpointThatIsNotAnHttpUrlIsAUsageError() {
    assertThat(run("sparql", "--endpoint", "ftp://example.org/sparql", "--query", SELECT)).isEqualTo(2);
    assertThat(err.strip()).isEqualTo("hostpace: --endpoint 'ftp://example.org/sparql' is not an http or https URL");
  }

  @Test
  void stateIsWrittenWhenTheQueryEnds(@TempDir Path dir) throws IOException {
    Path state = dir.resolve("state.tsv");
    try (GatedEndpoint endpoint = GatedEndpoint.start(dataset(), Gate.open())) {
      assertThat(run("sparql", "--endpoint", endpoint.sparql().toString(), "--query", SELECT, "--state", state.toString()))
          .as(err).isZero();
    }
    assertThat(java.nio.file.Files.readAllLines(state)).singleElement().asString().startsWith("# hostpace host state");
  }
}

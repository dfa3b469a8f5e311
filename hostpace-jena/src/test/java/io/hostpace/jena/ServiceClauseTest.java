package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.jena.http.RegistryHttpClient;
import org.apache.jena.query.ARQ;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryExecutionFactory;
import org.apache.jena.query.ResultSet;
import org.apache.jena.sparql.engine.http.QueryExceptionHTTP;
import org.apache.jena.sparql.exec.http.QueryExecHTTP;
import org.junit.jupiter.api.Test;

/**
 * {@code SERVICE} clauses of local queries, whichever client Jena's {@code Service.exec} chooses
 * for them: the default, one registered by URL prefix in {@code RegistryHttpClient} (which wins
 * over the others), or one in the query's context.
 */
class ServiceClauseTest extends LiveJenaTest {

  private static final List<String> TWO_NAMES = List.of("Person 0", "Person 1");

  @Test
  void I2_aServiceClauseIsPacedAndRetriedThroughJenasDefaultClient() {
    GatedEndpoint qlever = endpoint(people(2), qleverLike());
    install(Hostpace.builder());

    // two SERVICE requests, one right after the other: the second is refused, and retried
    assertThat(names(namesThroughService(qlever.sparql(), 2))).isEqualTo(TWO_NAMES);
    assertThat(qlever.refusals()).as("refusals").isPositive();
    assertEveryRequestWentThroughTheEngine(qlever);
  }

  @Test
  void I2_aServiceClauseIsPacedThroughAClientRegisteredByUrlPrefixBeforeTheInstallation() {
    // Every second request refused, whatever the time between them: plain Jena's second SERVICE
    // request is refused however slow the machine, and the engine hears a refusal to retry.
    GatedEndpoint qlever = endpoint(people(2), everySecondRefused());
    String prefix = "http://127.0.0.1:" + qlever.sparql().getPort() + "/";
    CountingClient own = new CountingClient();
    RegistryHttpClient.get().addPrefix(prefix, own.client);
    closeAfter(() -> RegistryHttpClient.get().remove(prefix));

    // Without Hostpace, Jena sends through the registered client, and the refusal fails the query.
    QueryExceptionHTTP plain = catchThrowableOfType(QueryExceptionHTTP.class,
        () -> names(namesThroughService(qlever.sparql(), 2)));
    assertThat(plain.getStatusCode()).isEqualTo(429);
    assertThat(own.sent).as("requests the registered client sent").hasValue((int) qlever.requests());

    HostpaceJena.Installation installation = install(Hostpace.builder());
    long before = qlever.requests();
    int sentBefore = own.sent.get();

    assertThat(names(namesThroughService(qlever.sparql(), 1))).containsExactly("Person 0");
    // a direct query to the same prefix: Jena chooses the registered client there too
    try (QueryExecHTTP direct = QueryExecHTTP.service(qlever.sparql().toString()).query(nameOf(1)).build()) {
      assertThat(direct.select().next().get("name").getLiteralLexicalForm()).isEqualTo("Person 1");
    }

    long requests = qlever.requests() - before;
    assertThat(own.sent.get() - sentBefore).as("requests the registered client sent").isEqualTo(requests);
    assertThat(events.started(qlever.hostKey())).as("attempts the engine started").isEqualTo(requests);
    assertThat(events.refused(qlever.hostKey())).as("refusals the engine heard").isPositive();
    installation.close();
    assertThat(RegistryHttpClient.get().find(prefix)).as("the registered client, after closing").isSameAs(own.client);
  }

  /** Serves the first request, refuses the next with a bare 429, serves the third, and so on. */
  static Gate everySecondRefused() {
    AtomicInteger requests = new AtomicInteger();
    return now -> requests.getAndIncrement() % 2 == 0
        ? new Gate.Admission(true, 200, null)
        : new Gate.Admission(false, 429, null);
  }

  @Test
  void I2_aServiceClauseIsPacedThroughAClientRegisteredByUrlPrefixAfterTheInstallation() {
    GatedEndpoint qlever = endpoint(people(2), qleverLike());
    install(Hostpace.builder());
    String prefix = "http://127.0.0.1:" + qlever.sparql().getPort() + "/";
    CountingClient own = new CountingClient();
    RegistryHttpClient.get().addPrefix(prefix, own.client);
    closeAfter(() -> RegistryHttpClient.get().remove(prefix));

    assertThat(names(namesThroughService(qlever.sparql(), 2))).isEqualTo(TWO_NAMES);

    assertThat(own.sent).as("requests the registered client sent").hasValue((int) qlever.requests());
    assertThat(qlever.refusals()).as("refusals").isPositive();
    assertEveryRequestWentThroughTheEngine(qlever);
  }

  @Test
  void I2_aServiceClauseIsPacedThroughAClientInTheQueryContext() {
    GatedEndpoint qlever = endpoint(people(2), qleverLike());
    install(Hostpace.builder());
    CountingClient own = new CountingClient();

    List<String> names;
    try (QueryExecution execution = QueryExecution.create()
        .query(namesThroughService(qlever.sparql(), 2))
        .dataset(DatasetFactory.create())
        .set(ARQ.httpQueryClient, own.client)
        .build()) {
      names = names(execution.execSelect());
    }

    assertThat(names).isEqualTo(TWO_NAMES);
    assertThat(own.sent).as("requests the context's client sent").hasValue((int) qlever.requests());
    assertThat(qlever.refusals()).as("refusals").isPositive();
    assertEveryRequestWentThroughTheEngine(qlever);
  }

  @Test
  void T3_aServiceClauseRefusedBeyondItsRetriesFailsItsQueryWithQueryExceptionHTTPAndTheServersMessage() {
    GatedEndpoint refusing = endpoint(people(1), Gate.oneEvery(Duration.ofMinutes(1)));
    install(Hostpace.builder());

    QueryExceptionHTTP failure;
    try (QueryExecution execution = QueryExecution.create()
        .query(namesThroughService(refusing.sparql(), 2))
        .dataset(DatasetFactory.create())
        .context(HostpaceJena.contextOf(CallContext.builder().retries(1).build()))
        .build()) {
      failure = catchThrowableOfType(QueryExceptionHTTP.class, () -> names(execution.execSelect()));
    }

    assertThat(failure.getStatusCode()).isEqualTo(429);
    assertThat(failure.getResponse()).isEqualTo("Too many requests: slow down\n");
    assertThat(refusing.requests()).as("the first served, the second refused twice").isEqualTo(3);
    assertEveryRequestWentThroughTheEngine(refusing);
  }

  private static List<String> names(String localQuery) {
    try (QueryExecution execution = QueryExecutionFactory.create(localQuery, DatasetFactory.create())) {
      return names(execution.execSelect());
    }
  }

  private static List<String> names(ResultSet results) {
    List<String> names = new ArrayList<>();
    results.forEachRemaining(row -> names.add(row.getLiteral("name").getLexicalForm()));
    return names;
  }

  private void assertEveryRequestWentThroughTheEngine(GatedEndpoint endpoint) {
    assertThat(events.started(endpoint.hostKey())).as("attempts the engine started").isEqualTo(endpoint.requests());
    assertThat(events.refused(endpoint.hostKey())).as("refusals the engine heard").isEqualTo(endpoint.refusals());
  }
}

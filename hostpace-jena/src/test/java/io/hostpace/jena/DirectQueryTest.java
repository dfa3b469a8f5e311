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
import org.apache.jena.atlas.web.HttpException;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.rdfconnection.RDFConnection;
import org.apache.jena.sparql.engine.http.QueryExceptionHTTP;
import org.apache.jena.sparql.exec.http.QueryExecHTTP;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.apache.jena.sparql.exec.http.UpdateExecHTTP;
import org.apache.jena.system.Txn;
import org.junit.jupiter.api.Test;

/** Direct queries and updates, through each of Jena's APIs for them. */
class DirectQueryTest extends LiveJenaTest {

  @Test
  void I2_directQueriesArePacedAndRetriedWhicheverJenaApiSendsThem() {
    GatedEndpoint qlever = endpoint(people(3), qleverLike());
    install(Hostpace.builder());
    String url = qlever.sparql().toString();
    List<String> names = new ArrayList<>();

    // At 0 s the first is served; the next two arrive at once, are refused, and are retried at
    // the pace the refusals taught, until the endpoint serves them a second apart.
    try (QueryExecHTTP exec = QueryExecHTTP.service(url).query(nameOf(0)).build()) {
      names.add(exec.select().next().get("name").getLiteralLexicalForm());
    }
    try (QueryExecution execution = QueryExecutionHTTP.service(url).query(nameOf(1)).build()) {
      names.add(execution.execSelect().next().getLiteral("name").getLexicalForm());
    }
    try (RDFConnection connection = RDFConnection.connect(url)) {
      connection.querySelect(nameOf(2), row -> names.add(row.getLiteral("name").getLexicalForm()));
    }

    assertThat(names).containsExactly("Person 0", "Person 1", "Person 2");
    assertThat(qlever.refusals()).as("refusals").isPositive();
    assertEveryRequestWentThroughTheEngine(qlever);
  }

  @Test
  void I2_updatesArePacedAndRetried() {
    Dataset data = DatasetFactory.createTxnMem();
    GatedEndpoint qlever = endpoint(data, qleverLike());
    install(Hostpace.builder());
    String update = qlever.update().toString();

    UpdateExecHTTP.service(update).update("INSERT DATA { <" + EX + "a> <" + EX + "p> 1 }").execute();
    try (RDFConnection connection = RDFConnection.connect(update)) {
      connection.update("INSERT DATA { <" + EX + "b> <" + EX + "p> 2 }");
    }

    assertThat(Txn.calculateRead(data, () -> data.getDefaultModel().size())).isEqualTo(2);
    assertThat(qlever.refusals()).as("refusals").isPositive();
    assertEveryRequestWentThroughTheEngine(qlever);
  }

  @Test
  void T3_aRefusalThatOutlastsItsRetriesReachesTheCallerAsQueryExceptionHTTPWithTheStatusAndTheServersMessage() {
    GatedEndpoint refusing = endpoint(people(1), Gate.oneEvery(Duration.ofMinutes(1)));
    install(Hostpace.builder());
    String url = refusing.sparql().toString();
    try (QueryExecHTTP first = QueryExecHTTP.service(url).query(nameOf(0)).build()) {
      first.select().materialize(); // served; the endpoint refuses everything for a minute now
    }
    CallContext oneRetry = CallContext.builder().retries(1).build();

    QueryExceptionHTTP query;
    try (QueryExecution execution = QueryExecutionHTTP.service(url).query(nameOf(0))
        .context(HostpaceJena.contextOf(oneRetry)).build()) {
      query = catchThrowableOfType(QueryExceptionHTTP.class, execution::execSelect);
    }
    HttpException update = catchThrowableOfType(HttpException.class, () -> UpdateExecHTTP.service(refusing.update().toString())
        .update("INSERT DATA { <" + EX + "a> <" + EX + "p> 1 }")
        .context(HostpaceJena.contextOf(oneRetry))
        .execute());

    assertThat(query.getStatusCode()).isEqualTo(429);
    assertThat(query.getResponse()).isEqualTo("Too many requests: slow down\n");
    assertThat(update.getStatusCode()).isEqualTo(429);
    assertThat(update.getResponse()).isEqualTo("Too many requests: slow down\n");
    // the first, then each of the two calls once and once again
    assertThat(refusing.requests()).isEqualTo(1 + 2 * 2);
    assertEveryRequestWentThroughTheEngine(refusing);
  }

  private void assertEveryRequestWentThroughTheEngine(GatedEndpoint endpoint) {
    assertThat(events.started(endpoint.hostKey())).as("attempts the engine started").isEqualTo(endpoint.requests());
    assertThat(events.refused(endpoint.hostKey())).as("refusals the engine heard").isEqualTo(endpoint.refusals());
  }
}

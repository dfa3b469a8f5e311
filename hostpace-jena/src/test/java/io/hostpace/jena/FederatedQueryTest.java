package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.fuseki.GatedEndpoint;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryExecutionFactory;
import org.apache.jena.query.QuerySolution;
import org.apache.jena.query.ResultSet;
import org.apache.jena.sparql.engine.http.QueryExceptionHTTP;
import org.junit.jupiter.api.Test;

/**
 * The seed's run in small: local queries federating two public endpoints through
 * {@code SERVICE}, six at once. One endpoint refuses like QLever (one request a second, a bare
 * 429), the other like KGF (four at once, 429 with {@code Retry-After: 1}).
 */
class FederatedQueryTest extends LiveJenaTest {

  private static final int QUERIES = 6;

  @Test
  void I2_aFederatedQueryThroughRefusingEndpointsIsCompleteWithHostpaceAndFailsWithout() throws Exception {
    GatedEndpoint qlever = endpoint(people(QUERIES), qleverLike());
    HeldGate kgfGate = kgfLike();
    GatedEndpoint kgf = endpoint(homes(QUERIES), kgfGate);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < QUERIES; i++) {
      expected.add("Person " + i + " lives in City " + i);
    }

    // Plain Jena: at 0 s six queries ask KGF at once, two are refused and fail; the other four
    // ask QLever at once, and all but one are refused and fail.
    List<Object> plain = runAtOnce(qlever.sparql(), kgf.sparql());
    assertThat(plain).filteredOn(QueryExceptionHTTP.class::isInstance).isNotEmpty()
        .allSatisfy(failure -> assertThat(((QueryExceptionHTTP) failure).getStatusCode()).isEqualTo(429));
    assertThat(plain).as("answers without Hostpace").isNotEqualTo(expected);

    // With Hostpace: each endpoint is opened gently (SPEC P12), KGF's refusals, if any, pause it for
    // the second it asks, QLever's teach its pace, and every refused request is retried until it
    // is served.
    long qleverRefusals = qlever.refusals();
    long kgfRefusals = kgf.refusals();
    long qleverRequests = qlever.requests();
    long kgfRequests = kgf.requests();
    install(Hostpace.builder());

    List<Object> paced = runAtOnce(qlever.sparql(), kgf.sparql());

    assertThat(paced).as("answers with Hostpace").isEqualTo(expected);
    assertThat(kgf.refusals() - kgfRefusals).as("KGF's refusals with Hostpace").isLessThan(kgfRefusals);
    assertThat(qlever.refusals() - qleverRefusals).as("QLever's refusals with Hostpace").isPositive();
    assertThat(events.started(kgf.hostKey())).isEqualTo(kgf.requests() - kgfRequests);
    assertThat(events.started(qlever.hostKey())).isEqualTo(qlever.requests() - qleverRequests);
  }

  /** Each query's answer, or the exception it failed with, in query order. */
  private static List<Object> runAtOnce(URI people, URI homes) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(QUERIES);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<String>> answers = new ArrayList<>();
      for (int i = 0; i < QUERIES; i++) {
        String query = federated(i, people, homes);
        answers.add(pool.submit(() -> {
          start.await();
          return answer(query);
        }));
      }
      start.countDown();
      List<Object> outcomes = new ArrayList<>();
      for (Future<String> answer : answers) {
        try {
          outcomes.add(answer.get(60, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          outcomes.add(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError("a federated query took more than 60 s", e);
        }
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  /** Where {@code ex:person<i>} lives (from KGF) and their name (from QLever). */
  private static String federated(int i, URI people, URI homes) {
    return "PREFIX ex: <" + EX + "> SELECT ?name ?city { VALUES ?p { ex:person" + i + " } "
        + "SERVICE <" + homes + "> { ?p ex:livesIn ?city } "
        + "SERVICE <" + people + "> { ?p ex:name ?name } }";
  }

  private static String answer(String query) {
    try (QueryExecution execution = QueryExecutionFactory.create(query, DatasetFactory.create())) {
      ResultSet results = execution.execSelect();
      QuerySolution row = results.next();
      return row.getLiteral("name").getLexicalForm() + " lives in " + row.getLiteral("city").getLexicalForm()
          + (results.hasNext() ? " and more" : "");
    }
  }
}

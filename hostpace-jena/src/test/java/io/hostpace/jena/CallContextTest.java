package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.AttemptListener;
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import io.hostpace.testkit.HeardAttempts;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Limits, retries and listeners per query, from the query's Jena context. */
class CallContextTest extends LiveJenaTest {

  /** The server holds every request this long, so that a query's requests overlap. */
  private static final Duration HOLD = Duration.ofMillis(300);

  @Test
  void P8_localQueriesWithDifferentInFlightForTheSameEndpointRunAtOnceAndEachKeepsItsOwn() throws Exception {
    twoContextsAtOnce((endpoint, i) -> {
      String query = "PREFIX ex: <" + EX + "> SELECT ?name { SERVICE <" + endpoint + "> { ex:person" + i + " ex:name ?name } }";
      return QueryExecution.create().query(query).dataset(DatasetFactory.create());
    });
  }

  @Test
  void P8_directQueriesWithDifferentInFlightForTheSameEndpointRunAtOnceAndEachKeepsItsOwn() throws Exception {
    twoContextsAtOnce((endpoint, i) -> QueryExecutionHTTP.service(endpoint.toString()).query(nameOf(i)));
  }

  /**
   * At 0 s four queries with one in flight for the endpoint and six with three arrive at once;
   * the server holds each request 300 ms. The first kind goes one at a time (4 × 300 ms), the
   * second three at a time (2 × 300 ms), so the server has four at once while both run: one of
   * the first kind and three of the second.
   */
  private void twoContextsAtOnce(BiFunction<URI, Integer, org.apache.jena.query.QueryExecutionBuilder> queries)
      throws Exception {
    HeldGate gate = new HeldGate(Gate.open(), HOLD);
    GatedEndpoint endpoint = endpoint(people(10), gate);
    install(Hostpace.builder());
    InFlight ones = new InFlight();
    InFlight threes = new InFlight();
    CallContext one = CallContext.builder().addLimit(endpoint.hostKey(), Limits.inFlight(1)).attemptListener(ones).build();
    CallContext three = CallContext.builder().addLimit(endpoint.hostKey(), Limits.inFlight(3)).attemptListener(threes).build();

    ExecutorService pool = Executors.newFixedThreadPool(10);
    List<String> names = new ArrayList<>();
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<String>> answers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        CallContext context = i < 4 ? one : three;
        QueryExecution execution = queries.apply(endpoint.sparql(), i).context(HostpaceJena.contextOf(context)).build();
        answers.add(pool.submit(() -> {
          start.await();
          try (execution) {
            return execution.execSelect().next().getLiteral("name").getLexicalForm();
          }
        }));
      }
      start.countDown();
      for (Future<String> answer : answers) {
        names.add(answer.get(30, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(names).containsExactly("Person 0", "Person 1", "Person 2", "Person 3", "Person 4",
        "Person 5", "Person 6", "Person 7", "Person 8", "Person 9");
    assertThat(ones.most()).as("most in flight with inFlight 1").isEqualTo(1);
    assertThat(threes.most()).as("most in flight with inFlight 3").isEqualTo(3);
    assertThat(gate.mostHeld()).as("most the server held at once").isEqualTo(1 + 3);
  }

  @Test
  void A1_theAttemptListenerInAQueryContextHearsEachAttemptOfItsRequests() {
    GatedEndpoint qlever = endpoint(people(2), qleverLike());
    install(Hostpace.builder());
    HeardAttempts listener = new HeardAttempts();
    List<String> heard = listener.heard();
    try (QueryExecution first = QueryExecutionHTTP.service(qlever.sparql().toString()).query(nameOf(0)).build()) {
      first.execSelect().next(); // served: the next request within a second is refused
    }

    String name;
    try (QueryExecution second = QueryExecutionHTTP.service(qlever.sparql().toString()).query(nameOf(1))
        .context(HostpaceJena.contextOf(CallContext.builder().attemptListener(listener).build()))
        .build()) {
      name = second.execSelect().next().getLiteral("name").getLexicalForm();
    }

    assertThat(name).isEqualTo("Person 1");
    int attempts = (int) qlever.requests() - 1;
    List<String> expected = new ArrayList<>();
    for (int attempt = 1; attempt < attempts; attempt++) {
      expected.addAll(List.of("sent " + attempt, "settled " + attempt + " 429", "retrying " + attempt));
    }
    expected.addAll(List.of("sent " + attempts, "settled " + attempts + " 200"));
    assertThat(attempts).as("attempts of the second query").isGreaterThan(1);
    assertThat(heard).isEqualTo(expected);
  }

  /** Counts a context's attempts in flight, from sent to settled, and the most at once. */
  private static final class InFlight implements AttemptListener {
    private final AtomicInteger now = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();

    @Override
    public void sent(URI uri, int attempt) {
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
    }

    @Override
    public void settled(URI uri, int attempt, int status, @Nullable Throwable failure) {
      now.decrementAndGet();
    }

    int most() {
      return most.get();
    }
  }
}

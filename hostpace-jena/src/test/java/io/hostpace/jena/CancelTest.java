package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.fuseki.Gate;
import io.hostpace.fuseki.GatedEndpoint;
import io.hostpace.testkit.CallerThread;
import io.hostpace.testkit.EngineState;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.junit.jupiter.api.Test;

/**
 * SPEC T5 through Jena: a query that waits in its host's queue, here for the {@code Retry-After}
 * of a refusal, leaves the queue when it is aborted, and its retry is never sent.
 */
class CancelTest extends LiveJenaTest {

  /** Refuses every request with a 429 and {@code Retry-After: 20}: a retry would wait that long. */
  static final Gate REFUSING = now -> new Gate.Admission(false, 429, Duration.ofSeconds(20));

  @Test
  void T5_abortingAQueryWaitingOutARetryAfterTakesItOutOfItsQueueAndItsRetryIsNeverSent() throws Exception {
    GatedEndpoint refusing = endpoint(people(1), REFUSING);
    Hostpace engine = install(Hostpace.builder()).engine();
    AtomicReference<QueryExecution> query = new AtomicReference<>(
        QueryExecutionHTTP.service(refusing.sparql().toString()).query(nameOf(0)).build());
    CallerThread caller = CallerThread.start(() -> query.get().execSelect().forEachRemaining(row -> { }));
    EngineState.until(() -> refusing.requests() == 1 && EngineState.waiting(engine) == 1);

    query.get().abort();

    EngineState.until(() -> EngineState.waiting(engine) == 0);
    caller.join(EngineState.PATIENCE.toMillis());
    assertThat(caller.thrown().get()).as("what the query threw").isNotNull();
    assertThat(EngineState.inFlight(engine)).as("in flight").isZero();
    assertThat(events.started(refusing.hostKey())).as("attempts started").isEqualTo(1);
    assertThat(refusing.requests()).as("requests the endpoint got").isEqualTo(1);
  }
}

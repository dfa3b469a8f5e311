package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.hostpace.Hostpace;
import io.hostpace.testkit.EngineState;
import io.hostpace.testkit.RawServer;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.junit.jupiter.api.Test;

/** A query's answer, body included, held to its timeout and to the installation's cap (SPEC T7), against a server that misbehaves. */
class AnswerBoundsTest extends LiveJenaTest {

  private static final long MIB = 1024 * 1024;

  @Test
  void T7_aResultThatStallsAfterItsHeadersFailsTheQueryAtItsTimeout() throws Exception {
    RawServer raw = closeAfter(RawServer.start());
    install(Hostpace.builder());

    // The headers come at once and promise 1 MiB, which never comes: only the timeout ends the query.
    Throwable failure = ask(raw.uri("/stall").toString(), 1);

    assertThat(causes(failure)).as("the causes of %s", failure).anyMatch(t -> t instanceof HttpTimeoutException);
    EngineState.until(() -> raw.abandoned().contains("/stall"));
  }

  @Test
  void T7_aResultLongerThanTheInstallationsCapFailsTheQueryBeforeItIsRead() throws Exception {
    RawServer raw = closeAfter(RawServer.start());
    closeAfter(HostpaceJena.install(Hostpace.builder().addListener(events).build(), MIB));

    // Content-Length: 1 GiB, against a cap of 1 MiB.
    Throwable failure = ask(raw.uri("/huge").toString(), 15);

    assertThat(causes(failure)).as("the causes of %s", failure)
        .anyMatch(t -> String.valueOf(t.getMessage()).contains("/huge: the body passes its cap of " + MIB + " bytes: its Content-Length is 1073741824"));
    EngineState.until(() -> raw.abandoned().contains("/huge"));
  }

  /** What a SELECT query to {@code endpoint} with a timeout of {@code seconds} throws. */
  private static Throwable ask(String endpoint, int seconds) {
    try (QueryExecution execution = QueryExecutionHTTP.service(endpoint).query("SELECT * { ?s ?p ?o }")
        .timeout(seconds, TimeUnit.SECONDS).build()) {
      return catchThrowable(() -> execution.execSelect().forEachRemaining(row -> {}));
    }
  }

  private static List<Throwable> causes(Throwable failure) {
    List<Throwable> causes = new ArrayList<>();
    for (Throwable t = failure; t != null && !causes.contains(t); t = t.getCause()) {
      causes.add(t);
    }
    return causes;
  }
}

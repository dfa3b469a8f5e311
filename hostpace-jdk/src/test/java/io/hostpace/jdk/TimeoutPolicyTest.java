package io.hostpace.jdk;

import io.hostpace.testkit.RawServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.AttemptTimeoutException;
import io.hostpace.CallContext;
import io.hostpace.EndpointDownException;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.timeout.AdaptiveTimeouts;
import io.hostpace.timeout.TimeoutPolicy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The engine's timeout policy applied to each attempt of the paced client (SPEC D1, D3), against real sockets. */
class TimeoutPolicyTest {

  RawServer server;

  @BeforeEach
  void start() throws IOException {
    server = RawServer.start();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  @Test
  void D1_anAttemptOverItsBudgetEndsAsAnAttemptTimeoutAndFreesItsPlace() throws Exception {
    Hostpace engine = Hostpace.builder().addLimit(server.hostKey(), Limits.inFlight(1))
        .timeoutPolicy(TimeoutPolicy.fixed(Duration.ofMillis(300))).build();
    PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine)
        .withContext(CallContext.builder().kind("heavy").build());

    assertThatThrownBy(() -> client.send(HttpRequest.newBuilder(server.uri("/hang")).build(), BodyHandlers.ofString()))
        .isInstanceOf(AttemptTimeoutException.class)
        .isInstanceOf(IOException.class);

    assertThat(client.send(HttpRequest.newBuilder(server.uri("/ok")).build(), BodyHandlers.ofString()).body())
        .isEqualTo("ok");
    // The budget runs on the wall clock: on a busy machine it can end before the server has read
    // the request's head, which may then come after /ok, or never. So only this: not sent again.
    assertThat(server.paths()).containsOnlyOnce("/ok");
    assertThat(server.paths()).filteredOn("/hang"::equals).hasSizeLessThanOrEqualTo(1);
  }

  @Test
  void D3_anEndpointThatRefusesConnectionsFailsFastAfterAFewTries() throws Exception {
    URI dead = Waiting.nobodyListens();
    Hostpace engine = Hostpace.builder()
        .timeoutPolicy(TimeoutPolicy.adaptive(AdaptiveTimeouts.builder().failFastAfter(2).build())).build();
    PacedHttpClient client = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
    HttpRequest request = HttpRequest.newBuilder(dead).build();

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> client.send(request, BodyHandlers.ofString()))
          .isInstanceOf(java.net.ConnectException.class).isNotInstanceOf(EndpointDownException.class);
    }
    assertThatThrownBy(() -> client.send(request, BodyHandlers.ofString())).isInstanceOf(EndpointDownException.class);
  }
}

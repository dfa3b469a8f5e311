package io.hostpace.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import io.hostpace.Hostpace;
import io.hostpace.testkit.TestServer;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A paced client sending on pooled threads, as it does where the JDK's {@code sendAsync} would
 * start a thread for each answer, starts a handful of threads for many requests, not one each.
 * The count is the JVM's threads started, so no other test class runs beside this one.
 */
@Isolated
class SendThreadsTest {

  @Test
  void I1_aPacedClientSendingManyRequestsOneAfterAnotherOnPooledThreadsStartsAHandfulOfThreadsNotOneEach() throws Exception {
    try (TestServer upstream = TestServer.start((request, exchange) -> TestServer.reply(exchange, 200, "ok"))) {
      PacedHttpClient paced = PacedHttpClient.wrap(HttpClient.newHttpClient(), Hostpace.create(), true);
      paced.sendAsync(HttpRequest.newBuilder(upstream.uri("/warm")).build(), BodyHandlers.ofString()).get(); // the client's own threads, the server's

      long before = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
      for (int i = 0; i < 200; i++) {
        HttpResponse<String> answer = paced.sendAsync(HttpRequest.newBuilder(upstream.uri("/" + i)).build(),
            BodyHandlers.ofString()).get();
        assertThat(answer.body()).isEqualTo("ok");
      }
      long started = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount() - before;

      // The JDK's sendAsync, where CompletableFuture's default executor is no pool, starts one for each.
      assertThat(started).as("threads started by 200 requests").isLessThanOrEqualTo(20);
    }
  }
}

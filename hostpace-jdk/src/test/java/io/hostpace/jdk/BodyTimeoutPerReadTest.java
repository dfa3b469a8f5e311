package io.hostpace.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.testkit.RawServer;
import io.hostpace.testkit.SteadyBody;
import io.hostpace.testkit.TestServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * SPEC T7, per read ({@link PacedHttpClient#withBodyTimeoutPerRead}): the request's timeout bounds
 * each wait for more of the body, so a body that keeps coming past it arrives whole, and one that
 * stalls is still cut, saying what had come. The body that keeps coming brings a line every 20 ms
 * for at least 5 s, against a timeout of 3 s: it outlasts the timeout however fast the machine,
 * and a gap would have to stretch 150-fold to reach it.
 */
class BodyTimeoutPerReadTest {

  final Hostpace engine = Hostpace.create();
  final PacedHttpClient whole = PacedHttpClient.wrap(HttpClient.newHttpClient(), engine);
  final PacedHttpClient perRead = whole.withBodyTimeoutPerRead();

  @Test
  void T7_perRead_aBodyThatKeepsComingPastTheTimeoutArrivesWholeWhereTheWholeAnswersBoundCutsIt() throws Exception {
    SteadyBody steady = new SteadyBody(250, Duration.ofMillis(20));
    TestServer server = TestServer.start(steady);
    try {
      HttpRequest request = HttpRequest.newBuilder(server.uri("/results")).timeout(Duration.ofSeconds(3)).build();
      CompletableFuture<HttpResponse<String>> relayed = perRead.sendAsync(request, BodyHandlers.ofString());
      CompletableFuture<HttpResponse<String>> read = whole.sendAsync(request, BodyHandlers.ofString());

      assertThat(relayed.get().body()).isEqualTo(steady.body());
      Throwable cut = catchThrowable(read::get);
      assertThat(cut).isInstanceOf(ExecutionException.class).cause().isInstanceOf(BodyTimeoutException.class)
          .hasMessageContaining("the answer was not read whole within the request's timeout of PT3S");
    } finally {
      Waiting.stop(server, whole);
    }
  }

  @Test
  void T7_perRead_aBodyThatStallsIsCutWithWhatHadCome() throws Exception {
    try (RawServer raw = RawServer.start()) {
      raw.script("/part", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc");
      HttpRequest request = HttpRequest.newBuilder(raw.uri("/part")).timeout(Duration.ofSeconds(1)).build();

      Throwable failure = catchThrowable(() -> perRead.send(request, BodyHandlers.ofString()));

      // The three bytes come with the headers; a machine slow enough to hand them on a second late
      // cuts the body before them, which the account then says.
      assertThat(failure).isInstanceOf(BodyTimeoutException.class);
      BodyCut cut = ((BodyTimeoutException) failure).cut();
      assertThat(cut.bytes()).isBetween(0L, 3L);
      assertThat(cut).isEqualTo(new BodyCut(200, cut.bytes(), 100));
      assertThat(failure).hasMessage("GET " + raw.uri("/part")
          + ": no more of the body came within the request's timeout of PT1S after " + cut.bytes() + " bytes");
    } finally {
      whole.shutdownNow();
    }
  }

  @Test
  void T7_perRead_viewsKeepItAndTheDefaultIsTheWholeAnswer() {
    assertThat(whole.bodyTimeoutPerRead()).isFalse();
    assertThat(perRead.bodyTimeoutPerRead()).isTrue();
    assertThat(perRead.withContext(CallContext.DEFAULT).withMaxBodyBytes(10).bodyTimeoutPerRead()).isTrue();
    assertThat(perRead.withMaxBodyBytes(10).maxBodyBytes()).hasValue(10);
  }
}
